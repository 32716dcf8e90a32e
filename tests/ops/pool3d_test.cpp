// PoolMax3d and PoolAvg3d: hand-checked cases, random shapes against a naive
// scan of every window position in padded coordinates (double precision for
// the averages), and every rule broken once.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

// pads = {d_begin, d_end, h_begin, h_end, w_begin, w_end}.
std::vector<Param> pool3d_params(std::vector<uint32_t> f, std::vector<uint32_t> s, std::vector<uint32_t> pads) {
  return {u32_tensor_param("filter_size", {3}, std::move(f)), u32_tensor_param("stride", {3}, std::move(s)),
          u32_tensor_param("pad_amount", {3, 2}, std::move(pads))};
}

// x[d][h][w] = 100*d + 10*h + w (one channel) for a D x H x W cube.
std::vector<float> place_values(uint32_t D, uint32_t H, uint32_t W) {
  std::vector<float> x;
  for (uint32_t d = 0; d < D; ++d)
    for (uint32_t h = 0; h < H; ++h)
      for (uint32_t w = 0; w < W; ++w) x.push_back(float(100 * d + 10 * h + w));
  return x;
}

// Output size along one axis, from the op definition's formula in doubles.
uint32_t pooled_size(uint32_t padded, uint32_t f, uint32_t s, bool ceil_mode) {
  const double q = double(padded - f) / s;
  return uint32_t(ceil_mode ? std::ceil(q) : std::floor(q)) + 1;
}

// A random pool configuration; `ok` false when the filter exceeds the padded
// input along some axis (the caller skips it).
struct PoolCase {
  uint32_t N, C;
  uint32_t in[3], f[3], s[3], pb[3], pe[3], out[3];
  bool ceil_mode;
  bool ok;
};

PoolCase random_case(std::mt19937& rng, bool pad_equal_to_filter) {
  PoolCase c{};
  c.N = rand_int(rng, 1, 2);
  c.C = rand_int(rng, 1, 3);
  c.ceil_mode = rand_int(rng, 0, 1);
  c.ok = true;
  for (int i = 0; i < 3; ++i) {
    c.in[i] = rand_int(rng, 1, 5);
    c.f[i] = rand_int(rng, 1, 3);
    c.s[i] = rand_int(rng, 1, 3);
    // Pads below the window size, except (when asked) a begin pad equal to
    // it on axis 0: that window sees only padding.
    c.pb[i] = pad_equal_to_filter && i == 0 ? c.f[i] : rand_int(rng, 0, c.f[i] - 1);
    c.pe[i] = rand_int(rng, 0, c.f[i] - 1);
    const uint32_t padded = c.pb[i] + c.in[i] + c.pe[i];
    if (c.f[i] > padded) {
      c.ok = false;
      continue;
    }
    c.out[i] = pooled_size(padded, c.f[i], c.s[i], c.ceil_mode);
  }
  return c;
}

Node pool_node(const std::string& type, const PoolCase& c) {
  Node n{type,
         "p",
         {f32({c.N, c.in[0], c.in[1], c.in[2], c.C})},
         {f32({c.N, c.out[0], c.out[1], c.out[2], c.C})},
         pool3d_params({c.f[0], c.f[1], c.f[2]}, {c.s[0], c.s[1], c.s[2]},
                       {c.pb[0], c.pe[0], c.pb[1], c.pe[1], c.pb[2], c.pe[2]})};
  n.params.push_back(u32_param("rounding_mode", c.ceil_mode ? 1 : 0));
  return n;
}

// ---------------- PoolMax3d ----------------

