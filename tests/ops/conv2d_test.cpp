#include "test_util.h"

namespace opstest {
namespace {

Param stride_p(uint32_t h, uint32_t w) { return u32_tensor_param("stride", {2}, {h, w}); }
Param pad_p(uint32_t t, uint32_t b, uint32_t l, uint32_t r) {
  return u32_tensor_param("pad_amount", {2, 2}, {t, b, l, r});
}
Param dilation_p(uint32_t h, uint32_t w) { return u32_tensor_param("dilation", {2}, {h, w}); }

TEST(Conv2d, HandComputedWithPadding) {
  // Input 1x2x2x1 = [[1, 2], [3, 4]], filter 2x2x1x1 = [[1, 10], [100, 1000]],
  // bias 0.5, stride 1, pad 1 on every side -> output 3x3:
  //   out(oh,ow) = sum x(oh-1+kh, ow-1+kw) * f(kh,kw) over in-bounds taps
  //   (0,0): x(0,0)*f(1,1)             = 1000
  //   (0,1): x(0,0)*f(1,0)+x(0,1)*f(1,1) = 100 + 2000 = 2100
  //   (0,2): x(0,1)*f(1,0)             = 200
  //   (1,0): x(0,0)*f(0,1)+x(1,0)*f(1,1) = 10 + 3000 = 3010
  //   (1,1): 1*1 + 2*10 + 3*100 + 4*1000 = 4321
  //   (1,2): x(0,1)*f(0,0)+x(1,1)*f(1,0) = 2 + 400 = 402
  //   (2,0): x(1,0)*f(0,1)             = 30
  //   (2,1): x(1,0)*f(0,0)+x(1,1)*f(0,1) = 3 + 40 = 43
  //   (2,2): x(1,1)*f(0,0)             = 4
  Node n{"Conv2d", "conv1", {f32({1, 2, 2, 1}), f32({2, 2, 1, 1}), f32({1})}, {f32({1, 3, 3, 1})},
         {stride_p(1, 1), pad_p(1, 1, 1, 1)}};
  std::vector<float> x{1, 2, 3, 4}, w{1, 10, 100, 1000}, b{0.5f};
  EXPECT_EQ(n.run({&x, &w, &b}),
            (std::vector<float>{1000.5f, 2100.5f, 200.5f, 3010.5f, 4321.5f, 402.5f, 30.5f, 43.5f, 4.5f}));
}

TEST(Conv2d, HandComputedGroupsAndDilation) {
  // Input 1x3x3x2 (channel 0 = v, channel 1 = 10*v for v = 1..9 row-major),
  // 2 groups, 1x2 filter with horizontal dilation 2, 1 output channel per group:
  //   out(oh, 0, g) = w(0,g) * x(oh, 0, g) + w(1,g) * x(oh, 2, g)
  //   group 0 weights (1, -1) -> v(oh,0) - v(oh,2) = -2 for every row
  //   group 1 weights (2, 1)  -> 2*10*v(oh,0) + 10*v(oh,2): rows 1,4,7 / 3,6,9
  //     -> 20+30 = 50, 80+60 = 140, 140+90 = 230
  std::vector<float> x(18);
  for (int i = 0; i < 9; ++i) {
    x[2 * i] = float(i + 1);
    x[2 * i + 1] = 10.0f * float(i + 1);
  }
  // HWIO [1,2,1,2]: w[0][kw][0][co]
  std::vector<float> w{1, 2, -1, 1};
  Node n{"Conv2d", "g", {f32({1, 3, 3, 2}), f32({1, 2, 1, 2})}, {f32({1, 3, 1, 2})},
         {stride_p(1, 1), pad_p(0, 0, 0, 0), dilation_p(1, 2), u32_param("group", 2)}};
  EXPECT_EQ(n.run({&x, &w}), (std::vector<float>{-2, 50, -2, 140, -2, 230}));
}

// Independent formulation: explicit im2col (zero rows for padding) and one
// matrix product per group, all in double.
std::vector<Expected> conv_im2col(const std::vector<float>& x, const std::vector<float>& w,
                                  const std::vector<float>* bias, uint32_t N, uint32_t H, uint32_t W,
                                  uint32_t Cin, uint32_t KH, uint32_t KW, uint32_t Cout, uint32_t group,
                                  uint32_t sh, uint32_t sw, uint32_t pt, uint32_t pl, uint32_t dh,
                                  uint32_t dw, uint32_t Ho, uint32_t Wo) {
  const uint32_t cin_g = Cin / group, cout_g = Cout / group;
  const size_t patch = size_t{KH} * KW * cin_g;
  const size_t pixels = size_t{N} * Ho * Wo;
  std::vector<Expected> out(pixels * Cout);
  for (uint32_t g = 0; g < group; ++g) {
    // cols[p][(kh*KW + kw)*cin_g + ci]
    std::vector<double> cols(pixels * patch, 0.0);
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t oh = 0; oh < Ho; ++oh)
        for (uint32_t ow = 0; ow < Wo; ++ow) {
          const size_t p = (size_t{n} * Ho + oh) * Wo + ow;
          for (uint32_t kh = 0; kh < KH; ++kh)
            for (uint32_t kw = 0; kw < KW; ++kw) {
              const int64_t ih = int64_t{oh} * sh - pt + int64_t{kh} * dh;
              const int64_t iw = int64_t{ow} * sw - pl + int64_t{kw} * dw;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;  // padding stays 0
              for (uint32_t ci = 0; ci < cin_g; ++ci)
                cols[p * patch + (kh * KW + kw) * cin_g + ci] =
                    x[((size_t{n} * H + ih) * W + iw) * Cin + g * cin_g + ci];
            }
        }
    // weights of this group as a [patch x cout_g] matrix
    std::vector<double> wm(patch * cout_g);
    for (size_t r = 0; r < patch; ++r)
      for (uint32_t c = 0; c < cout_g; ++c) wm[r * cout_g + c] = w[r * Cout + g * cout_g + c];
    for (size_t p = 0; p < pixels; ++p)
      for (uint32_t c = 0; c < cout_g; ++c) {
        Expected& e = out[p * Cout + g * cout_g + c];
        for (size_t r = 0; r < patch; ++r) e.add(cols[p * patch + r] * wm[r * cout_g + c]);
        if (bias) e.add((*bias)[g * cout_g + c]);
      }
  }
  return out;
}

TEST(Conv2d, RandomAgainstIm2col) {
  std::mt19937 rng(31);
  int tested = 0;
  for (int iter = 0; tested < 120 && iter < 1000; ++iter) {
    const uint32_t N = rand_int(rng, 1, 2), H = rand_int(rng, 1, 9), W = rand_int(rng, 1, 9);
    const uint32_t group = rand_int(rng, 1, 3);
    const uint32_t Cin = group * rand_int(rng, 1, 4), Cout = group * rand_int(rng, 1, 4);
    const uint32_t KH = rand_int(rng, 1, 4), KW = rand_int(rng, 1, 4);
    const uint32_t sh = rand_int(rng, 1, 3), sw = rand_int(rng, 1, 3);
    const uint32_t dh = rand_int(rng, 1, 3), dw = rand_int(rng, 1, 3);
    const uint32_t pt = rand_int(rng, 0, 3), pb = rand_int(rng, 0, 3);
    const uint32_t pl = rand_int(rng, 0, 3), pr = rand_int(rng, 0, 3);
    // Output size by counting window start positions that fit.
    uint32_t Ho = 0, Wo = 0;
    for (uint32_t s = 0; s + (KH - 1) * dh + 1 <= pt + H + pb; s += sh) ++Ho;
    for (uint32_t s = 0; s + (KW - 1) * dw + 1 <= pl + W + pr; s += sw) ++Wo;
    if (Ho == 0 || Wo == 0) continue;  // filter larger than padded input: covered by a rule test
    ++tested;
    const bool with_bias = rand_int(rng, 0, 1);
    std::vector<float> x = random_floats(rng, size_t{N} * H * W * Cin);
    std::vector<float> w = random_floats(rng, size_t{KH} * KW * (Cin / group) * Cout);
    std::vector<float> bias = random_floats(rng, Cout);
    Node node{"Conv2d", "c", {f32({N, H, W, Cin}), f32({KH, KW, Cin / group, Cout})},
              {f32({N, Ho, Wo, Cout})}, {stride_p(sh, sw), pad_p(pt, pb, pl, pr)}};
    if (with_bias) node.inputs.push_back(f32({Cout}));
    if (group != 1 || rand_int(rng, 0, 1)) node.params.push_back(u32_param("group", group));
    if (dh != 1 || dw != 1 || rand_int(rng, 0, 1)) node.params.push_back(dilation_p(dh, dw));
    std::vector<float> got = node.run({&x, &w, with_bias ? &bias : nullptr});
    auto want = conv_im2col(x, w, with_bias ? &bias : nullptr, N, H, W, Cin, KH, KW, Cout, group, sh,
                            sw, pt, pl, dh, dw, Ho, Wo);
    expect_near_sums(got, want, "Conv2d iter " + std::to_string(iter));
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(tested, 120);
}

Node conv_base() {
  return Node{"Conv2d", "conv1", {f32({1, 5, 5, 3}), f32({3, 3, 3, 8}), f32({8})}, {f32({1, 3, 3, 8})},
              {stride_p(1, 1), pad_p(0, 0, 0, 0)}};
}

TEST(Conv2dRules, Shapes) {
  ASSERT_TRUE(conv_base().prepare().ok());
  Node n = conv_base();
  n.inputs[1] = f32({3, 3, 4, 8});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument,
                "Conv2d 'conv1': in[1] (filter) dim 2 is 4, expected Cin/group = 3");
  n = conv_base();
  n.inputs[0] = f32({5, 5, 3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input) rank is 3, expected 4");
  n = conv_base();
  n.inputs[1] = f32({3, 3, 3, 8, 1});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) rank is 5, expected 4");
  n = conv_base();
  n.inputs[2] = f32({7});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) dim 0 is 7, expected Cout = 8");
  n = conv_base();
  n.outputs[0] = f32({1, 4, 3, 8});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 4, expected 3");
  n = conv_base();
  n.inputs[1] = f32({6, 3, 3, 8});
  n.outputs[0] = f32({1, 1, 3, 8});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument,
                "dilated filter height (kh-1)*dh+1 = 6 exceeds padded input height pt+H+pb = 5");
  n.params[1] = pad_p(1, 0, 0, 0);  // 6 rows of padded input: now fits, Ho = 1
  EXPECT_TRUE(n.prepare().ok()) << n.prepare().message;
  n = conv_base();
  n.params.push_back(dilation_p(1, 3));  // kw extent (3-1)*3+1 = 7 > 5
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "dilated filter width (kw-1)*dw+1 = 7");
}

