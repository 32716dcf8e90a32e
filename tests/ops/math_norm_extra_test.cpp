// The later math and norm ops: Relu1, Relu6, Elu, ElementWiseSoftplus, Logit,
// IsInf, IsNan, L2Norm, Lrn, Moments, MaskedSoftmax, RotaryEmbedding.
// Expected values come from the formula written in each test, evaluated in
// double, or are worked by hand in the comments.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

// Prepares (must succeed), runs on raw buffers, returns every output's bytes.
std::vector<std::vector<uint8_t>> run_all(const Node& n, const std::vector<const void*>& ins) {
  std::unique_ptr<OpKernel> kernel;
  const Status s = n.prepare(&kernel);
  EXPECT_TRUE(s.ok()) << n.type << ": " << s.message;
  if (!s.ok() || !kernel) return {};
  std::vector<std::vector<uint8_t>> outs;
  std::vector<void*> out_ptrs;
  for (const TensorDesc& t : n.outputs) outs.emplace_back(t.num_bytes(), 0xAA);
  for (auto& o : outs) out_ptrs.push_back(o.data());
  kernel->run(ins, out_ptrs);
  return outs;
}

std::vector<float> as_floats(const std::vector<uint8_t>& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

// got within a few float ulps of the double-precision want; infinities and
// NaN must match exactly.
void expect_close(float got, double want, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got;
  } else if (std::isinf(want)) {
    EXPECT_EQ(double{got}, want) << what;
  } else {
    EXPECT_NEAR(got, want, 3e-7 * std::fabs(want) + 1e-7) << what;
  }
}

void expect_all_close(const std::vector<float>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i], what + " at " + std::to_string(i));
}

TensorDesc ufixed8(std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant = Quant::per_tensor(scale, offset);
  return t;
}

// --- Relu1, Relu6 ---

TEST(Relu1Relu6, ClampFloatsToTheirRanges) {
  const std::vector<float> x = {-7.0f, -1.5f, -1.0f, -0.25f, 0.0f, 0.5f, 1.0f, 3.0f, 6.0f, 6.5f};
  Node relu1{"Relu1", "n1", {f32({10})}, {f32({10})}, {}};
  Node relu6{"Relu6", "n1", {f32({10})}, {f32({10})}, {}};
  EXPECT_EQ(relu1.run({&x}), (std::vector<float>{-1, -1, -1, -0.25f, 0, 0.5f, 1, 1, 1, 1}));
  EXPECT_EQ(relu6.run({&x}), (std::vector<float>{0, 0, 0, 0, 0, 0.5f, 1, 3, 6, 6}));
  const std::vector<float> nan = {kNan};
  Node one{"Relu6", "n1", {f32({1})}, {f32({1})}, {}};
  EXPECT_TRUE(std::isnan(one.run({&nan})[0]));  // NaN stays NaN, as in ReluMinMax
}

TEST(Relu1Relu6, ClampPlainIntegersNatively) {
  const std::vector<int8_t> x = {-100, -2, -1, 0, 1, 5, 6, 7, 100};
  Node relu6{"Relu6", "n1", {typed(dtype::kInt8, {9})}, {typed(dtype::kInt8, {9})}, {}};
  auto got = run_all(relu6, {x.data()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{0, 0, 0, 0, 1, 5, 6, 6, 6}));
  Node relu1{"Relu1", "n1", {typed(dtype::kInt8, {9})}, {typed(dtype::kInt8, {9})}, {}};
  got = run_all(relu1, {x.data()});
  ASSERT_EQ(got.size(), 1u);
  const std::vector<int8_t> want = {-1, -1, -1, 0, 1, 1, 1, 1, 1};
  EXPECT_EQ(std::memcmp(got[0].data(), want.data(), 9), 0);
}

TEST(Relu1Relu6, FixedPointGoesThroughTheTypeAdapter) {
  // q {0, 10, 20, 30, 40} at scale 0.25 offset -20 is {-5, -2.5, 0, 2.5, 5};
  // Relu1 -> {-1, -1, 0, 1, 1}; out scale 0.5 offset -2 -> q = v / 0.5 + 2 = {0, 0, 2, 4, 4}.
  Node relu1{"Relu1", "n1", {ufixed8({5}, 0.25f, -20)}, {ufixed8({5}, 0.5f, -2)}, {}};
  const std::vector<uint8_t> q = {0, 10, 20, 30, 40};
  auto got = run_all(relu1, {q.data()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{0, 0, 2, 4, 4}));
}