TEST(PoolMax3d, HandComputed) {
  // 1x2x3x3x1 input x = 100*d + 10*h + w, negated so that padding (if it
  // counted as 0) would win. 2x2x2 window, stride (1, 2, 2), pad 1 at the
  // start of H and W only -> Do = 2-2+1 = 1, Ho = Wo = floor((1+3-2)/2)+1 = 2.
  // Window (0, oh, ow) covers d 0..1, h 2*oh-1..2*oh, w 2*ow-1..2*ow; the
  // max of -(100d+10h+w) is at the smallest real d, h, w:
  //   (0,0): d0 h0 w0 -> 0      (0,1): h0 w1 -> -1
  //   (1,0): h1 w0 -> -10       (1,1): h1 w1 -> -11
  std::vector<float> x = place_values(2, 3, 3);
  for (float& v : x) v = -v;
  Node n{"PoolMax3d", "pool1", {f32({1, 2, 3, 3, 1})}, {f32({1, 1, 2, 2, 1})},
         pool3d_params({2, 2, 2}, {1, 2, 2}, {0, 0, 1, 0, 1, 0})};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{0, -1, -10, -11}));

  // CEIL on the positive values, 2x2x2 window, stride 2, no pad, on 3x3x3:
  // out = ceil(1/2)+1 = 2 per axis; the second window along each axis holds
  // only position 2. Max = 100*dmax + 10*hmax + wmax of the window:
  //   (d,h,w) in {0,1}^3 -> dmax 1 or 2, etc.
  std::vector<float> y = place_values(3, 3, 3);
  Node c{"PoolMax3d", "pool2", {f32({1, 3, 3, 3, 1})}, {f32({1, 2, 2, 2, 1})},
         pool3d_params({2, 2, 2}, {2, 2, 2}, {0, 0, 0, 0, 0, 0})};
  c.params.push_back(u32_param("rounding_mode", 1));
  EXPECT_EQ(c.run({&y}), (std::vector<float>{111, 112, 121, 122, 211, 212, 221, 222}));
  // FLOOR for the same: out = floor(1/2)+1 = 1 -> just the first window.
  Node f{"PoolMax3d", "pool3", {f32({1, 3, 3, 3, 1})}, {f32({1, 1, 1, 1, 1})},
         pool3d_params({2, 2, 2}, {2, 2, 2}, {0, 0, 0, 0, 0, 0})};
  EXPECT_EQ(f.run({&y}), (std::vector<float>{111}));
}

TEST(PoolMax3d, NaNPropagates) {
  Node n{"PoolMax3d", "p", {f32({1, 2, 1, 2, 1})}, {f32({1, 1, 1, 1, 1})},
         pool3d_params({2, 1, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0})};
  std::vector<float> x{1, 5, std::nanf(""), 2};
  EXPECT_TRUE(std::isnan(n.run({&x})[0]));
}

TEST(PoolMax3d, RandomAgainstBruteForceScan) {
  std::mt19937 rng(303);
  int compared = 0, refused = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const PoolCase c = random_case(rng, iter % 8 == 0);
    if (!c.ok) continue;
    const uint32_t D = c.in[0], H = c.in[1], W = c.in[2], C = c.C;
    const uint32_t Do = c.out[0], Ho = c.out[1], Wo = c.out[2];
    std::vector<float> x = random_floats(rng, size_t{c.N} * D * H * W * C, -10, 10);
    std::vector<float> want(size_t{c.N} * Do * Ho * Wo * C);
    bool empty_window = false;
    for (uint32_t n = 0; n < c.N; ++n)
      for (uint32_t od = 0; od < Do; ++od)
        for (uint32_t oh = 0; oh < Ho; ++oh)
          for (uint32_t ow = 0; ow < Wo; ++ow)
            for (uint32_t ch = 0; ch < C; ++ch) {
              float best = -std::numeric_limits<float>::infinity();
              bool any = false;
              // Scan the whole window in padded coordinates; padding is skipped.
              for (uint32_t pd = od * c.s[0]; pd < od * c.s[0] + c.f[0]; ++pd)
                for (uint32_t ph = oh * c.s[1]; ph < oh * c.s[1] + c.f[1]; ++ph)
                  for (uint32_t pw = ow * c.s[2]; pw < ow * c.s[2] + c.f[2]; ++pw) {
                    const int64_t id = int64_t(pd) - c.pb[0], ih = int64_t(ph) - c.pb[1], iw = int64_t(pw) - c.pb[2];
                    if (id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                    best = std::max(best, x[(((size_t{n} * D + id) * H + ih) * W + iw) * C + ch]);
                    any = true;
                  }
              empty_window = empty_window || !any;
              want[(((size_t{n} * Do + od) * Ho + oh) * Wo + ow) * C + ch] = best;
            }
    const Node node = pool_node("PoolMax3d", c);
    if (empty_window) {
      EXPECT_STATUS(node.prepare(), StatusCode::kUnsupported, "pools only padding");
      ++refused;
      continue;
    }
    ASSERT_EQ(node.run({&x}), want) << "iter " << iter;
    ++compared;
  }
  std::printf("PoolMax3d random: %d compared, %d refused\n", compared, refused);
  EXPECT_GT(compared, 100);
  EXPECT_GT(refused, 5);  // the all-padding rule was exercised
}