TEST(Conv2dRules, Group) {
  Node n = conv_base();
  n.params.push_back(u32_param("group", 2));  // Cin = 3
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "Cin = 3 not divisible by parameter 'group' = 2");
  n = conv_base();
  n.inputs[0] = f32({1, 5, 5, 6});
  n.inputs[1] = f32({3, 3, 2, 9});
  n.inputs[2] = f32({9});
  n.outputs[0] = f32({1, 3, 3, 9});
  n.params.push_back(u32_param("group", 3));
  EXPECT_TRUE(n.prepare().ok()) << n.prepare().message;
  n.inputs[1] = f32({3, 3, 2, 8});
  n.inputs[2] = f32({8});
  n.outputs[0] = f32({1, 3, 3, 8});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "Cout = dim 3 = 8 not divisible by parameter 'group' = 3");
  n = conv_base();
  n.params.push_back(u32_param("group", 0));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'group' is 0, expected >= 1");
}

TEST(Conv2dRules, Params) {
  Node n = conv_base();
  n.params = {pad_p(0, 0, 0, 0)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'stride' is missing");
  n.params = {stride_p(1, 1)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'pad_amount' is missing");
  n = conv_base();
  n.params[0] = stride_p(1, 0);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'stride' element 1 is 0, expected >= 1");
  n = conv_base();
  n.params.push_back(dilation_p(0, 1));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'dilation' element 0 is 0, expected >= 1");
  n = conv_base();
  n.params[1] = u32_tensor_param("pad_amount", {4}, {0, 0, 0, 0});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'pad_amount' dims are [4], expected [2,2]");
  n = conv_base();
  n.params[0] = u32_tensor_param("stride", {2}, {1});  // dims say 2, data holds 1
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'stride' holds 4 bytes, expected 8");
  n = conv_base();
  n.params[0] = i32_tensor_param("stride", {2}, {1, -1});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'stride' element 1 is -1");
  n = conv_base();
  n.params[0] = i32_tensor_param("stride", {2}, {2, 2});  // INT_32 is accepted too
  n.outputs[0] = f32({1, 2, 2, 8});
  EXPECT_TRUE(n.prepare().ok()) << n.prepare().message;
  n = conv_base();
  n.params.push_back(u32_param("stride_h", 1));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'stride_h'");
  n = conv_base();
  n.params.push_back(stride_p(1, 1));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'stride' given twice");
}

}  // namespace
}  // namespace opstest
