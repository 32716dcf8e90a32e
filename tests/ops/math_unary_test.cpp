// ElementWiseUnary (16 operations), ElementWiseNeuron (9 operations) and the
// standalone activations ReluMinMax, Sigmoid, Tanh, Gelu, HardSwish.
// Expected values are hand-derived (comments) or come from the textbook
// formula evaluated in double here.
#include <cmath>
#include <cstring>
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

enum UnaryOp : uint32_t {
  ABS = 0, ASIN, ATAN, CEIL, COS, EXP, FLOOR, LOG, NEG, NOT, RECIPROCAL, ROUND, RSQRT, SIGN, SIN, SQRT,
};
enum NeuronOp : uint32_t {
  ELU = 0, GELU, HARD_SIGMOID, HARD_SWISH, RELU, RELU_MIN_MAX, SIGMOID, SOFTPLUS, TANH,
};

Node unary(uint32_t op, TensorDesc x, TensorDesc y) {
  return Node{"ElementWiseUnary", "un", {std::move(x)}, {std::move(y)}, {u32_param("operation", op)}};
}

Node neuron(uint32_t op, std::vector<uint32_t> dims, std::vector<Param> extra = {}) {
  Node n{"ElementWiseNeuron", "nr", {f32(dims)}, {f32(dims)}, {u32_param("operation", op)}};
  for (Param& p : extra) n.params.push_back(std::move(p));
  return n;
}

// |got - want| within a few float ulps of want (plus a tiny absolute floor
// for values near 0), NaN only where NaN is expected; -0 vs +0 not checked.
void expect_close(const std::vector<float>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i << ": got " << got[i];
    } else {
      EXPECT_NEAR(got[i], want[i], 4e-7 * std::fabs(want[i]) + 1e-7) << what << " at " << i;
    }
  }
}

// --- ElementWiseUnary ---

TEST(ElementWiseUnary, EveryFloatOperationByHand) {
  struct Case {
    uint32_t op;
    std::vector<float> x;
    std::vector<double> want;
  };
  const double e = std::exp(1.0);
  const Case cases[] = {
      {ABS, {-2, 0, 3.5f}, {2, 0, 3.5}},
      {ASIN, {0, 0.5f, 1}, {0, kPi / 6, kPi / 2}},
      {ATAN, {0, 1, -1}, {0, kPi / 4, -kPi / 4}},
      {CEIL, {-1.5f, 1.2f, 2}, {-1, 2, 2}},
      // cos(pi/3) = 0.5; the float argument is pi/3 rounded, so allow its slope.
      {COS, {0, static_cast<float>(kPi / 3), static_cast<float>(kPi)}, {1, 0.5, -1}},
      {EXP, {0, 1, -1}, {1, e, 1 / e}},
      {FLOOR, {-1.5f, 1.7f, 2}, {-2, 1, 2}},
      {LOG, {1, static_cast<float>(e), 0.5f}, {0, 1, -std::log(2.0)}},
      {NEG, {1, -2, 0}, {-1, 2, 0}},
      {RECIPROCAL, {2, -4, 0.5f}, {0.5, -0.25, 2}},
      // Ties go to the even neighbour; others to the nearest.
      {ROUND, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f, -2.6f}, {0, 2, 2, 0, -2, -2, 2, 3, -3}},
      {RSQRT, {4, 0.25f, 16}, {0.5, 2, 0.25}},
      {SIGN, {-3, 0, 2, kNaN}, {-1, 0, 1, std::nan("")}},
      {SIN, {0, static_cast<float>(kPi / 6), static_cast<float>(kPi / 2)}, {0, 0.5, 1}},
      {SQRT, {4, 2.25f, 0}, {2, 1.5, 0}},
  };
  for (const Case& c : cases) {
    const uint32_t n = static_cast<uint32_t>(c.x.size());
    Node node = unary(c.op, f32({n}), f32({n}));
    std::vector<float> x = c.x;
    const std::vector<float> got = node.run({&x});
    if (c.op == COS || c.op == SIN || c.op == LOG) {
      // The float argument is off by up to half an ulp; the result moves by
      // at most that times the slope (<= 1 here).
      for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], c.want[i], 2e-7) << "operation " << c.op;
    } else {
      expect_close(got, c.want, "operation " + std::to_string(c.op));
    }
  }
}