TEST(Relu1Relu6, RefuseParametersAndBadTensors) {
  for (const char* type : {"Relu1", "Relu6"}) {
    Node node{type, "n1", {f32({4})}, {f32({4})}, {}};
    EXPECT_TRUE(node.prepare().ok()) << type;
    Node with_param = node;
    with_param.params = {f32_param("max_value", 6.0f)};
    EXPECT_STATUS(with_param.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'max_value'", type);
    Node two_in = node;
    two_in.inputs.push_back(f32({4}));
    EXPECT_STATUS(two_in.prepare(), StatusCode::kInvalidArgument, "has 2 inputs");
    Node wrong_shape = node;
    wrong_shape.outputs[0] = f32({5});
    EXPECT_STATUS(wrong_shape.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 5");
    Node mixed = node;
    mixed.outputs[0] = typed(dtype::kInt16, {4});
    EXPECT_FALSE(mixed.prepare().ok()) << type << ": float in, INT_16 out";
  }
}

// --- Elu, ElementWiseSoftplus ---

TEST(EluSoftplus, EluMatchesItsFormula) {
  const std::vector<float> x = {-3.0f, -1.0f, -0.25f, 0.0f, 0.5f, 2.0f};
  for (float alpha : {1.0f, 0.5f}) {
    Node elu{"Elu", "n1", {f32({6})}, {f32({6})}, {}};
    if (alpha != 1.0f) elu.params = {f32_param("alpha", alpha)};  // 1 is the default
    std::vector<double> want;
    for (float v : x) want.push_back(v > 0 ? v : alpha * (std::exp(double{v}) - 1.0));
    expect_all_close(elu.run({&x}), want, "Elu alpha " + std::to_string(alpha));
  }
}

TEST(EluSoftplus, SoftplusMatchesItsFormula) {
  // beta 2, threshold 3: beta*x = {-6, -2, 0, 2, 4, 10}; the last two exceed
  // the threshold, so they are x itself; the rest log(1 + e^(beta x)) / beta.
  const std::vector<float> x = {-3.0f, -1.0f, 0.0f, 1.0f, 2.0f, 5.0f};
  Node sp{"ElementWiseSoftplus", "n1", {f32({6})}, {f32({6})},
          {f32_param("beta", 2.0f), f32_param("threshold", 3.0f)}};
  std::vector<double> want;
  for (float v : x) want.push_back(2.0 * v > 3.0 ? v : std::log(1.0 + std::exp(2.0 * v)) / 2.0);
  expect_all_close(sp.run({&x}), want, "Softplus beta 2 threshold 3");
  // Defaults: beta 1, no threshold. log(1 + e^40) = 40 + log(1 + e^-40).
  const std::vector<float> y = {-2.0f, 0.0f, 40.0f};
  Node plain{"ElementWiseSoftplus", "n1", {f32({3})}, {f32({3})}, {}};
  expect_all_close(plain.run({&y}), {std::log1p(std::exp(-2.0)), std::log(2.0), 40.0 + std::log1p(std::exp(-40.0))},
                   "Softplus defaults");
}

TEST(EluSoftplus, SameAsElementWiseNeuronWithItsOperation) {
  // The standalone ops share ElementWiseNeuron's kernels: bit-identical.
  std::mt19937 rng(7);
  const std::vector<float> x = random_floats(rng, 64, -6.0f, 6.0f);
  Node elu{"Elu", "n1", {f32({64})}, {f32({64})}, {f32_param("alpha", 0.7f)}};
  Node neuron_elu{"ElementWiseNeuron", "n1", {f32({64})}, {f32({64})},
                  {u32_param("operation", 0), f32_param("alpha", 0.7f)}};
  EXPECT_EQ(elu.run({&x}), neuron_elu.run({&x}));
  Node sp{"ElementWiseSoftplus", "n1", {f32({64})}, {f32({64})},
          {f32_param("beta", 1.5f), f32_param("threshold", 4.0f)}};
  Node neuron_sp{"ElementWiseNeuron", "n1", {f32({64})}, {f32({64})},
                 {u32_param("operation", 7), f32_param("beta", 1.5f), f32_param("threshold", 4.0f)}};
  EXPECT_EQ(sp.run({&x}), neuron_sp.run({&x}));
}

TEST(EluSoftplus, RefuseBadParametersAndTensors) {
  Node sp{"ElementWiseSoftplus", "n1", {f32({4})}, {f32({4})}, {f32_param("beta", 0.0f)}};
  EXPECT_STATUS(sp.prepare(), StatusCode::kInvalidArgument, "parameter 'beta' is 0, expected > 0");
  sp.params = {f32_param("alpha", 1.0f)};
  EXPECT_STATUS(sp.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'alpha'");
  Node elu{"Elu", "n1", {f32({4})}, {f32({4})}, {f32_param("beta", 1.0f)}};
  EXPECT_STATUS(elu.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'beta'");
  elu.params = {};
  elu.outputs[0] = f32({2, 2});
  EXPECT_STATUS(elu.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 2");
  elu.outputs[0] = typed(dtype::kInt32, {4});
  EXPECT_STATUS(elu.prepare(), StatusCode::kUnsupported, "out[0] data type is INT_32");
  elu.outputs = {f32({4}), f32({4})};
  EXPECT_STATUS(elu.prepare(), StatusCode::kInvalidArgument, "has 2 outputs, expected 1");
}

// --- Logit ---

TEST(Logit, MatchesItsFormulaWithoutEps) {
  // log(x / (1 - x)); 0 -> -inf, 1 -> +inf, outside [0, 1] -> NaN.
  const std::vector<float> x = {0.1f, 0.25f, 0.5f, 0.75f, 0.999f, 0.0f, 1.0f, 1.5f, -0.5f};
  Node logit{"Logit", "n1", {f32({9})}, {f32({9})}, {}};
  std::vector<double> want;
  for (float v : x) want.push_back(std::log(double{v} / (1.0 - double{v})));
  want[5] = -INFINITY;
  want[6] = INFINITY;
  want[7] = want[8] = NAN;
  expect_all_close(logit.run({&x}), want, "Logit");
}

TEST(Logit, EpsClampsTheInput) {
  // eps 0.1: inputs clamped to [0.1, 0.9] first; logit(0.1) = log(1/9).
  const std::vector<float> x = {-1.0f, 0.0f, 0.05f, 0.5f, 0.95f, 1.0f, 2.0f};
  Node logit{"Logit", "n1", {f32({7})}, {f32({7})}, {f32_param("eps", 0.1f)}};
  const double lo = std::log(0.1 / 0.9);
  expect_all_close(logit.run({&x}), {lo, lo, lo, 0.0, -lo, -lo, -lo}, "Logit eps 0.1");
}

TEST(Logit, RefusesBadEpsAndTensors) {
  Node logit{"Logit", "n1", {f32({3})}, {f32({3})}, {f32_param("eps", 0.6f)}};
  EXPECT_STATUS(logit.prepare(), StatusCode::kInvalidArgument, "parameter 'eps' is 0.6", "[0, 0.5]");
  logit.params = {f32_param("eps", -0.1f)};
  EXPECT_STATUS(logit.prepare(), StatusCode::kInvalidArgument, "parameter 'eps' is -0.1");
  logit.params = {f32_param("alpha", 0.1f)};
  EXPECT_STATUS(logit.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'alpha'");
  logit.params = {};
  logit.outputs[0] = f32({4});
  EXPECT_STATUS(logit.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 4");
  logit.outputs[0] = f32({3});
  logit.inputs.push_back(f32({3}));
  EXPECT_STATUS(logit.prepare(), StatusCode::kInvalidArgument, "has 2 inputs");
}

// --- IsInf, IsNan ---

TEST(IsInfIsNan, FlagTheirValues) {
  const std::vector<float> x = {kInf, -kInf, kNan, 0.0f, 3.4e38f, -1.0f, -kNan};
  Node is_inf{"IsInf", "n1", {f32({7})}, {typed(dtype::kBool8, {7})}, {}};
  auto got = run_all(is_inf, {x.data()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{1, 1, 0, 0, 0, 0, 0}));
  is_inf.params = {bool_param("detect_negative", false)};
  got = run_all(is_inf, {x.data()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{1, 0, 0, 0, 0, 0, 0}));
  is_inf.params = {bool_param("detect_positive", false), bool_param("detect_negative", true)};
  got = run_all(is_inf, {x.data()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{0, 1, 0, 0, 0, 0, 0}));
  Node is_nan{"IsNan", "n1", {f32({7})}, {typed(dtype::kBool8, {7})}, {}};
  got = run_all(is_nan, {x.data()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{0, 0, 1, 0, 0, 0, 1}));
}

TEST(IsInfIsNan, Float16InputGoesThroughTheTypeAdapter) {
  // FLOAT_16: 0x7C00 +inf, 0xFC00 -inf, 0x7E00 NaN, 0x3C00 1, 0x7BFF 65504 (largest finite).
  const std::vector<uint16_t> h = {0x7C00, 0xFC00, 0x7E00, 0x3C00, 0x7BFF};
  Node is_inf{"IsInf", "n1", {typed(dtype::kFloat16, {5})}, {typed(dtype::kBool8, {5})}, {}};
  auto got = run_all(is_inf, {h.data()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{1, 1, 0, 0, 0}));
  Node is_nan{"IsNan", "n1", {typed(dtype::kFloat16, {5})}, {typed(dtype::kBool8, {5})}, {}};
  got = run_all(is_nan, {h.data()});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{0, 0, 1, 0, 0}));
}

TEST(IsInfIsNan, RefuseBadTensorsAndParameters) {
  for (const char* type : {"IsInf", "IsNan"}) {
    Node node{type, "n1", {f32({3})}, {typed(dtype::kBool8, {3})}, {}};
    EXPECT_TRUE(node.prepare().ok()) << type;
    Node float_out = node;
    float_out.outputs[0] = f32({3});
    EXPECT_STATUS(float_out.prepare(), StatusCode::kInvalidArgument, "out[0] data type is a float type",
                  "expected BOOL_8");
    Node bool_in = node;
    bool_in.inputs[0] = typed(dtype::kBool8, {3});
    EXPECT_STATUS(bool_in.prepare(), StatusCode::kUnsupported, "in[0] data type is BOOL_8");
    Node wrong_shape = node;
    wrong_shape.outputs[0] = typed(dtype::kBool8, {1, 3});
    EXPECT_STATUS(wrong_shape.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 2");
    Node unknown = node;
    unknown.params = {bool_param("detect_nan", true)};
    EXPECT_STATUS(unknown.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'detect_nan'");
    Node two_out = node;
    two_out.outputs.push_back(typed(dtype::kBool8, {3}));
    EXPECT_STATUS(two_out.prepare(), StatusCode::kInvalidArgument, "has 2 outputs, expected 1");
  }
  Node is_nan{"IsNan", "n1", {f32({3})}, {typed(dtype::kBool8, {3})}, {bool_param("detect_negative", true)}};
  EXPECT_STATUS(is_nan.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'detect_negative'");
}

// --- L2Norm ---

TEST(L2Norm, NormalizesTheChosenAxes) {
  // [2,3] = {3, 4, 0 | 0, 0, 0}.
  const std::vector<float> x = {3, 4, 0, 0, 0, 0};
  // Default axis (last): row 0 has norm 5; row 1 is all zero, sum 0 < eps,
  // so it is 0 / sqrt(1e-12) = 0.
  Node by_row{"L2Norm", "n1", {f32({2, 3})}, {f32({2, 3})}, {}};
  expect_all_close(by_row.run({&x}), {0.6, 0.8, 0, 0, 0, 0}, "default axis");
  // axis 0: columns {3,0} -> {1,0}, {4,0} -> {1,0}, {0,0} -> {0,0}.
  Node by_col{"L2Norm", "n1", {f32({2, 3})}, {f32({2, 3})}, {u32_param("axis", 0)}};
  expect_all_close(by_col.run({&x}), {1, 1, 0, 0, 0, 0}, "axis 0");
  // axes {0, 1}: norm of everything is 5; axes wins over axis.
  Node all{"L2Norm", "n1", {f32({2, 3})}, {f32({2, 3})},
           {u32_param("axis", 1), u32_tensor_param("axes", {2}, {1, 0})}};
  expect_all_close(all.run({&x}), {0.6, 0.8, 0, 0, 0, 0}, "axes {1,0}");
  // epsilon 100 > 25 = sum of squares of row 0: divided by sqrt(100) = 10.
  Node eps{"L2Norm", "n1", {f32({2, 3})}, {f32({2, 3})}, {f32_param("epsilon", 100.0f)}};
  expect_all_close(eps.run({&x}), {0.3, 0.4, 0, 0, 0, 0}, "epsilon 100");
}

TEST(L2Norm, RandomTensorMatchesTheFormula) {
  // [2,3,4] over axes {0, 2}: slice j holds x[i][j][k] for all i, k.
  std::mt19937 rng(3);
  const std::vector<float> x = random_floats(rng, 24, -2.0f, 2.0f);
  Node node{"L2Norm", "n1", {f32({2, 3, 4})}, {f32({2, 3, 4})}, {u32_tensor_param("axes", {2}, {0, 2})}};
  std::vector<double> want(24);
  for (size_t j = 0; j < 3; ++j) {
    double sum = 0;
    for (size_t i = 0; i < 2; ++i)
      for (size_t k = 0; k < 4; ++k) sum += double{x[i * 12 + j * 4 + k]} * x[i * 12 + j * 4 + k];
    for (size_t i = 0; i < 2; ++i)
      for (size_t k = 0; k < 4; ++k) want[i * 12 + j * 4 + k] = x[i * 12 + j * 4 + k] / std::sqrt(sum);
  }
  expect_all_close(node.run({&x}), want, "axes {0,2}");
}

TEST(L2Norm, RefusesBadAxesEpsilonAndShapes) {
  Node node{"L2Norm", "n1", {f32({2, 3})}, {f32({2, 3})}, {u32_param("axis", 2)}};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "parameter 'axis' is 2, expected < rank 2");
  node.params = {u32_tensor_param("axes", {2}, {1, 1})};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' lists axis 1 twice");
  node.params = {u32_tensor_param("axes", {1}, {5})};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' element 0 is 5");
  node.params = {u32_tensor_param("axes", {3}, {0, 1, 0})};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' has 3 entries");
  node.params = {f32_param("epsilon", -1.0f)};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "parameter 'epsilon' is -1, expected >= 0");
  node.params = {f32_param("eps", 1.0f)};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'eps'");
  node.params = {};
  node.outputs[0] = f32({3, 2});
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 3");
  node.outputs[0] = f32({2, 3});
  node.inputs[0] = f32({1, 1, 1, 1, 1, 2});
  node.outputs[0] = f32({1, 1, 1, 1, 1, 2});
  EXPECT_STATUS(node.prepare(), StatusCode::kUnsupported, "in[0] rank is 6");
}

// --- Lrn ---

TEST(Lrn, AcrossChannelSumsANeighbourhoodOfChannels) {
  // [1,1,1,4] = {1,2,3,4}, radius 1: squares summed over c-1..c+1 are
  // {1+4, 1+4+9, 4+9+16, 9+16} = {5, 14, 29, 25}; alpha 0.5, beta 1, bias 1:
  // y = x / (1 + 0.5 s) = {1/3.5, 2/8, 3/15.5, 4/13.5}.
  const std::vector<float> x = {1, 2, 3, 4};
  Node lrn{"Lrn", "n1", {f32({1, 1, 1, 4})}, {f32({1, 1, 1, 4})},
           {f32_param("alpha", 0.5f), f32_param("beta", 1.0f), f32_param("bias", 1.0f), u32_param("radius", 1)}};
  expect_all_close(lrn.run({&x}), {1 / 3.5, 2 / 8.0, 3 / 15.5, 4 / 13.5}, "radius 1");
  // Defaults (alpha 1, beta 0.5, bias 1, radius 5): every window holds all
  // four channels, s = 30, y = x / sqrt(31).
  Node plain{"Lrn", "n1", {f32({1, 1, 1, 4})}, {f32({1, 1, 1, 4})}, {}};
  const double r = std::sqrt(31.0);
  expect_all_close(plain.run({&x}), {1 / r, 2 / r, 3 / r, 4 / r}, "defaults");
  // Each row of a [2,2] is its own set of channels: {1,2} and {3,4}, radius
  // 0: s = x^2, bias 2, alpha 1, beta 1 -> x / (2 + x^2).
  Node rows{"Lrn", "n1", {f32({2, 2})}, {f32({2, 2})}, {u32_param("radius", 0), f32_param("bias", 2.0f),
                                                        f32_param("beta", 1.0f)}};
  expect_all_close(rows.run({&x}), {1 / 3.0, 2 / 6.0, 3 / 11.0, 4 / 18.0}, "rank 2, radius 0");
}

TEST(Lrn, WithinChannelSumsASpatialWindow) {
  // [1,2,3,2] NHWC; channel 0 = {1,2,3 | 4,5,6}, channel 1 = all 1. radius 1,
  // alpha 0.1, beta 2, bias 1: element (h,w) sums squares over the 3x3 window
  // clipped to the 2x3 image, per channel.
  const std::vector<float> x = {1, 1, 2, 1, 3, 1, 4, 1, 5, 1, 6, 1};
  Node lrn{"Lrn", "n1", {f32({1, 2, 3, 2})}, {f32({1, 2, 3, 2})},
           {u32_param("region", 1), u32_param("radius", 1), f32_param("alpha", 0.1f), f32_param("beta", 2.0f)}};
  const double c0[2][3] = {{1, 2, 3}, {4, 5, 6}};
  std::vector<double> want;
  for (int h = 0; h < 2; ++h) {
    for (int w = 0; w < 3; ++w) {
      double s0 = 0, s1 = 0;
      for (int i = 0; i < 2; ++i) {
        for (int j = std::max(0, w - 1); j <= std::min(2, w + 1); ++j) {
          s0 += c0[i][j] * c0[i][j];
          s1 += 1.0;
        }
      }
      want.push_back(c0[h][w] / std::pow(1.0 + 0.1 * s0, 2.0));
      want.push_back(1.0 / std::pow(1.0 + 0.1 * s1, 2.0));
    }
  }
  // By hand for (0,0): window rows 0-1, cols 0-1: 1+4+16+25 = 46 -> 1 / 5.6^2.
  ASSERT_NEAR(want[0], 1.0 / (5.6 * 5.6), 1e-12);
  expect_all_close(lrn.run({&x}), want, "WITHIN_CHANNEL");
}

TEST(Lrn, RefusesBadRegionRankAndParameters) {
  Node lrn{"Lrn", "n1", {f32({1, 2, 2, 3})}, {f32({1, 2, 2, 3})}, {u32_param("region", 2)}};
  EXPECT_STATUS(lrn.prepare(), StatusCode::kInvalidArgument, "parameter 'region' is 2");
  lrn.params = {u32_param("region", 1)};
  lrn.inputs[0] = f32({2, 2, 3});
  lrn.outputs[0] = f32({2, 2, 3});
  EXPECT_STATUS(lrn.prepare(), StatusCode::kInvalidArgument, "in[0] rank is 3", "WITHIN_CHANNEL");
  lrn.params = {u32_param("region", 0)};
  EXPECT_TRUE(lrn.prepare().ok()) << "ACROSS_CHANNEL takes any rank";
  lrn.params = {u32_param("size", 3)};
  EXPECT_STATUS(lrn.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'size'");
  lrn.params = {f32_param("radius", 1.5f)};
  EXPECT_STATUS(lrn.prepare(), StatusCode::kInvalidArgument, "parameter 'radius' is 1.5");
  lrn.params = {};
  lrn.outputs[0] = f32({2, 2, 4});
  EXPECT_STATUS(lrn.prepare(), StatusCode::kInvalidArgument, "out[0] dim 2 is 4");
}

// --- Moments ---

TEST(Moments, MeanAndPopulationVariance) {
  // [2,3] = {1,2,3 | 4,6,8}. Over axis 1: means {2, 6}; variances
  // ((1+0+1)/3, (4+0+4)/3) = {2/3, 8/3}.
  const std::vector<float> x = {1, 2, 3, 4, 6, 8};
  Node rows{"Moments", "n1", {f32({2, 3})}, {f32({2}), f32({2})}, {u32_tensor_param("axes", {1}, {1})}};
  auto got = run_all(rows, {x.data()});
  ASSERT_EQ(got.size(), 2u);
  expect_all_close(as_floats(got[0]), {2, 6}, "mean axis 1");
  expect_all_close(as_floats(got[1]), {2.0 / 3, 8.0 / 3}, "variance axis 1");
  // keep_dims: [2,1] outputs, same values.
  Node kept{"Moments", "n1", {f32({2, 3})}, {f32({2, 1}), f32({2, 1})},
            {u32_tensor_param("axes", {1}, {1}), bool_param("keep_dims", true)}};
  got = run_all(kept, {x.data()});
  ASSERT_EQ(got.size(), 2u);
  expect_all_close(as_floats(got[1]), {2.0 / 3, 8.0 / 3}, "variance keep_dims");
  // Over both axes: mean 24/6 = 4; deviations {-3,-2,-1,0,2,4}, squares sum
  // 34, variance 34/6. The output is [1].
  Node all{"Moments", "n1", {f32({2, 3})}, {f32({1}), f32({1})}, {u32_tensor_param("axes", {2}, {0, 1})}};
  got = run_all(all, {x.data()});
  ASSERT_EQ(got.size(), 2u);
  expect_all_close(as_floats(got[0]), {4}, "mean all");
  expect_all_close(as_floats(got[1]), {34.0 / 6}, "variance all");
  // Over axis 0: column means {2.5, 4, 5.5}, variances {2.25, 4, 6.25}.
  Node cols{"Moments", "n1", {f32({2, 3})}, {f32({3}), f32({3})}, {u32_tensor_param("axes", {1}, {0})}};
  got = run_all(cols, {x.data()});
  ASSERT_EQ(got.size(), 2u);
  expect_all_close(as_floats(got[0]), {2.5, 4, 5.5}, "mean axis 0");
  expect_all_close(as_floats(got[1]), {2.25, 4, 6.25}, "variance axis 0");
}

TEST(Moments, NoCancellationForALargeMean) {
  // 1e4 + {-1, 1}: the variance is exactly 1 (a one-pass float E[x^2]-E[x]^2
  // would lose it).
  const std::vector<float> x = {9999.0f, 10001.0f};
  Node node{"Moments", "n1", {f32({2})}, {f32({1}), f32({1})}, {u32_tensor_param("axes", {1}, {0})}};
  auto got = run_all(node, {x.data()});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(as_floats(got[0]), std::vector<float>{10000.0f});
  EXPECT_EQ(as_floats(got[1]), std::vector<float>{1.0f});
}

TEST(Moments, RefusesBadCountsAxesAndShapes) {
  Node node{"Moments", "n1", {f32({2, 3})}, {f32({2})}, {u32_tensor_param("axes", {1}, {1})}};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "has 1 outputs, expected 2");
  node.outputs = {f32({2}), f32({3})};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "out[1] dim 0 is 3");
  node.outputs = {f32({2}), f32({2})};
  EXPECT_TRUE(node.prepare().ok());
  node.params = {};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'axes' is missing");
  node.params = {u32_tensor_param("axes", {1}, {2})};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' element 0 is 2");
  node.params = {u32_tensor_param("axes", {1}, {1}), u32_param("axis", 1)};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'axis'");
  node.params = {u32_tensor_param("axes", {1}, {1})};
  node.outputs = {f32({2}), typed(dtype::kInt32, {2})};
  EXPECT_STATUS(node.prepare(), StatusCode::kUnsupported, "out[1] data type is INT_32");
}

TEST(Moments, Float16GoesThroughTheTypeAdapter) {
  // FLOAT_16 {1, 2, 3, 6} = 0x3C00, 0x4000, 0x4200, 0x4600: mean 3, variance
  // (4 + 1 + 0 + 9) / 4 = 3.5 = 0x4300.
  const std::vector<uint16_t> h = {0x3C00, 0x4000, 0x4200, 0x4600};
  Node node{"Moments", "n1", {typed(dtype::kFloat16, {4})}, {typed(dtype::kFloat16, {1}), typed(dtype::kFloat16, {1})},
            {u32_tensor_param("axes", {1}, {0})}};
  auto got = run_all(node, {h.data()});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (std::vector<uint8_t>{0x00, 0x42}));
  EXPECT_EQ(got[1], (std::vector<uint8_t>{0x00, 0x43}));
}

// --- MaskedSoftmax ---

// Softmax of v, in double.
std::vector<double> softmax(const std::vector<double>& v) {
  double m = v[0];
  for (double e : v) m = std::max(m, e);
  double sum = 0;
  for (double e : v) sum += std::exp(e - m);
  std::vector<double> out;
  for (double e : v) out.push_back(std::exp(e - m) / sum);
  return out;
}

TEST(MaskedSoftmax, UncompressedAddsTheMaskToEveryRow) {
  // [1,1,2,3]: rows {1,2,3} and {0,0.5,-1}; mask [1,3] = {0, 0, -10000}.
  const std::vector<float> x = {1, 2, 3, 0, 0.5f, -1};
  const std::vector<float> mask = {0, 0, -10000};
  Node node{"MaskedSoftmax", "n1", {f32({1, 1, 2, 3}), f32({1, 3})}, {f32({1, 1, 2, 3})}, {}};
  std::vector<double> want = softmax({1, 2, 3 - 10000.0});
  for (double v : softmax({0, 0.5, -1 - 10000.0})) want.push_back(v);
  // By hand: the masked column is e^-10001 ~ 0 and the others e/(e+e^2), e^2/(e+e^2).
  ASSERT_NEAR(want[0], 1 / (1 + std::exp(1.0)), 1e-12);
  auto got = run_all(node, {x.data(), mask.data()});
  ASSERT_EQ(got.size(), 1u);
  expect_all_close(as_floats(got[0]), want, "uncompressed");
}

TEST(MaskedSoftmax, UncompressedMaskPerBatch) {
  // [2,1,1,2], mask [2,2] = {0, -1e4 | -1e4, 0}: batch 0 keeps column 0, batch 1 column 1.
  const std::vector<float> x = {3, 3, 5, 5};
  const std::vector<float> mask = {0, -1e4f, -1e4f, 0};
  Node node{"MaskedSoftmax", "n1", {f32({2, 1, 1, 2}), f32({2, 2})}, {f32({2, 1, 1, 2})},
            {u32_param("mode", 0)}};
  auto got = run_all(node, {x.data(), mask.data()});
  ASSERT_EQ(got.size(), 1u);
  expect_all_close(as_floats(got[0]), {1, 0, 0, 1}, "per-batch mask");
}

TEST(MaskedSoftmax, CompressedMaskIsSequenceLengths) {
  // [1,1,4,4], x[i][j] = i + j / 2. Lengths {1, 2}: sequence 0 = {0},
  // sequence 1 = {1, 2}; row 3 lies past both. Row 0: softmax over column 0
  // alone = 1. Rows 1 and 2: softmax over columns 1, 2, zeros elsewhere.
  // Row 3: all zeros.
  std::vector<float> x(16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) x[i * 4 + j] = i + j * 0.5f;
  std::vector<double> want(16, 0.0);
  want[0] = 1.0;
  for (int i = 1; i <= 2; ++i) {
    const auto s = softmax({i + 0.5, i + 1.0});
    want[i * 4 + 1] = s[0];
    want[i * 4 + 2] = s[1];
  }
  // By hand: the pair differs by 0.5, so the second is 1 / (1 + e^-0.5).
  ASSERT_NEAR(want[6], 1 / (1 + std::exp(-0.5)), 1e-12);
  const std::vector<int32_t> lengths_i32 = {1, 2};
  const std::vector<uint32_t> lengths_u32 = {1, 2};
  const std::vector<float> lengths_f32 = {1, 2};
  const std::pair<uint32_t, const void*> forms[] = {
      {dtype::kInt32, lengths_i32.data()}, {dtype::kUint32, lengths_u32.data()}, {dtype::kFloat32, lengths_f32.data()}};
  for (const auto& [dt, data] : forms) {
    Node node{"MaskedSoftmax", "n1", {f32({1, 1, 4, 4}), typed(dt, {1, 2})}, {f32({1, 1, 4, 4})},
              {u32_param("mode", 1)}};
    auto got = run_all(node, {x.data(), data});
    ASSERT_EQ(got.size(), 1u);
    expect_all_close(as_floats(got[0]), want, std::string("compressed, lengths ") + dtype::name(dt));
  }
  // Lengths past c are cut at c: {3, 5} -> sequences {0,1,2} and {3}.
  const std::vector<int32_t> long_lengths = {3, 5};
  Node node{"MaskedSoftmax", "n1", {f32({1, 1, 4, 4}), typed(dtype::kInt32, {1, 2})}, {f32({1, 1, 4, 4})},
            {u32_param("mode", 1)}};
  auto got = run_all(node, {x.data(), long_lengths.data()});
  ASSERT_EQ(got.size(), 1u);
  const std::vector<float> y = as_floats(got[0]);
  expect_close(y[15], 1.0, "row 3 is its own sequence");
  expect_close(y[12], 0.0, "row 3, column 0");
  const auto s0 = softmax({0, 0.5, 1});
  expect_close(y[2], s0[2], "row 0, column 2");
  expect_close(y[3], 0.0, "row 0, column 3");
}

TEST(MaskedSoftmax, RefusesBadModeShapesAndTypes) {
  Node node{"MaskedSoftmax", "n1", {f32({1, 1, 2, 3}), f32({1, 3})}, {f32({1, 1, 2, 3})}, {u32_param("mode", 2)}};
  EXPECT_STATUS(node.prepare(), StatusCode::kInvalidArgument, "parameter 'mode' is 2");
  node.params = {};
  EXPECT_TRUE(node.prepare().ok());
  Node one_in = node;
  one_in.inputs.pop_back();
  EXPECT_STATUS(one_in.prepare(), StatusCode::kInvalidArgument, "has 1 inputs");
  Node bad_mask = node;
  bad_mask.inputs[1] = f32({1, 2});
  EXPECT_STATUS(bad_mask.prepare(), StatusCode::kInvalidArgument, "in[1] (mask) dim 1 is 2");
  bad_mask.inputs[1] = f32({3});
  EXPECT_STATUS(bad_mask.prepare(), StatusCode::kInvalidArgument, "in[1] (mask) rank is 1");
  bad_mask.inputs[1] = f32({2, 3});
  EXPECT_STATUS(bad_mask.prepare(), StatusCode::kInvalidArgument, "in[1] (mask) dim 0 is 2");
  bad_mask.inputs[1] = typed(dtype::kInt32, {1, 3});
  EXPECT_STATUS(bad_mask.prepare(), StatusCode::kUnsupported, "in[1] (mask) data type is INT_32");
  Node rank3 = node;
  rank3.inputs[0] = f32({1, 2, 3});
  rank3.outputs[0] = f32({1, 2, 3});
  EXPECT_STATUS(rank3.prepare(), StatusCode::kInvalidArgument, "in[0] rank is 3");
  Node wrong_out = node;
  wrong_out.outputs[0] = f32({1, 1, 3, 2});
  EXPECT_STATUS(wrong_out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 2 is 3");
  Node compressed{"MaskedSoftmax", "n1", {f32({1, 1, 2, 3}), typed(dtype::kInt32, {1, 1})}, {f32({1, 1, 2, 3})},
                  {u32_param("mode", 1)}};
  EXPECT_STATUS(compressed.prepare(), StatusCode::kInvalidArgument, "needs width == channel");
  compressed.inputs[1] = typed(dtype::kInt16, {1, 1});
  EXPECT_STATUS(compressed.prepare(), StatusCode::kUnsupported, "in[1] (mask) data type is INT_16",
                "INT_32/UINT_32 sequence lengths");
}

// --- RotaryEmbedding ---

// The rotation written as complex multiplication: (x1 + i x2) e^(i theta).
std::pair<double, double> rotate(double x1, double x2, double theta) {
  const std::complex<double> z = std::complex<double>(x1, x2) * std::polar(1.0, theta);
  return {z.real(), z.imag()};
}

TEST(RotaryEmbedding, RotatesPairsByTheirPositionsAngles) {
  // x [1,1,2,4]; angles per position s and pair i: theta[s][i] = (s + 1) * (i + 1) / 2.
  const std::vector<float> x = {1, 2, 3, 4, -5, 6, 0.5f, -8};
  auto theta = [](size_t s, size_t i) { return (s + 1.0) * (i + 1.0) / 2; };
  std::vector<float> cos, sin;
  for (size_t s = 0; s < 2; ++s) {
    for (size_t i = 0; i < 2; ++i) {
      cos.push_back(static_cast<float>(std::cos(theta(s, i))));
      sin.push_back(static_cast<float>(std::sin(theta(s, i))));
    }
  }
  for (bool interleaved : {false, true}) {
    Node node{"RotaryEmbedding", "n1", {f32({1, 1, 2, 4}), f32({2, 2}), f32({2, 2})}, {f32({1, 1, 2, 4})},
              {bool_param("interleaved", interleaved)}};
    std::vector<double> want(8);
    for (size_t s = 0; s < 2; ++s) {
      for (size_t i = 0; i < 2; ++i) {
        // Pair i: (i, i + 2) split in halves, or (2i, 2i + 1) interleaved.
        const size_t a = s * 4 + (interleaved ? 2 * i : i), b = s * 4 + (interleaved ? 2 * i + 1 : i + 2);
        const auto [r1, r2] = rotate(x[a], x[b], std::atan2(sin[s * 2 + i], cos[s * 2 + i]));
        want[a] = r1;
        want[b] = r2;
      }
    }
    expect_all_close(as_floats(run_all(node, {x.data(), cos.data(), sin.data()})[0]), want,
                     interleaved ? "interleaved" : "halves");
  }
}

TEST(RotaryEmbedding, PartialRotaryDimAndPositionIds) {
  // head_size 4, rotary_embedding_dim 2: pair (0, 1) rotates, 2 and 3 pass.
  // position_ids {2, 0} pick rows 2 and 0 of a [3, 1] table of angles {0.3, 0.6, 0.9}.
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<double> angles = {0.3, 0.6, 0.9};
  std::vector<float> cos, sin;
  for (double a : angles) {
    cos.push_back(static_cast<float>(std::cos(a)));
    sin.push_back(static_cast<float>(std::sin(a)));
  }
  const std::vector<int32_t> ids = {2, 0};
  Node node{"RotaryEmbedding", "n1",
            {f32({1, 1, 2, 4}), f32({3, 1}), f32({3, 1}), typed(dtype::kInt32, {1, 2})},
            {f32({1, 1, 2, 4})},
            {u32_param("rotary_embedding_dim", 2)}};
  const auto [a0, a1] = rotate(1, 2, std::atan2(sin[2], cos[2]));
  const auto [b0, b1] = rotate(5, 6, std::atan2(sin[0], cos[0]));
  // By hand: rotating (1, 2) by ~0.9 rad gives (cos .9 - 2 sin .9, 2 cos .9 + sin .9) ~ (-0.945, 2.0266).
  ASSERT_NEAR(a0, -0.9450, 1e-3);
  expect_all_close(as_floats(run_all(node, {x.data(), cos.data(), sin.data(), ids.data()})[0]),
                   {a0, a1, 3, 4, b0, b1, 7, 8}, "rotary dim 2, ids {2, 0}");
}

TEST(RotaryEmbedding, RefusesBadShapesTypesAndParameters) {
  Node node{"RotaryEmbedding", "n1", {f32({1, 2, 3, 4}), f32({3, 2}), f32({3, 2})}, {f32({1, 2, 3, 4})}, {}};
  EXPECT_TRUE(node.prepare().ok());
  Node odd = node;
  odd.params = {u32_param("rotary_embedding_dim", 3)};
  EXPECT_STATUS(odd.prepare(), StatusCode::kInvalidArgument, "parameter 'rotary_embedding_dim' is 3");
  odd.params = {u32_param("rotary_embedding_dim", 6)};
  EXPECT_STATUS(odd.prepare(), StatusCode::kInvalidArgument, "parameter 'rotary_embedding_dim' is 6");
  Node bad_cos = node;
  bad_cos.inputs[1] = f32({3, 1});
  EXPECT_STATUS(bad_cos.prepare(), StatusCode::kInvalidArgument, "in[2] (sin) dims are [3,2]");
  bad_cos.inputs[2] = f32({3, 1});
  EXPECT_STATUS(bad_cos.prepare(), StatusCode::kInvalidArgument, "in[1] (cos) dims are [3,1]");
  bad_cos.inputs[1] = bad_cos.inputs[2] = f32({4, 2});
  EXPECT_STATUS(bad_cos.prepare(), StatusCode::kInvalidArgument, "in[1] (cos) dims are [4,2]",
                "without position_ids");
  Node with_ids = node;
  with_ids.inputs[1] = with_ids.inputs[2] = f32({16, 2});
  with_ids.inputs.push_back(typed(dtype::kInt32, {1, 3}));
  EXPECT_TRUE(with_ids.prepare().ok()) << "a [16, 2] table indexed by position_ids";
  with_ids.inputs[3] = f32({1, 3});
  EXPECT_STATUS(with_ids.prepare(), StatusCode::kUnsupported, "in[3] (position_ids) data type is a float type");
  with_ids.inputs[3] = typed(dtype::kInt32, {1, 4});
  EXPECT_STATUS(with_ids.prepare(), StatusCode::kInvalidArgument, "in[3] (position_ids) dims are [1,4]");
  Node rank3 = node;
  rank3.inputs[0] = f32({2, 3, 4});
  rank3.outputs[0] = f32({2, 3, 4});
  EXPECT_STATUS(rank3.prepare(), StatusCode::kInvalidArgument, "in[0] rank is 3");
  Node unknown = node;
  unknown.params = {u32_param("num_heads", 2)};
  EXPECT_STATUS(unknown.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'num_heads'");
  Node two_in = node;
  two_in.inputs.pop_back();
  EXPECT_STATUS(two_in.prepare(), StatusCode::kInvalidArgument, "has 2 inputs");
  Node wrong_out = node;
  wrong_out.outputs[0] = f32({1, 2, 3, 3});
  EXPECT_STATUS(wrong_out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 3 is 3");
}

}  // namespace
}  // namespace opstest
