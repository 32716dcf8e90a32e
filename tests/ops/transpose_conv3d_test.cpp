// TransposeConv3d: hand-checked cases, random shapes against a naive
// double-precision scatter (each input voxel stamps the weighted, dilated
// filter into the output; the kernel gathers instead), and every rule broken
// once.
#include "test_util.h"

namespace opstest {
namespace {

Param stride3(uint32_t d, uint32_t h, uint32_t w) { return u32_tensor_param("stride", {3}, {d, h, w}); }
Param pad3(std::vector<uint32_t> v) { return u32_tensor_param("pad_amount", {3, 2}, std::move(v)); }
Param zero_pad3() { return pad3({0, 0, 0, 0, 0, 0}); }

TEST(TransposeConv3d, HandComputedStride2) {
  // Input 2x1x1 along D (values 1, 2), filter 2x1x1 (values 1, 10), stride 2
  // on D: each input voxel stamps the filter scaled by itself into its own
  // block; Do = 2*(2-1) + 2 = 4 -> 1, 10, 2, 20.
  std::vector<float> x{1, 2}, w{1, 10};
  Node n{"TransposeConv3d", "tc", {f32({1, 2, 1, 1, 1}), f32({2, 1, 1, 1, 1})}, {f32({1, 4, 1, 1, 1})},
         {stride3(2, 1, 1), zero_pad3()}};
  EXPECT_EQ(n.run({&x, &w}), (std::vector<float>{1, 10, 2, 20}));
}

TEST(TransposeConv3d, HandComputedOverlapDilationPadding) {
  // Input 1x2x2 (D=1): [1 2; 3 4]; filter 1x2x2: [1 10; 100 1000]; stride 1,
  // bias 0.5 -> the full 1x3x3 result (as the 2-D case):
  //     1     12    20
  //   103   1234  2040
  //   300   3400  4000
  std::vector<float> x{1, 2, 3, 4}, w{1, 10, 100, 1000}, b{0.5f};
  Node full{"TransposeConv3d", "tc", {f32({1, 1, 2, 2, 1}), f32({1, 2, 2, 1, 1}), f32({1})},
            {f32({1, 1, 3, 3, 1})}, {stride3(1, 1, 1), zero_pad3()}};
  EXPECT_EQ(full.run({&x, &w, &b}),
            (std::vector<float>{1.5f, 12.5f, 20.5f, 103.5f, 1234.5f, 2040.5f, 300.5f, 3400.5f, 4000.5f}));
  // Dilation 2 on H and W: filter taps land 2 apart, so the four stamps
  // (each input pixel's 2x2 filter spread over a 3x3 area) interleave
  // without overlap: Ho = Wo = 1*(2-1) + 2*(2-1) + 1 = 4.
  //   y[h][w] = x[h%2][w%2] * w[h/2][w/2]
  Node dil{"TransposeConv3d", "tc", {f32({1, 1, 2, 2, 1}), f32({1, 2, 2, 1, 1})}, {f32({1, 1, 4, 4, 1})},
           {stride3(1, 1, 1), zero_pad3(), u32_tensor_param("dilation", {3}, {1, 2, 2})}};
  EXPECT_EQ(dil.run({&x, &w}), (std::vector<float>{1, 2, 10, 20, 3, 4, 30, 40,  //
                                                    100, 200, 1000, 2000, 300, 400, 3000, 4000}));
  // pad 1 on every side of H and W crops the full result to its centre.
  Node crop{"TransposeConv3d", "tc", {f32({1, 1, 2, 2, 1}), f32({1, 2, 2, 1, 1})}, {f32({1, 1, 1, 1, 1})},
            {stride3(1, 1, 1), pad3({0, 0, 1, 1, 1, 1})}};
  EXPECT_EQ(crop.run({&x, &w}), (std::vector<float>{1234}));
  // Stride 2 on D with output_padding 1: one extra D slice no input reaches.
  std::vector<float> one{3}, w1{2};
  Node op{"TransposeConv3d", "tc", {f32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1})}, {f32({1, 2, 1, 1, 1})},
          {stride3(2, 1, 1), zero_pad3(), u32_tensor_param("output_padding", {3}, {1, 0, 0})}};
  EXPECT_EQ(op.run({&one, &w1}), (std::vector<float>{6, 0}));
}