TEST(ElementWiseUnary, NotOnBool8) {
  Node n = unary(NOT, bool8({2, 2}), bool8({2, 2}));
  EXPECT_EQ(run_raw(n, {{0, 1, 1, 0}}), (std::vector<uint8_t>{1, 0, 0, 1}));
}

TEST(ElementWiseUnary, Rules) {
  Node n = unary(ABS, f32({3}), f32({3}));
  n.params.clear();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "ElementWiseUnary 'un'",
                "mandatory parameter 'operation' is missing");
  n.params = {u32_param("operation", 16)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'operation' is 16");
  n.params = {u32_param("operation", 0), u32_param("axis", 0)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'axis'");
  // Output must match the input's shape.
  EXPECT_STATUS(unary(SQRT, f32({3}), f32({4})).prepare(), StatusCode::kInvalidArgument,
                "out[0] dim 0 is 4, expected 3");
  EXPECT_STATUS(unary(SQRT, f32({3}), f32({1, 3})).prepare(), StatusCode::kInvalidArgument,
                "out[0] rank is 2, expected 1");
  // NOT is BOOL_8 -> BOOL_8; everything else float -> float.
  EXPECT_STATUS(unary(NOT, f32({3}), bool8({3})).prepare(), StatusCode::kInvalidArgument,
                "in[0] data type is a float type, expected BOOL_8");
  EXPECT_STATUS(unary(NOT, bool8({3}), f32({3})).prepare(), StatusCode::kInvalidArgument,
                "out[0] data type is a float type, expected BOOL_8");
  EXPECT_STATUS(unary(NOT, bool8({3}), bool8({2})).prepare(), StatusCode::kInvalidArgument,
                "out[0] dim 0 is 2, expected 3");
  EXPECT_STATUS(unary(ABS, bool8({3}), f32({3})).prepare(), StatusCode::kUnsupported,
                "in[0] data type is BOOL_8", "only NOT takes BOOL_8");
  EXPECT_STATUS(unary(EXP, f32({3}), bool8({3})).prepare(), StatusCode::kInvalidArgument,
                "out[0] data type is BOOL_8", "EXP outputs numbers");
  EXPECT_STATUS(unary(EXP, typed(dtype::kInt32, {3}), f32({3})).prepare(), StatusCode::kUnsupported,
                "in[0] data type is INT_32");
}

TEST(ElementWiseUnary, QuantizedUfixed8) {
  // in UFIXED_8 scale 0.5 offset -100: q {90, 100, 120} -> {-5, 0, 10}
  // ABS -> {5, 0, 10}; out UFIXED_8 scale 0.25 offset 0 -> q {20, 0, 40}
  Node n = unary(ABS, ufixed8({3}, 0.5f, -100), ufixed8({3}, 0.25f, 0));
  EXPECT_EQ(run_raw(n, {{90, 100, 120}}), (std::vector<uint8_t>{20, 0, 40}));
  // ROUND with the same input scaled 0.25: q {90, 98, 106} -> {-2.5, -0.5, 1.5}
  // half-to-even -> {-2, 0, 2}; out scale 1 offset -10 -> q {8, 10, 12}
  Node r = unary(ROUND, ufixed8({3}, 0.25f, -100), ufixed8({3}, 1.0f, -10));
  EXPECT_EQ(run_raw(r, {{90, 98, 106}}), (std::vector<uint8_t>{8, 10, 12}));
}

TEST(ElementWiseUnary, Float16) {
  // SQRT: 4 = 0x4400 -> 2 = 0x4000; 0.25 = 0x3400 -> 0.5 = 0x3800.
  Node n = unary(SQRT, typed(dtype::kFloat16, {2}), typed(dtype::kFloat16, {2}));
  EXPECT_EQ(as<uint16_t>(run_raw(n, {bytes_of<uint16_t>({0x4400, 0x3400})})), (std::vector<uint16_t>{0x4000, 0x3800}));
}

// --- ElementWiseNeuron ---

// Textbook definitions in double, independent of the kernel.
double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double ref_gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

TEST(ElementWiseNeuron, EveryOperationWithDefaults) {
  const std::vector<float> x{-2, -0.5f, 0, 0.5f, 2, 5};
  auto each = [&](double (*f)(double)) {
    std::vector<double> w;
    for (float v : x) w.push_back(f(v));
    return w;
  };
  struct Case {
    uint32_t op;
    std::vector<Param> params;
    std::vector<double> want;
  };
  const Case cases[] = {
      // ELU alpha 1: x > 0 ? x : e^x - 1
      {ELU, {}, each([](double v) { return v > 0 ? v : std::exp(v) - 1; })},
      {GELU, {}, each(ref_gelu)},
      // HARD_SIGMOID alpha 0.2, beta 0.5: clamp(0.2x + 0.5, 0, 1)
      //   -2 -> 0.1, -0.5 -> 0.4, 0 -> 0.5, 0.5 -> 0.6, 2 -> 0.9, 5 -> 1.5 -> 1
      {HARD_SIGMOID, {}, {0.1, 0.4, 0.5, 0.6, 0.9, 1}},
      // HARD_SWISH x*clamp(x+3,0,6)/6: -2*1/6, -0.5*2.5/6, 0, 0.5*3.5/6, 2*5/6, 5*6/6
      {HARD_SWISH, {}, {-2.0 / 6, -1.25 / 6, 0, 1.75 / 6, 10.0 / 6, 5}},
      {RELU, {}, {0, 0, 0, 0.5, 2, 5}},
      {RELU_MIN_MAX, {f32_param("min_value", -1), f32_param("max_value", 1)}, {-1, -0.5, 0, 0.5, 1, 1}},
      {SIGMOID, {}, each(ref_sigmoid)},
      // SOFTPLUS beta 1, threshold disabled: log(1 + e^x)
      {SOFTPLUS, {}, each([](double v) { return std::log(1 + std::exp(v)); })},
      {TANH, {}, each([](double v) { return std::tanh(v); })},
  };
  for (const Case& c : cases) {
    Node n = neuron(c.op, {2, 3}, c.params);
    std::vector<float> in = x;
    expect_close(n.run({&in}), c.want, "operation " + std::to_string(c.op));
  }
}

TEST(ElementWiseNeuron, KnownValues) {
  // sigmoid(0) = 1/2, tanh(0) = 0, gelu(0) = 0, softplus(0) = ln 2,
  // gelu(1) = Phi(1) = 0.841344746..., elu(-inf-ish) -> -alpha.
  std::vector<float> zero{0};
  expect_close(neuron(SIGMOID, {1}).run({&zero}), {0.5}, "sigmoid(0)");
  expect_close(neuron(TANH, {1}).run({&zero}), {0.0}, "tanh(0)");
  expect_close(neuron(SOFTPLUS, {1}).run({&zero}), {std::log(2.0)}, "softplus(0)");
  std::vector<float> one{1};
  expect_close(neuron(GELU, {1}).run({&one}), {0.8413447460685429}, "gelu(1)");
  std::vector<float> big_neg{-100};
  expect_close(neuron(ELU, {1}, {f32_param("alpha", 3)}).run({&big_neg}), {-3.0}, "elu(-100), alpha 3");
}

TEST(ElementWiseNeuron, ExplicitParameters) {
  // ELU alpha 2 at -1: 2 (e^-1 - 1)
  std::vector<float> m1{-1, 1};
  expect_close(neuron(ELU, {2}, {f32_param("alpha", 2)}).run({&m1}), {2 * (std::exp(-1.0) - 1), 1}, "elu alpha 2");
  // HARD_SIGMOID alpha 0.5 beta 0: clamp(0.5x) at {-1, 1} -> {0, 0.5}
  expect_close(neuron(HARD_SIGMOID, {2}, {f32_param("alpha", 0.5f), f32_param("beta", 0)}).run({&m1}), {0, 0.5},
               "hard_sigmoid");
  // SOFTPLUS beta 2: log(1 + e^(2x)) / 2.  With threshold 5, 2*5 = 10 > 5 so
  // x = 5 passes through unchanged; without it the value is 5 + log1p(e^-10)/2
  // = 5.0000227, which float tells apart from 5.
  std::vector<float> xs{5, 1};
  const double soft1 = std::log(1 + std::exp(2.0)) / 2;
  expect_close(neuron(SOFTPLUS, {2}, {f32_param("beta", 2), f32_param("threshold", 5)}).run({&xs}), {5, soft1},
               "softplus threshold");
  expect_close(neuron(SOFTPLUS, {2}, {f32_param("beta", 2)}).run({&xs}),
               {5 + std::log1p(std::exp(-10.0)) / 2, soft1}, "softplus no threshold");
  // Softplus never overflows: x = 100 -> 100 (log(1 + e^100) = 100 + 3.7e-44).
  std::vector<float> hundred{100};
  expect_close(neuron(SOFTPLUS, {1}).run({&hundred}), {100}, "softplus(100)");
  // RELU ignores the parameters it does not use.
  std::vector<float> r{-1, 2};
  expect_close(neuron(RELU, {2}, {f32_param("alpha", 7)}).run({&r}), {0, 2}, "relu");
}

TEST(ElementWiseNeuron, Rules) {
  Node n = neuron(RELU, {3});
  n.params.clear();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "ElementWiseNeuron 'nr'",
                "mandatory parameter 'operation' is missing");
  EXPECT_STATUS(neuron(9, {3}).prepare(), StatusCode::kInvalidArgument, "parameter 'operation' is 9");
  EXPECT_STATUS(neuron(RELU_MIN_MAX, {3}, {f32_param("max_value", 1)}).prepare(), StatusCode::kInvalidArgument,
                "mandatory parameter 'min_value' is missing");
  EXPECT_STATUS(neuron(RELU_MIN_MAX, {3}, {f32_param("min_value", 1)}).prepare(), StatusCode::kInvalidArgument,
                "mandatory parameter 'max_value' is missing");
  EXPECT_STATUS(neuron(RELU_MIN_MAX, {3}, {f32_param("min_value", 2), f32_param("max_value", 1)}).prepare(),
                StatusCode::kInvalidArgument, "'min_value' (2) exceeds 'max_value' (1)");
  EXPECT_STATUS(neuron(SOFTPLUS, {3}, {f32_param("beta", 0)}).prepare(), StatusCode::kInvalidArgument,
                "parameter 'beta' is 0, expected > 0 for operation SOFTPLUS");
  EXPECT_STATUS(neuron(TANH, {3}, {f32_param("gamma", 1)}).prepare(), StatusCode::kInvalidArgument,
                "unknown parameter 'gamma'");
  Node shape = neuron(TANH, {3});
  shape.outputs[0] = f32({2});
  EXPECT_STATUS(shape.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 2, expected 3");
  Node type = neuron(TANH, {3});
  type.outputs[0] = typed(dtype::kInt32, {3});
  EXPECT_STATUS(type.prepare(), StatusCode::kUnsupported, "out[0] data type is INT_32");
}

TEST(ElementWiseNeuron, QuantizedHardSigmoid) {
  // in UFIXED_8 scale 0.5 offset -128: q {118, 128, 130, 140} -> {-5, 0, 1, 6}
  // HARD_SIGMOID defaults: clamp(0.2x + 0.5, 0, 1) -> {0 (-0.5), 0.5, 0.7, 1 (1.7)}
  // out UFIXED_8 scale 1/256 offset 0: q = round(y * 256) -> {0, 128, round(179.2) = 179, 256 -> 255}
  Node n{"ElementWiseNeuron", "qn", {ufixed8({4}, 0.5f, -128)}, {ufixed8({4}, 1.0f / 256, 0)},
         {u32_param("operation", HARD_SIGMOID)}};
  EXPECT_EQ(run_raw(n, {{118, 128, 130, 140}}), (std::vector<uint8_t>{0, 128, 179, 255}));
}

// --- the standalone activations ---

TEST(ReluMinMax, HandComputedAndRules) {
  Node n{"ReluMinMax", "r6", {f32({4})}, {f32({4})}, {f32_param("min_value", 0), f32_param("max_value", 6)}};
  std::vector<float> x{-1, 0.5f, 7, kNaN};
  const std::vector<float> y = n.run({&x});
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 6);
  EXPECT_TRUE(std::isnan(y[3]));  // NaN is not clamped away
  Node missing = n;
  missing.params = {f32_param("min_value", 0)};
  EXPECT_STATUS(missing.prepare(), StatusCode::kInvalidArgument, "ReluMinMax 'r6'",
                "mandatory parameter 'max_value' is missing");
  missing.params = {f32_param("max_value", 6)};
  EXPECT_STATUS(missing.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'min_value' is missing");
  Node inverted = n;
  inverted.params = {f32_param("min_value", 6), f32_param("max_value", 0)};
  EXPECT_STATUS(inverted.prepare(), StatusCode::kInvalidArgument, "'min_value' (6) exceeds 'max_value' (0)");
  Node extra = n;
  extra.params.push_back(u32_param("operation", 5));
  EXPECT_STATUS(extra.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'operation'");
  Node shape = n;
  shape.outputs[0] = f32({2, 2});
  EXPECT_STATUS(shape.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 2, expected 1");
}

TEST(ReluMinMax, QuantizedUfixed8) {
  // in UFIXED_8 scale 0.1 offset -50: q {40, 60, 200} -> {-1, 1, 15}
  // clamp to [0, 6] -> {0, 1, 6}; out UFIXED_8 scale 0.05 offset 0:
  //   q = round(y / 0.05) -> {0, 20, 120}
  Node n{"ReluMinMax", "qr", {ufixed8({3}, 0.1f, -50)}, {ufixed8({3}, 0.05f, 0)},
         {f32_param("min_value", 0), f32_param("max_value", 6)}};
  EXPECT_EQ(run_raw(n, {{40, 60, 200}}), (std::vector<uint8_t>{0, 20, 120}));
}

TEST(Sigmoid, HandComputed) {
  // sigmoid(0) = 1/2; sigmoid(ln 3) = 1/(1 + 1/3) = 3/4; sigmoid(-ln 3) = 1/4.
  const float l3 = static_cast<float>(std::log(3.0));
  Node n{"Sigmoid", "s", {f32({3})}, {f32({3})}, {}};
  std::vector<float> x{0, l3, -l3};
  // ln 3 in float is off by <= 6e-8; sigmoid's slope there is 3/16.
  const std::vector<float> y = n.run({&x});
  ASSERT_EQ(y.size(), 3u);
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_NEAR(y[1], 0.75, 1e-7);
  EXPECT_NEAR(y[2], 0.25, 1e-7);
}

TEST(Sigmoid, QuantizedUfixed8) {
  // in UFIXED_8 scale 0.5 offset -128: q {128, 120, 136} -> {0, -4, 4}
  // sigmoid -> {0.5, 0.0179862, 0.9820138}; out scale 1/256 offset 0:
  //   q = round(y * 256) = {128, round(4.6045) = 5, round(251.3955) = 251}
  Node n{"Sigmoid", "qs", {ufixed8({3}, 0.5f, -128)}, {ufixed8({3}, 1.0f / 256, 0)}, {}};
  EXPECT_EQ(run_raw(n, {{128, 120, 136}}), (std::vector<uint8_t>{128, 5, 251}));
}

TEST(Tanh, HandComputed) {
  // tanh(x) = (e^2x - 1)/(e^2x + 1); at x = ln 2: (4 - 1)/(4 + 1) = 0.6.
  const float l2 = static_cast<float>(std::log(2.0));
  Node n{"Tanh", "t", {f32({3})}, {f32({3})}, {}};
  std::vector<float> x{0, l2, -l2};
  const std::vector<float> y = n.run({&x});
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], 0.6, 1e-7);
  EXPECT_NEAR(y[2], -0.6, 1e-7);
}

TEST(Gelu, HandComputedErfForm) {
  // gelu(x) = x * Phi(x); Phi(1) = 0.8413447460685429, Phi(-1) = 1 - Phi(1).
  // At 10 / -10 it is x / 0 to float precision. The tanh approximation would
  // give 0.841192 at 1, outside the tolerance.
  Node n{"Gelu", "g", {f32({5})}, {f32({5})}, {}};
  std::vector<float> x{0, 1, -1, 10, -10};
  expect_close(n.run({&x}), {0, 0.8413447460685429, -0.1586552539314571, 10, 0}, "gelu");
}

TEST(HardSwish, HandComputed) {
  // x * clamp(x + 3, 0, 6) / 6: -4 -> 0, -3 -> 0, -1 -> -2/6, 0 -> 0, 1 -> 4/6, 3 -> 3, 4 -> 4
  Node n{"HardSwish", "hs", {f32({7})}, {f32({7})}, {}};
  std::vector<float> x{-4, -3, -1, 0, 1, 3, 4};
  expect_close(n.run({&x}), {0, 0, -1.0 / 3, 0, 2.0 / 3, 3, 4}, "hard_swish");
}

TEST(HardSwish, Float16) {
  // half: 1 = 0x3C00, -1 = 0xBC00, 3 = 0x4200.
  // y = {2/3, -1/3, 3}. 2/3 = 1.3333 * 2^-1: mantissa 0.3333 * 1024 = 341.33 -> 341 = 0x155,
  // exponent -1 + 15 = 14 -> 0x3800 | 0x155 = 0x3955; -1/3 = 1.3333 * 2^-2 -> 0x3400 | 0x155
  // with the sign bit = 0xB555; 3 -> 0x4200.
  Node n{"HardSwish", "hh", {typed(dtype::kFloat16, {3})}, {typed(dtype::kFloat16, {3})}, {}};
  EXPECT_EQ(as<uint16_t>(run_raw(n, {bytes_of<uint16_t>({0x3C00, 0xBC00, 0x4200})})),
            (std::vector<uint16_t>{0x3955, 0xB555, 0x4200}));
}

TEST(StandaloneActivations, SharedRules) {
  for (const char* type : {"Sigmoid", "Tanh", "Gelu", "HardSwish"}) {
    SCOPED_TRACE(type);
    Node ok{type, "a", {f32({2, 3})}, {f32({2, 3})}, {}};
    EXPECT_TRUE(ok.prepare().ok());
    Node param = ok;
    param.params = {f32_param("alpha", 1)};
    EXPECT_STATUS(param.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'alpha'");
    Node shape = ok;
    shape.outputs[0] = f32({3, 2});
    EXPECT_STATUS(shape.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 3, expected 2");
    Node type_bad = ok;
    type_bad.outputs[0] = bool8({2, 3});
    EXPECT_STATUS(type_bad.prepare(), StatusCode::kUnsupported, "out[0] data type is BOOL_8");
    Node two_in = ok;
    two_in.inputs.push_back(f32({2, 3}));
    EXPECT_STATUS(two_in.prepare(), StatusCode::kInvalidArgument, "has 2 inputs, expected 1");
  }
}

TEST(StandaloneActivations, QuantizedTanhAndGelu) {
  // in UFIXED_8 scale 0.25 offset -128: q {128, 132} -> {0, 1}
  // Tanh -> {0, 0.7615942}; out UFIXED_8 scale 1/128 offset -128:
  //   q = round(y * 128) + 128 = {128, round(97.484) + 128 = 225}
  Node t{"Tanh", "qt", {ufixed8({2}, 0.25f, -128)}, {ufixed8({2}, 1.0f / 128, -128)}, {}};
  EXPECT_EQ(run_raw(t, {{128, 132}}), (std::vector<uint8_t>{128, 225}));
  // Gelu(1) = 0.8413447 -> round(107.692) + 128 = 236
  Node g{"Gelu", "qg", {ufixed8({2}, 0.25f, -128)}, {ufixed8({2}, 1.0f / 128, -128)}, {}};
  EXPECT_EQ(run_raw(g, {{128, 132}}), (std::vector<uint8_t>{128, 236}));
}

}  // namespace
}  // namespace opstest