TEST(PoolMax3d, Int8ComparedNatively) {
  // -128 is the smallest int8: a float start value converted badly, or
  // padding counted as 0, would show. 2x1x2 window over a 2x1x2 input.
  Node n{"PoolMax3d", "p", {typed(dtype::kInt8, {1, 2, 1, 2, 1})}, {typed(dtype::kInt8, {1, 1, 1, 1, 1})},
         pool3d_params({2, 1, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0})};
  std::unique_ptr<OpKernel> k;
  Status s = prepare_node(n.desc(), &k);
  ASSERT_TRUE(s.ok()) << s.message;
  std::vector<int8_t> x{-128, -100, -128, -7}, y{0};
  std::vector<const void*> ins{x.data()};
  std::vector<void*> outs{y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y[0], -7);
}

Node max_base() {
  return Node{"PoolMax3d", "pool1", {f32({1, 5, 5, 5, 2})}, {f32({1, 2, 2, 2, 2})},
              pool3d_params({3, 3, 3}, {2, 2, 2}, {0, 0, 0, 0, 0, 0})};
}

TEST(PoolMax3dRules, All) {
  ASSERT_TRUE(max_base().prepare().ok());
  Node n = max_base();
  n.outputs[0] = f32({1, 2, 3, 2, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "PoolMax3d 'pool1': out[0] dim 2 is 3, expected 2");
  n = max_base();
  n.params.push_back(u32_param("rounding_mode", 2));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'rounding_mode' is 2, expected 0 (FLOOR) or 1 (CEIL)");
  n = max_base();
  n.params[0] = u32_tensor_param("filter_size", {3}, {3, 0, 3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'filter_size' element 1 is 0");
  n = max_base();
  n.params[1] = u32_tensor_param("stride", {3}, {2, 2, 0});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'stride' element 2 is 0");
  n = max_base();
  n.params[0] = u32_tensor_param("filter_size", {2}, {3, 3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'filter_size' dims are [2], expected [3]");
  n = max_base();
  n.params[2] = u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'pad_amount' dims are [2,2], expected [3,2]");
  n = max_base();
  n.params.erase(n.params.begin() + 1);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'stride' is missing");
  n = max_base();
  n.params[0] = u32_tensor_param("filter_size", {3}, {6, 3, 3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument,
                "filter depth 6 exceeds padded input depth pad_begin+D+pad_end = 5");
  n = max_base();
  n.inputs[0] = f32({1, 5, 5, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input) rank is 4, expected 5");
  // Pad 3 at the start of W with a 3-wide window: output column 0 sees only
  // padding. Wo = (3+5-3)/2+1 = 3.
  n = max_base();
  n.params[2] = u32_tensor_param("pad_amount", {3, 2}, {0, 0, 0, 0, 3, 0});
  n.outputs[0] = f32({1, 2, 2, 3, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "output column 0 pools only padding");
  n.params.push_back(u32_tensor_param("dilation", {3}, {1, 1, 1}));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'dilation'");
  // Mixed integer types in and out are refused (one plain integer type only).
  n = max_base();
  n.inputs[0] = typed(dtype::kInt8, {1, 5, 5, 5, 2});
  n.outputs[0] = typed(dtype::kInt16, {1, 2, 2, 2, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] data type is INT_16 but in[0] is INT_8");
}

// ---------------- PoolAvg3d ----------------

TEST(PoolAvg3d, HandComputedPadCounting) {
  // Input 1x2x2x2x1, x = 100d + 10h + w: 0 1 10 11 100 101 110 111.
  // 2x2x2 window, stride 1, pad 1 at the start of D only:
  // Do = (1+2-2)/1+1 = 2, Ho = Wo = (2-2)/1+1 = 1.
  //   od=0 covers d = -1 (pad), 0: real values 0 1 10 11, sum 22
  //        -> 22/4 = 5.5        | counting pad: 22/8 = 2.75
  //   od=1 covers d = 0, 1: all 8 values, sum 444 -> 55.5 | 55.5
  std::vector<float> x = place_values(2, 2, 2);
  Node n{"PoolAvg3d", "avg", {f32({1, 2, 2, 2, 1})}, {f32({1, 2, 1, 1, 1})},
         pool3d_params({2, 2, 2}, {1, 1, 1}, {1, 0, 0, 0, 0, 0})};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{5.5f, 55.5f}));
  n.params.push_back(bool_param("count_pad_for_edges", true));
  EXPECT_EQ(n.run({&x}), (std::vector<float>{2.75f, 55.5f}));
}

TEST(PoolAvg3d, HandComputedCeil) {
  // 2x2x2 window, stride 2, no pad, CEIL on 3x1x1: Do = ceil(1/2)+1 = 2; the
  // last window runs past the input (d = 2, 3) and position 3 counts in
  // neither mode. x = 4, 8, 30 along D:
  //   od=0: (4+8)/2 = 6     od=1: 30/1 = 30
  std::vector<float> x{4, 8, 30};
  for (bool count_pad : {false, true}) {
    Node n{"PoolAvg3d", "avg", {f32({1, 3, 1, 1, 1})}, {f32({1, 2, 1, 1, 1})},
           pool3d_params({2, 1, 1}, {2, 1, 1}, {0, 0, 0, 0, 0, 0})};
    n.params.push_back(u32_param("rounding_mode", 1));
    n.params.push_back(bool_param("count_pad_for_edges", count_pad));
    EXPECT_EQ(n.run({&x}), (std::vector<float>{6, 30})) << count_pad;
  }
}

TEST(PoolAvg3d, RandomAgainstNaive) {
  std::mt19937 rng(304);
  int checked = 0, refused = 0;
  for (int iter = 0; iter < 120; ++iter) {
    const PoolCase c = random_case(rng, iter % 10 == 0);
    if (!c.ok) continue;
    const bool count_pad = rand_int(rng, 0, 1);
    const uint32_t D = c.in[0], H = c.in[1], W = c.in[2], C = c.C;
    const uint32_t Do = c.out[0], Ho = c.out[1], Wo = c.out[2];
    std::vector<float> x = random_floats(rng, size_t{c.N} * D * H * W * C);
    // Naive: visit every window position, classify it as input, padding or
    // beyond the padded input.
    std::vector<Expected> want(size_t{c.N} * Do * Ho * Wo * C);
    bool empty = false;
    const int64_t L[3] = {D, H, W};
    for (uint32_t n = 0; n < c.N; ++n)
      for (uint32_t od = 0; od < Do; ++od)
        for (uint32_t oh = 0; oh < Ho; ++oh)
          for (uint32_t ow = 0; ow < Wo; ++ow)
            for (uint32_t ch = 0; ch < C; ++ch) {
              double sum = 0.0;
              int divisor = 0;
              const uint32_t o[3] = {od, oh, ow};
              for (uint32_t a = 0; a < c.f[0]; ++a)
                for (uint32_t b = 0; b < c.f[1]; ++b)
                  for (uint32_t e = 0; e < c.f[2]; ++e) {
                    const uint32_t t[3] = {a, b, e};
                    int64_t p[3];
                    bool in_input = true, in_padded = true;
                    for (int i = 0; i < 3; ++i) {
                      p[i] = int64_t{o[i]} * c.s[i] + t[i] - c.pb[i];
                      in_input = in_input && p[i] >= 0 && p[i] < L[i];
                      in_padded = in_padded && p[i] >= -int64_t{c.pb[i]} && p[i] < L[i] + c.pe[i];
                    }
                    if (in_input) sum += x[(((size_t{n} * D + p[0]) * H + p[1]) * W + p[2]) * C + ch];
                    if (count_pad ? in_padded : in_input) ++divisor;
                  }
              if (divisor == 0) {
                empty = true;
                continue;
              }
              Expected& ex = want[(((size_t{n} * Do + od) * Ho + oh) * Wo + ow) * C + ch];
              ex.value = sum / divisor;
              ex.abs_sum = std::fabs(sum / divisor) + 1.0 / divisor;
              ex.terms = size_t{c.f[0]} * c.f[1] * c.f[2] + 2;
            }
    Node node = pool_node("PoolAvg3d", c);
    node.params.push_back(bool_param("count_pad_for_edges", count_pad));
    if (empty) {
      EXPECT_STATUS(node.prepare(), StatusCode::kUnsupported, "averages no");
      ++refused;
      continue;
    }
    expect_near_sums(node.run({&x}), want, "iter " + std::to_string(iter));
    ++checked;
  }
  std::printf("PoolAvg3d random: %d compared, %d refused\n", checked, refused);
  EXPECT_GE(checked, 60);
  EXPECT_GE(refused, 3);
}

TEST(PoolAvg3d, Rules) {
  auto node = [] {
    return Node{"PoolAvg3d", "avg", {f32({1, 4, 4, 4, 1})}, {f32({1, 2, 2, 2, 1})},
                pool3d_params({2, 2, 2}, {2, 2, 2}, {0, 0, 0, 0, 0, 0})};
  };
  EXPECT_TRUE(node().prepare().ok());
  const char* names[] = {"filter_size", "stride", "pad_amount"};
  for (int i = 0; i < 3; ++i) {
    Node n = node();
    n.params.erase(n.params.begin() + i);
    const std::string want = std::string("mandatory parameter '") + names[i] + "' is missing";
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, want.c_str());
  }
  Node rounding = node();
  rounding.params.push_back(u32_param("rounding_mode", 2));
  EXPECT_STATUS(rounding.prepare(), StatusCode::kInvalidArgument, "PoolAvg3d 'avg'", "parameter 'rounding_mode' is 2");
  Node big = node();
  big.params[0] = u32_tensor_param("filter_size", {3}, {2, 5, 2});
  EXPECT_STATUS(big.prepare(), StatusCode::kInvalidArgument,
                "filter height 5 exceeds padded input height pad_begin+H+pad_end = 4");
  Node zero = node();
  zero.params[0] = u32_tensor_param("filter_size", {3}, {0, 2, 2});
  EXPECT_STATUS(zero.prepare(), StatusCode::kInvalidArgument, "'filter_size' element 0 is 0");
  Node stride = node();
  stride.params[1] = u32_tensor_param("stride", {3}, {2, 0, 2});
  EXPECT_STATUS(stride.prepare(), StatusCode::kInvalidArgument, "'stride' element 1 is 0");
  Node pad = node();
  pad.params[2] = u32_tensor_param("pad_amount", {3}, {0, 0, 0});
  EXPECT_STATUS(pad.prepare(), StatusCode::kInvalidArgument, "'pad_amount' dims are [3], expected [3,2]");
  Node out = node();
  out.outputs[0] = f32({1, 2, 2, 3, 1});
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 3 is 3, expected 2");
  Node rank = node();
  rank.inputs[0] = f32({1, 4, 4, 4, 1, 1});
  EXPECT_STATUS(rank.prepare(), StatusCode::kInvalidArgument, "in[0] (input) rank is 6, expected 5");
  Node unknown = node();
  unknown.params.push_back(u32_param("dilation", 1));
  EXPECT_STATUS(unknown.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'dilation'");
  Node ints = node();
  ints.inputs[0] = typed(dtype::kInt32, {1, 4, 4, 4, 1});
  ints.outputs[0] = typed(dtype::kInt32, {1, 2, 2, 2, 1});
  EXPECT_STATUS(ints.prepare(), StatusCode::kUnsupported, "only FLOAT_32");
  // A window of only padding (2-deep window, pad 2 at the start of D, stride
  // 2): with padding not counted it averages nothing; counting it is fine.
  Node pad_only{"PoolAvg3d", "avg", {f32({1, 2, 1, 1, 1})}, {f32({1, 2, 1, 1, 1})},
                pool3d_params({2, 1, 1}, {2, 1, 1}, {2, 0, 0, 0, 0, 0})};
  EXPECT_STATUS(pad_only.prepare(), StatusCode::kUnsupported, "output depth slice 0 averages no input positions");
  pad_only.params.push_back(bool_param("count_pad_for_edges", true));
  EXPECT_TRUE(pad_only.prepare().ok());
}

TEST(PoolAvg3d, QuantizedThroughTypeAdapter) {
  // UFIXED_POINT_8, scale 0.5, offset 0 in and out: q 2,4,6,9 are 1,2,3,4.5;
  // their mean 2.625 quantizes to round_half_even(5.25) = 5.
  TensorDesc in = typed(dtype::kUfixed8, {1, 2, 1, 2, 1});
  in.quant.present = true;
  in.quant.scale = 0.5f;
  TensorDesc out = in;
  out.dims = {1, 1, 1, 1, 1};
  Node n{"PoolAvg3d", "avg", {in}, {out}, pool3d_params({2, 1, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0})};
  std::unique_ptr<OpKernel> k;
  Status s = prepare_node(n.desc(), &k);
  ASSERT_TRUE(s.ok()) << s.message;
  std::vector<uint8_t> x{2, 4, 6, 9}, y{0};
  std::vector<const void*> ins{x.data()};
  std::vector<void*> outs{y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y[0], 5);
}

}  // namespace
}  // namespace opstest
