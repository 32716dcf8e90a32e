// Conv1d, DepthWiseConv1d, TransposeConv1d (run as their 2-D ops with
// H = 1) and Conv3d: hand-worked cases, random shapes against naive
// double-precision formulas written here, a per-channel quantized filter
// through the type adapter, and every rule broken once.
#include <algorithm>

#include "test_util.h"

namespace opstest {
namespace {

Param pad2(uint32_t b, uint32_t e) { return u32_tensor_param("pad_amount", {2}, {b, e}); }

// ---------------------------------------------------------------- Conv1d

TEST(Conv1d, HandComputed) {
  // x = 1 2 3 4, filter taps (1, 10), bias 0.5: y[i] = x[i] + 10 x[i+1] + 0.5.
  std::vector<float> x{1, 2, 3, 4}, w{1, 10}, b{0.5f};
  Node n{"Conv1d", "c", {f32({1, 4, 1}), f32({2, 1, 1}), f32({1})}, {f32({1, 3, 1})},
         {u32_param("stride", 1), pad2(0, 0)}};
  EXPECT_EQ(n.run({&x, &w, &b}), (std::vector<float>{21.5f, 32.5f, 43.5f}));
  // Pad 1 on both sides, stride 2: the padded row 0 1 2 3 4 0 is read at
  // 0, 2, 4: (0 + 10*1), (2 + 10*3), (4 + 10*0); Wo = (6 - 2)/2 + 1 = 3.
  Node s{"Conv1d", "c", {f32({1, 4, 1}), f32({2, 1, 1})}, {f32({1, 3, 1})}, {u32_param("stride", 2), pad2(1, 1)}};
  EXPECT_EQ(s.run({&x, &w}), (std::vector<float>{10, 32, 4}));
  // Dilation 2 (scalar) with no other params (all default): taps 2 apart,
  // y[i] = x[i] + 10 x[i+2].
  Node d{"Conv1d", "c", {f32({1, 4, 1}), f32({2, 1, 1})}, {f32({1, 2, 1})}, {u32_param("dilation", 2)}};
  EXPECT_EQ(d.run({&x, &w}), (std::vector<float>{31, 42}));
  // The same values as one-element tensors mean the same.
  Node t{"Conv1d", "c", {f32({1, 4, 1}), f32({2, 1, 1})}, {f32({1, 2, 1})},
         {u32_tensor_param("dilation", {1}, {2}), u32_tensor_param("stride", {1}, {1}),
          u32_tensor_param("pad_amount", {1, 2}, {0, 0})}};
  EXPECT_EQ(t.run({&x, &w}), (std::vector<float>{31, 42}));
}

TEST(Conv1d, GroupsAndChannels) {
  // Cin = 2, group 2, Cout = 2: each output channel sees its own input
  // channel only. x[w][c] = (1,100), (2,200); filter [1,1,2] = (3, 5):
  // y[w] = (3 * x[w][0], 5 * x[w][1]).
  std::vector<float> x{1, 100, 2, 200}, w{3, 5};
  Node n{"Conv1d", "c", {f32({1, 2, 2}), f32({1, 1, 2})}, {f32({1, 2, 2})},
         {u32_param("stride", 1), pad2(0, 0), u32_param("group", 2)}};
  EXPECT_EQ(n.run({&x, &w}), (std::vector<float>{3, 500, 6, 1000}));
}

struct Conv1dCase {
  uint32_t N, W, Cin, Cout, K, S, D, PB, PE, group, Wo;
  bool bias;
};

std::vector<Expected> conv1d_formula(const Conv1dCase& c, const std::vector<float>& x, const std::vector<float>& w,
                                     const std::vector<float>& b) {
  const uint32_t cin_g = c.Cin / c.group, cout_g = c.Cout / c.group;
  std::vector<Expected> y(size_t{c.N} * c.Wo * c.Cout);
  for (uint32_t n = 0; n < c.N; ++n)
    for (uint32_t o = 0; o < c.Wo; ++o)
      for (uint32_t co = 0; co < c.Cout; ++co) {
        Expected& e = y[(size_t{n} * c.Wo + o) * c.Cout + co];
        if (c.bias) e.add(b[co]);
        const uint32_t g = co / cout_g;
        for (uint32_t k = 0; k < c.K; ++k) {
          const int64_t i = int64_t{o} * c.S - c.PB + int64_t{k} * c.D;
          if (i < 0 || i >= c.W) continue;
          for (uint32_t ci = 0; ci < cin_g; ++ci) {
            const double xv = x[(size_t{n} * c.W + i) * c.Cin + g * cin_g + ci];
            e.add(xv * w[(size_t{k} * cin_g + ci) * c.Cout + co]);
          }
        }
      }
  return y;
}

TEST(Conv1d, RandomAgainstFormula) {
  std::mt19937 rng(101);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    Conv1dCase c{};
    c.group = rand_int(rng, 1, 3);
    c.N = rand_int(rng, 1, 2);
    c.Cin = c.group * rand_int(rng, 1, 3);
    c.Cout = c.group * rand_int(rng, 1, 3);
    c.W = rand_int(rng, 1, 9);
    c.K = rand_int(rng, 1, 4);
    c.S = rand_int(rng, 1, 3);
    c.D = rand_int(rng, 1, 3);
    c.PB = rand_int(rng, 0, 2);
    c.PE = rand_int(rng, 0, 2);
    c.bias = trial % 2 == 0;
    const int64_t eff = int64_t{c.K - 1} * c.D + 1, padded = int64_t{c.PB} + c.W + c.PE;
    if (eff > padded) continue;
    c.Wo = static_cast<uint32_t>((padded - eff) / c.S + 1);
    std::vector<float> x = random_floats(rng, size_t{c.N} * c.W * c.Cin);
    std::vector<float> w = random_floats(rng, size_t{c.K} * (c.Cin / c.group) * c.Cout);
    std::vector<float> b = random_floats(rng, c.Cout);
    Node n{"Conv1d", "c", {f32({c.N, c.W, c.Cin}), f32({c.K, c.Cin / c.group, c.Cout})}, {f32({c.N, c.Wo, c.Cout})},
           {u32_param("stride", c.S), pad2(c.PB, c.PE), u32_param("dilation", c.D), u32_param("group", c.group)}};
    if (c.bias) n.inputs.push_back(f32({c.Cout}));
    expect_near_sums(n.run({&x, &w, c.bias ? &b : nullptr}), conv1d_formula(c, x, w, b),
                     "trial " + std::to_string(trial));
    ++checked;
  }
  EXPECT_GT(checked, 30);
}

// Per-channel int8 filter (axis 2, the output channels), uint8 input, float
// output: the type adapter dequantizes in the 1-D shapes before the 2-D
// kernel runs, so each output channel must use its own scale.
TEST(Conv1d, PerChannelQuantizedFilterThroughAdapter) {
  TensorDesc x = typed(dtype::kUfixed8, {1, 3, 1});
  x.quant = Quant::per_tensor(0.5f, -10);  // real = (q - 10) * 0.5
  TensorDesc w = typed(dtype::kSfixed8, {2, 1, 2});
  w.quant.present = true;
  w.quant.axis = 2;
  w.quant.scales = {0.25f, 2.0f};
  w.quant.offsets = {0, 0};
  const std::vector<uint8_t> xq{12, 14, 6};      // real 1, 2, -2
  const std::vector<int8_t> wq{4, 1, -8, 3};      // w[k][0][co]: k0 = (4, 1), k1 = (-8, 3)
  const double xr[] = {1, 2, -2};
  const double wr[2][2] = {{4 * 0.25, 1 * 2.0}, {-8 * 0.25, 3 * 2.0}};  // [k][co]
  Node n{"Conv1d", "q", {x, w}, {f32({1, 2, 2})}, {u32_param("stride", 1), pad2(0, 0)}};
  std::unique_ptr<OpKernel> kernel;
  Status s = prepare_node(n.desc(), &kernel);
  ASSERT_TRUE(s.ok()) << s.message;
  std::vector<uint8_t> ws(kernel->workspace_bytes() + 64);
  void* aligned = ws.data() + ((64 - reinterpret_cast<uintptr_t>(ws.data()) % 64) % 64);
  kernel->set_workspace(kernel->workspace_bytes() ? aligned : nullptr);
  std::vector<float> y(4, std::nanf(""));
  const void* ins[] = {xq.data(), wq.data()};
  void* outs[] = {y.data()};
  kernel->run(ins, outs);
  for (uint32_t o = 0; o < 2; ++o)
    for (uint32_t co = 0; co < 2; ++co) {
      const double want = xr[o] * wr[0][co] + xr[o + 1] * wr[1][co];
      EXPECT_NEAR(y[o * 2 + co], want, 1e-6) << "o " << o << " co " << co;
    }
}

TEST(Conv1d, Refusals) {
  const Node base{"Conv1d", "c", {f32({1, 4, 2}), f32({2, 2, 4}), f32({4})}, {f32({1, 3, 4})},
                  {u32_param("stride", 1), pad2(0, 0)}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.inputs[0].dims = {1, 1, 4, 2};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input)", "rank");
  n = base;
  n.inputs[1].dims = {2, 1, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) dim 1 is 1", "Cin/group = 2");
  n = base;
  n.params.push_back(u32_param("group", 3));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "Cin = 2 not divisible by parameter 'group' = 3");
  n = base;
  n.inputs[1].dims = {2, 1, 3};
  n.params.push_back(u32_param("group", 2));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "Cout = dim 2 = 3 not divisible");
  n = base;
  n.params[0] = u32_param("stride", 0);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'stride' is 0");
  n = base;
  n.params.push_back(u32_param("dilation", 0));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'dilation' is 0");
  n = base;
  n.params.push_back(u32_param("group", 0));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'group' is 0");
  n = base;
  n.params[1] = u32_tensor_param("pad_amount", {3}, {0, 0, 0});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "pad_amount");
  n = base;
  n.params[0] = u32_tensor_param("stride", {2}, {1, 1});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "stride");
  n = base;
  n.params.push_back(u32_param("output_padding", 0));  // TransposeConv1d's, not Conv1d's
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'output_padding'");
  n = base;
  n.outputs[0].dims = {1, 4, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[1,3,4]");
  n = base;
  n.outputs[0].dims = {1, 1, 3, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "rank");
  n = base;
  n.inputs[1].dims = {5, 2, 4};
  n.params.push_back(u32_param("dilation", 1));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "dilated filter width", "= 5", "= 4");
  n = base;
  n.inputs[2].dims = {3};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) dim 0 is 3");
  n = base;
  n.inputs.resize(1);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "input");
  n = base;
  n.inputs[0].dtype = dtype::kInt32;
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[0]", "INT_32");
}