TEST(TransposeConv3d, RandomAgainstScatter) {
  std::mt19937 rng(305);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t group = rand_int(rng, 1, 2);
    const uint32_t N = rand_int(rng, 1, 2);
    const uint32_t cin_g = rand_int(rng, 1, 2), cout_g = rand_int(rng, 1, 3);
    const uint32_t Cin = cin_g * group, Cout = cout_g * group;
    uint32_t L[3], K[3], S[3], Dl[3], PB[3], PE[3], OP[3], O[3];
    bool ok = true;
    for (int i = 0; i < 3; ++i) {
      L[i] = rand_int(rng, 1, 4);
      K[i] = rand_int(rng, 1, 3);
      S[i] = rand_int(rng, 1, 3);
      Dl[i] = rand_int(rng, 1, 2);
      PB[i] = rand_int(rng, 0, 2);
      PE[i] = rand_int(rng, 0, 2);
      OP[i] = rand_int(rng, 0, S[i] - 1);
      const int64_t o = int64_t{S[i]} * (L[i] - 1) + int64_t{Dl[i]} * (K[i] - 1) + 1 - PB[i] - PE[i] + OP[i];
      if (o < 1) ok = false;
      O[i] = static_cast<uint32_t>(std::max<int64_t>(o, 0));
    }
    if (!ok) continue;
    const bool with_bias = trial % 3 != 0;
    std::vector<float> x = random_floats(rng, size_t{N} * L[0] * L[1] * L[2] * Cin);
    std::vector<float> w = random_floats(rng, size_t{K[0]} * K[1] * K[2] * Cin * cout_g);
    std::vector<float> b = random_floats(rng, Cout);
    Node n{"TransposeConv3d", "tc", {f32({N, L[0], L[1], L[2], Cin}), f32({K[0], K[1], K[2], Cin, cout_g})},
           {f32({N, O[0], O[1], O[2], Cout})},
           {stride3(S[0], S[1], S[2]), pad3({PB[0], PE[0], PB[1], PE[1], PB[2], PE[2]}),
            u32_tensor_param("dilation", {3}, {Dl[0], Dl[1], Dl[2]}), u32_param("group", group),
            u32_tensor_param("output_padding", {3}, {OP[0], OP[1], OP[2]})}};
    if (with_bias) n.inputs.push_back(f32({Cout}));
    // Scatter: every input voxel adds x * w into the output positions its
    // dilated filter reaches; positions cropped away by padding are dropped.
    const size_t out_count = size_t{N} * O[0] * O[1] * O[2] * Cout;
    std::vector<Expected> want(out_count);
    if (with_bias) {
      for (size_t i = 0; i < out_count; ++i) want[i].add(b[i % Cout]);
    }
    for (uint32_t nn = 0; nn < N; ++nn)
      for (uint32_t id = 0; id < L[0]; ++id)
        for (uint32_t ih = 0; ih < L[1]; ++ih)
          for (uint32_t iw = 0; iw < L[2]; ++iw)
            for (uint32_t ci = 0; ci < Cin; ++ci) {
              const uint32_t g = ci / cin_g;
              const double xv = x[((((size_t{nn} * L[0] + id) * L[1] + ih) * L[2] + iw) * Cin) + ci];
              for (uint32_t kd = 0; kd < K[0]; ++kd)
                for (uint32_t kh = 0; kh < K[1]; ++kh)
                  for (uint32_t kw = 0; kw < K[2]; ++kw) {
                    const int64_t od = int64_t{id} * S[0] - PB[0] + int64_t{kd} * Dl[0];
                    const int64_t oh = int64_t{ih} * S[1] - PB[1] + int64_t{kh} * Dl[1];
                    const int64_t ow = int64_t{iw} * S[2] - PB[2] + int64_t{kw} * Dl[2];
                    if (od < 0 || od >= O[0] || oh < 0 || oh >= O[1] || ow < 0 || ow >= O[2]) continue;
                    for (uint32_t c = 0; c < cout_g; ++c) {
                      const double wv = w[(((size_t{kd} * K[1] + kh) * K[2] + kw) * Cin + ci) * cout_g + c];
                      want[((((size_t{nn} * O[0] + od) * O[1] + oh) * O[2] + ow) * Cout) + g * cout_g + c].add(xv * wv);
                    }
                  }
            }
    std::vector<float> got = with_bias ? n.run({&x, &w, &b}) : n.run({&x, &w});
    expect_near_sums(got, want, "trial " + std::to_string(trial));
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(TransposeConv3d, Rules) {
  // Cin 4, group 2, filter [3,3,3,4,3] -> Cout 6; out = 2*(2-1)+3 = 5 per axis.
  auto node = [] {
    return Node{"TransposeConv3d", "tc", {f32({1, 2, 2, 2, 4}), f32({3, 3, 3, 4, 3})}, {f32({1, 5, 5, 5, 6})},
                {stride3(2, 2, 2), zero_pad3(), u32_param("group", 2)}};
  };
  EXPECT_TRUE(node().prepare().ok());
  Node no_stride = node();
  no_stride.params.erase(no_stride.params.begin());
  EXPECT_STATUS(no_stride.prepare(), StatusCode::kInvalidArgument, "TransposeConv3d 'tc'",
                "mandatory parameter 'stride' is missing");
  Node no_pad = node();
  no_pad.params.erase(no_pad.params.begin() + 1);
  EXPECT_STATUS(no_pad.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'pad_amount' is missing");
  Node stride_dims = node();
  stride_dims.params[0] = u32_tensor_param("stride", {2}, {2, 2});
  EXPECT_STATUS(stride_dims.prepare(), StatusCode::kInvalidArgument, "'stride' dims are [2], expected [3]");
  Node pad_dims = node();
  pad_dims.params[1] = u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0});
  EXPECT_STATUS(pad_dims.prepare(), StatusCode::kInvalidArgument, "'pad_amount' dims are [2,2], expected [3,2]");
  Node zero_stride = node();
  zero_stride.params[0] = stride3(2, 0, 2);
  EXPECT_STATUS(zero_stride.prepare(), StatusCode::kInvalidArgument, "'stride' element 1 is 0");
  Node zero_dil = node();
  zero_dil.params.push_back(u32_tensor_param("dilation", {3}, {1, 1, 0}));
  EXPECT_STATUS(zero_dil.prepare(), StatusCode::kInvalidArgument, "'dilation' element 2 is 0");
  Node dil_dims = node();
  dil_dims.params.push_back(u32_tensor_param("dilation", {2}, {1, 1}));
  EXPECT_STATUS(dil_dims.prepare(), StatusCode::kInvalidArgument, "'dilation' dims are [2], expected [3]");
  Node outpad = node();
  outpad.params.push_back(u32_tensor_param("output_padding", {3}, {0, 2, 0}));
  EXPECT_STATUS(outpad.prepare(), StatusCode::kInvalidArgument,
                "parameter 'output_padding' element 1 is 2, expected < stride 2");
  Node zero_group = node();
  zero_group.params[2] = u32_param("group", 0);
  EXPECT_STATUS(zero_group.prepare(), StatusCode::kInvalidArgument, "parameter 'group' is 0");
  Node grp = node();
  grp.params[2] = u32_param("group", 3);
  EXPECT_STATUS(grp.prepare(), StatusCode::kInvalidArgument, "Cin = 4 not divisible by parameter 'group' = 3");
  Node fdim = node();
  fdim.inputs[1] = f32({3, 3, 3, 2, 3});
  EXPECT_STATUS(fdim.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) dim 3 is 2, expected Cin = 4");
  Node frank = node();
  frank.inputs[1] = f32({3, 3, 4, 3});
  EXPECT_STATUS(frank.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) rank is 4, expected 5");
  Node xrank = node();
  xrank.inputs[0] = f32({1, 2, 2, 4});
  EXPECT_STATUS(xrank.prepare(), StatusCode::kInvalidArgument, "in[0] (input) rank is 4, expected 5");
  Node bias = node();
  bias.inputs.push_back(f32({3}));
  EXPECT_STATUS(bias.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) dim 0 is 3, expected Cout");
  Node bias_rank = node();
  bias_rank.inputs.push_back(f32({1, 6}));
  EXPECT_STATUS(bias_rank.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) rank is 2, expected 1");
  Node out = node();
  out.outputs[0] = f32({1, 5, 5, 5, 3});
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 4 is 3, expected 6");
  Node out_d = node();
  out_d.outputs[0] = f32({1, 4, 5, 5, 6});
  EXPECT_STATUS(out_d.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 4, expected 5");
  Node crop = node();
  crop.params[1] = pad3({3, 3, 0, 0, 0, 0});
  EXPECT_STATUS(crop.prepare(), StatusCode::kInvalidArgument, "output depth", "= -1");
  Node unknown = node();
  unknown.params.push_back(u32_param("rounding_mode", 0));
  EXPECT_STATUS(unknown.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'rounding_mode'");
  Node inputs = node();
  inputs.inputs.pop_back();
  EXPECT_STATUS(inputs.prepare(), StatusCode::kInvalidArgument, "has 1 inputs, expected 2 to 3");
}

}  // namespace
}  // namespace opstest