// ------------------------------------------------------- DepthWiseConv1d

TEST(DepthWiseConv1d, HandComputedMultiplier) {
  // Cin 2, multiplier 2 (Cout 4): output channel co filters input channel
  // co / 2 alone. x[w] = (1, 10), (2, 20); filter [1,1,4] = (1, 2, 3, 4):
  // y[w] = (x0, 2 x0, 3 x1, 4 x1); bias (0.5, 0, 0, -1).
  std::vector<float> x{1, 10, 2, 20}, w{1, 2, 3, 4}, b{0.5f, 0, 0, -1};
  Node n{"DepthWiseConv1d", "d", {f32({1, 2, 2}), f32({1, 1, 4}), f32({4})}, {f32({1, 2, 4})},
         {u32_param("stride", 1), pad2(0, 0)}};
  EXPECT_EQ(n.run({&x, &w, &b}), (std::vector<float>{1.5f, 2, 30, 39, 2.5f, 4, 60, 79}));
  // Two taps, pad 1 at the end, stride 1, one channel: y[i] = x[i] + 10 x[i+1].
  std::vector<float> x1{1, 2, 3}, w1{1, 10};
  Node p{"DepthWiseConv1d", "d", {f32({1, 3, 1}), f32({2, 1, 1})}, {f32({1, 3, 1})},
         {u32_param("stride", 1), pad2(0, 1)}};
  EXPECT_EQ(p.run({&x1, &w1}), (std::vector<float>{21, 32, 3}));
}

TEST(DepthWiseConv1d, RandomAgainstFormula) {
  std::mt19937 rng(202);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Conv1dCase c{};
    c.N = rand_int(rng, 1, 2);
    c.Cin = rand_int(rng, 1, 3);
    c.group = c.Cin;  // the formula's groups: one input channel each
    c.Cout = c.Cin * rand_int(rng, 1, 3);
    c.W = rand_int(rng, 1, 8);
    c.K = rand_int(rng, 1, 3);
    c.S = rand_int(rng, 1, 2);
    c.D = rand_int(rng, 1, 2);
    c.PB = rand_int(rng, 0, 1);
    c.PE = rand_int(rng, 0, 1);
    c.bias = trial % 2 == 1;
    const int64_t eff = int64_t{c.K - 1} * c.D + 1, padded = int64_t{c.PB} + c.W + c.PE;
    if (eff > padded) continue;
    c.Wo = static_cast<uint32_t>((padded - eff) / c.S + 1);
    std::vector<float> x = random_floats(rng, size_t{c.N} * c.W * c.Cin);
    std::vector<float> w = random_floats(rng, size_t{c.K} * c.Cout);
    std::vector<float> b = random_floats(rng, c.Cout);
    Node n{"DepthWiseConv1d", "d", {f32({c.N, c.W, c.Cin}), f32({c.K, 1, c.Cout})}, {f32({c.N, c.Wo, c.Cout})},
           {u32_param("stride", c.S), pad2(c.PB, c.PE), u32_param("dilation", c.D)}};
    if (c.bias) n.inputs.push_back(f32({c.Cout}));
    expect_near_sums(n.run({&x, &w, c.bias ? &b : nullptr}), conv1d_formula(c, x, w, b),
                     "trial " + std::to_string(trial));
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(DepthWiseConv1d, Refusals) {
  const Node base{"DepthWiseConv1d", "d", {f32({1, 4, 2}), f32({2, 1, 4})}, {f32({1, 3, 4})},
                  {u32_param("stride", 1), pad2(0, 0)}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.inputs[1].dims = {2, 2, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) dim 1 is 2, expected 1");
  n = base;
  n.inputs[1].dims = {2, 1, 3};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "Cout = dim 2 = 3 is not a multiple", "Cin = 2");
  n = base;
  n.params.push_back(u32_param("group", 2));  // DepthWiseConv1d has no group
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'group'");
  n = base;
  n.outputs[0].dims = {1, 3, 2};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[1,3,4]");
}

// ------------------------------------------------------- TransposeConv1d

TEST(TransposeConv1d, HandComputed) {
  // x = 1 2, filter taps (1, 10), stride 2: each input stamps the filter
  // scaled by itself into its own block; Wo = 2*(2-1) + 2 = 4 -> 1 10 2 20.
  std::vector<float> x{1, 2}, w{1, 10}, b{0.5f};
  Node n{"TransposeConv1d", "t", {f32({1, 2, 1}), f32({2, 1, 1})}, {f32({1, 4, 1})},
         {u32_param("stride", 2), pad2(0, 0)}};
  EXPECT_EQ(n.run({&x, &w}), (std::vector<float>{1, 10, 2, 20}));
  // Stride 1: the stamps overlap, 1 (10+2) 20; with bias 0.5 and
  // output_padding 0; cropping pad (1, 0) drops the first position.
  Node o{"TransposeConv1d", "t", {f32({1, 2, 1}), f32({2, 1, 1}), f32({1})}, {f32({1, 2, 1})},
         {u32_param("stride", 1), pad2(1, 0)}};
  EXPECT_EQ(o.run({&x, &w, &b}), (std::vector<float>{12.5f, 20.5f}));
  // output_padding 1 with stride 2: one more position no input reaches.
  Node op{"TransposeConv1d", "t", {f32({1, 2, 1}), f32({2, 1, 1})}, {f32({1, 5, 1})},
          {u32_param("stride", 2), pad2(0, 0), u32_param("output_padding", 1)}};
  EXPECT_EQ(op.run({&x, &w}), (std::vector<float>{1, 10, 2, 20, 0}));
}

TEST(TransposeConv1d, RandomAgainstScatter) {
  std::mt19937 rng(303);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t group = rand_int(rng, 1, 2), N = rand_int(rng, 1, 2);
    const uint32_t cin_g = rand_int(rng, 1, 2), cout_g = rand_int(rng, 1, 3);
    const uint32_t Cin = cin_g * group, Cout = cout_g * group;
    const uint32_t W = rand_int(rng, 1, 5), K = rand_int(rng, 1, 3), S = rand_int(rng, 1, 3);
    const uint32_t PB = rand_int(rng, 0, 2), PE = rand_int(rng, 0, 2), OP = rand_int(rng, 0, S - 1);
    const int64_t wo = int64_t{S} * (W - 1) + K - PB - PE + OP;
    if (wo < 1) continue;
    const uint32_t Wo = static_cast<uint32_t>(wo);
    std::vector<float> x = random_floats(rng, size_t{N} * W * Cin);
    std::vector<float> w = random_floats(rng, size_t{K} * Cin * cout_g);
    // Scatter: input position i, tap k lands at output i*S + k - PB.
    std::vector<Expected> want(size_t{N} * Wo * Cout);
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t i = 0; i < W; ++i)
        for (uint32_t k = 0; k < K; ++k) {
          const int64_t o = int64_t{i} * S + k - PB;
          if (o < 0 || o >= Wo) continue;
          for (uint32_t ci = 0; ci < Cin; ++ci) {
            const uint32_t g = ci / cin_g;
            for (uint32_t c = 0; c < cout_g; ++c)
              want[(size_t{n} * Wo + o) * Cout + g * cout_g + c].add(
                  double{x[(size_t{n} * W + i) * Cin + ci]} * w[(size_t{k} * Cin + ci) * cout_g + c]);
          }
        }
    Node t{"TransposeConv1d", "t", {f32({N, W, Cin}), f32({K, Cin, cout_g})}, {f32({N, Wo, Cout})},
           {u32_param("stride", S), pad2(PB, PE), u32_param("output_padding", OP), u32_param("group", group)}};
    expect_near_sums(t.run({&x, &w}), want, "trial " + std::to_string(trial));
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(TransposeConv1d, Refusals) {
  const Node base{"TransposeConv1d", "t", {f32({1, 2, 2}), f32({2, 2, 3})}, {f32({1, 4, 3})},
                  {u32_param("stride", 2), pad2(0, 0)}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.params.push_back(u32_param("output_padding", 2));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'output_padding' is 2, expected < stride 2");
  n = base;
  n.inputs[1].dims = {2, 1, 3};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) dim 1 is 1, expected Cin = 2");
  n = base;
  n.params.push_back(u32_param("dilation", 1));  // not a TransposeConv1d parameter
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'dilation'");
  n = base;
  n.params[1] = pad2(3, 2);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "output width", "= -1");
  n = base;
  n.params.push_back(u32_param("group", 2));  // Cout = 2 * 3 = 6
  n.inputs[1].dims = {2, 2, 3};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[1,4,6]");
}

// ---------------------------------------------------------------- Conv3d

Param stride3(uint32_t d, uint32_t h, uint32_t w) { return u32_tensor_param("stride", {3}, {d, h, w}); }
Param pad3(std::vector<uint32_t> v) { return u32_tensor_param("pad_amount", {3, 2}, std::move(v)); }

TEST(Conv3d, HandComputed) {
  // A 2x2x2 input holding 1..8 (x[d][h][w] = 1 + 4d + 2h + w) and a 2x2x2
  // filter of ones: the single output is the sum 36; bias 0.5.
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8}, ones(8, 1.0f), b{0.5f};
  Node n{"Conv3d", "c", {f32({1, 2, 2, 2, 1}), f32({2, 2, 2, 1, 1}), f32({1})}, {f32({1, 1, 1, 1, 1})},
         {stride3(1, 1, 1), pad3({0, 0, 0, 0, 0, 0})}};
  EXPECT_EQ(n.run({&x, &ones, &b}), (std::vector<float>{36.5f}));
  // Filter 2x1x1 (taps 1, 10) along D only: y[h][w] = x[0][h][w] + 10 x[1][h][w].
  std::vector<float> wd{1, 10};
  Node d{"Conv3d", "c", {f32({1, 2, 2, 2, 1}), f32({2, 1, 1, 1, 1})}, {f32({1, 1, 2, 2, 1})},
         {stride3(1, 1, 1), pad3({0, 0, 0, 0, 0, 0})}};
  EXPECT_EQ(d.run({&x, &wd}), (std::vector<float>{51, 62, 73, 84}));
  // Pad 1 before D, stride 2 along D: D windows at -1 (reads only x[0],
  // tap 1) -> 10 x[0][h][w]; Do = (1+2+0-2)/2 + 1 = 1.
  Node p{"Conv3d", "c", {f32({1, 2, 2, 2, 1}), f32({2, 1, 1, 1, 1})}, {f32({1, 1, 2, 2, 1})},
         {stride3(2, 1, 1), pad3({1, 0, 0, 0, 0, 0})}};
  EXPECT_EQ(p.run({&x, &wd}), (std::vector<float>{10, 20, 30, 40}));
  // Dilation 2 along W on a 1x1x3 input: taps x[0] and x[2].
  std::vector<float> x3{1, 2, 3};
  Node dl{"Conv3d", "c", {f32({1, 1, 1, 3, 1}), f32({1, 1, 2, 1, 1})}, {f32({1, 1, 1, 1, 1})},
          {stride3(1, 1, 1), pad3({0, 0, 0, 0, 0, 0}), u32_tensor_param("dilation", {3}, {1, 1, 2})}};
  EXPECT_EQ(dl.run({&x3, &wd}), (std::vector<float>{31}));
}

TEST(Conv3d, RandomAgainstFormula) {
  std::mt19937 rng(404);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t group = rand_int(rng, 1, 2), N = rand_int(rng, 1, 2);
    const uint32_t cin_g = rand_int(rng, 1, 2), cout_g = rand_int(rng, 1, 2);
    const uint32_t Cin = cin_g * group, Cout = cout_g * group;
    uint32_t L[3], K[3], S[3], Dl[3], PB[3], PE[3], O[3];
    bool ok = true;
    for (int i = 0; i < 3; ++i) {
      L[i] = rand_int(rng, 1, 4);
      K[i] = rand_int(rng, 1, 3);
      S[i] = rand_int(rng, 1, 2);
      Dl[i] = rand_int(rng, 1, 2);
      PB[i] = rand_int(rng, 0, 1);
      PE[i] = rand_int(rng, 0, 1);
      const int64_t eff = int64_t{K[i] - 1} * Dl[i] + 1, padded = int64_t{PB[i]} + L[i] + PE[i];
      if (eff > padded) ok = false;
      O[i] = ok ? static_cast<uint32_t>((padded - eff) / S[i] + 1) : 0;
    }
    if (!ok) continue;
    const bool with_bias = trial % 2 == 0;
    std::vector<float> x = random_floats(rng, size_t{N} * L[0] * L[1] * L[2] * Cin);
    std::vector<float> w = random_floats(rng, size_t{K[0]} * K[1] * K[2] * cin_g * Cout);
    std::vector<float> b = random_floats(rng, Cout);
    std::vector<Expected> want(size_t{N} * O[0] * O[1] * O[2] * Cout);
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t od = 0; od < O[0]; ++od)
        for (uint32_t oh = 0; oh < O[1]; ++oh)
          for (uint32_t ow = 0; ow < O[2]; ++ow)
            for (uint32_t co = 0; co < Cout; ++co) {
              Expected& e = want[((((size_t{n} * O[0] + od) * O[1] + oh) * O[2] + ow) * Cout) + co];
              if (with_bias) e.add(b[co]);
              const uint32_t g = co / cout_g;
              for (uint32_t kd = 0; kd < K[0]; ++kd)
                for (uint32_t kh = 0; kh < K[1]; ++kh)
                  for (uint32_t kw = 0; kw < K[2]; ++kw) {
                    const int64_t id = int64_t{od} * S[0] - PB[0] + int64_t{kd} * Dl[0];
                    const int64_t ih = int64_t{oh} * S[1] - PB[1] + int64_t{kh} * Dl[1];
                    const int64_t iw = int64_t{ow} * S[2] - PB[2] + int64_t{kw} * Dl[2];
                    if (id < 0 || id >= L[0] || ih < 0 || ih >= L[1] || iw < 0 || iw >= L[2]) continue;
                    for (uint32_t ci = 0; ci < cin_g; ++ci) {
                      const size_t xi = (((size_t{n} * L[0] + id) * L[1] + ih) * L[2] + iw) * Cin + g * cin_g + ci;
                      const size_t wi = ((((size_t{kd} * K[1] + kh) * K[2] + kw) * cin_g + ci) * Cout) + co;
                      e.add(double{x[xi]} * w[wi]);
                    }
                  }
            }
    Node c{"Conv3d", "c", {f32({N, L[0], L[1], L[2], Cin}), f32({K[0], K[1], K[2], cin_g, Cout})},
           {f32({N, O[0], O[1], O[2], Cout})},
           {stride3(S[0], S[1], S[2]), pad3({PB[0], PE[0], PB[1], PE[1], PB[2], PE[2]}),
            u32_tensor_param("dilation", {3}, {Dl[0], Dl[1], Dl[2]}), u32_param("group", group)}};
    if (with_bias) c.inputs.push_back(f32({Cout}));
    expect_near_sums(c.run({&x, &w, with_bias ? &b : nullptr}), want, "trial " + std::to_string(trial));
    ++checked;
  }
  EXPECT_GT(checked, 15);
}

TEST(Conv3d, Refusals) {
  const Node base{"Conv3d", "c", {f32({1, 2, 3, 3, 2}), f32({2, 2, 2, 2, 4})}, {f32({1, 1, 2, 2, 4})},
                  {stride3(1, 1, 1), pad3({0, 0, 0, 0, 0, 0})}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.params.erase(n.params.begin());
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "stride");
  n = base;
  n.params[0] = stride3(1, 0, 1);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'stride' element 1 is 0");
  n = base;
  n.params.push_back(u32_tensor_param("dilation", {3}, {1, 1, 0}));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'dilation' element 2 is 0");
  n = base;
  n.params.push_back(u32_param("group", 0));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'group' is 0");
  n = base;
  n.params.push_back(u32_param("group", 4));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "Cin = 2 not divisible by parameter 'group' = 4");
  n = base;
  n.inputs[0].dims = {1, 3, 3, 2};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input)", "rank");
  n = base;
  n.inputs[1].dims = {2, 2, 2, 1, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) dim 3 is 1, expected Cin/group = 2");
  n = base;
  n.inputs[1].dims = {3, 2, 2, 2, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "dilated filter depth", "= 3", "= 2");
  n = base;
  n.outputs[0].dims = {1, 1, 2, 3, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[1,1,2,2,4]");
  n = base;
  n.inputs.push_back(f32({3}));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) dim 0 is 3, expected Cout = 4");
  n = base;
  n.params.push_back(u32_param("frobnicate", 1));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'frobnicate'");
  // The sparse-reuse hint is accepted and changes nothing.
  n = base;
  n.params.push_back(bool_param("reuse_sparse_indicies", true));
  EXPECT_TRUE(n.prepare().ok()) << n.prepare().message;
}

}  // namespace
}  // namespace opstest
