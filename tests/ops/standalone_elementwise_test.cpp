// The standalone element-wise ops (ElementWiseAbs, ElementWiseLog, ...,
// ElementWiseEqual, ElementWisePower, ...): each is ElementWiseUnary or
// ElementWiseBinary with the operation implied by its name and no
// parameters. Expected values come from the formula written here, evaluated
// in double with <cmath>, or are worked by hand in the comments.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

// Prepares (must succeed), runs on raw buffers, returns out[0]'s bytes.
std::vector<uint8_t> run_bytes(const Node& n, const std::vector<const void*>& ins) {
  std::unique_ptr<OpKernel> kernel;
  const Status s = n.prepare(&kernel);
  EXPECT_TRUE(s.ok()) << n.type << ": " << s.message;
  if (!s.ok() || !kernel) return {};
  std::vector<uint8_t> out(n.outputs[0].num_bytes(), 0xAA);
  std::vector<void*> out_ptrs{out.data()};
  kernel->run(ins, out_ptrs);
  return out;
}

// got must be within a few float ulps of the double-precision want (exact
// for infinities, and for the integer-valued results where want is exact).
void expect_close(float got, double want, const std::string& what) {
  if (std::isinf(want)) {
    EXPECT_EQ(double{got}, want) << what;
    return;
  }
  EXPECT_NEAR(got, want, 2.5e-7 * std::fabs(want) + 1e-7) << what;
}

struct UnaryCase {
  const char* type;
  std::vector<float> x;
  std::function<double(double)> f;
};

std::vector<UnaryCase> unary_cases() {
  const std::vector<float> general = {-3.75f, -2.5f, -1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 2.5f, 7.0f};
  const std::vector<float> unit = {-1.0f, -0.75f, -0.5f, 0.0f, 0.3f, 0.9f, 1.0f};
  const std::vector<float> positive = {0.0f, 0.25f, 1.0f, 2.0f, 4.0f, 10.0f, 1e-6f};
  // .5 cases either way, and non-integers of both signs.
  const std::vector<float> rounding = {-2.5f, -1.5f, -1.2f, -0.5f, -0.2f, 0.0f, 0.5f, 0.7f, 1.5f, 2.5f, 3.3f};
  return {
      {"ElementWiseAbs", general, [](double v) { return std::fabs(v); }},
      {"ElementWiseAsin", unit, [](double v) { return std::asin(v); }},
      {"ElementWiseAtan", general, [](double v) { return std::atan(v); }},
      {"ElementWiseCeil", rounding, [](double v) { return std::ceil(v); }},
      {"ElementWiseCos", general, [](double v) { return std::cos(v); }},
      {"ElementWiseExp", general, [](double v) { return std::exp(v); }},
      {"ElementWiseFloor", rounding, [](double v) { return std::floor(v); }},
      // log(0) = -inf, log(1) = 0.
      {"ElementWiseLog", positive, [](double v) { return std::log(v); }},
      {"ElementWiseNeg", general, [](double v) { return -v; }},
      // Half to even: -2.5 -> -2, -1.5 -> -2, -0.5 -> -0, 0.5 -> 0, 1.5 -> 2, 2.5 -> 2.
      // nearbyint in the default rounding mode (to nearest, ties to even).
      {"ElementWiseRound", rounding, [](double v) { return std::nearbyint(v); }},
      // rsqrt(0) = +inf.
      {"ElementWiseRsqrt", positive, [](double v) { return 1.0 / std::sqrt(v); }},
      {"ElementWiseSign", general, [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; }},
      {"ElementWiseSin", general, [](double v) { return std::sin(v); }},
      {"ElementWiseSquareRoot", positive, [](double v) { return std::sqrt(v); }},
  };
}

TEST(StandaloneUnary, MatchesTheFormulaInFloat32) {
  for (const UnaryCase& c : unary_cases()) {
    const uint32_t n = static_cast<uint32_t>(c.x.size());
    Node node{c.type, "n1", {f32({1, n})}, {f32({1, n})}, {}};
    const std::vector<float> got = node.run({&c.x});
    ASSERT_EQ(got.size(), c.x.size()) << c.type;
    for (size_t i = 0; i < c.x.size(); ++i) {
      expect_close(got[i], c.f(c.x[i]), std::string(c.type) + " of " + std::to_string(c.x[i]));
    }
  }
}

TEST(StandaloneUnary, HandWorkedEdgeValues) {
  auto run1 = [](const char* type, std::vector<float> x) {
    Node node{type, "n1", {f32({static_cast<uint32_t>(x.size())})}, {f32({static_cast<uint32_t>(x.size())})}, {}};
    return node.run({&x});
  };
  EXPECT_EQ(run1("ElementWiseRound", {-2.5f, -1.5f, 0.5f, 1.5f, 2.5f}),
            (std::vector<float>{-2.0f, -2.0f, 0.0f, 2.0f, 2.0f}));
  EXPECT_EQ(run1("ElementWiseFloor", {-1.5f, -0.5f, 0.5f, 1.5f}), (std::vector<float>{-2.0f, -1.0f, 0.0f, 1.0f}));
  EXPECT_EQ(run1("ElementWiseCeil", {-1.5f, -0.5f, 0.5f, 1.5f}), (std::vector<float>{-1.0f, -0.0f, 1.0f, 2.0f}));
  EXPECT_EQ(run1("ElementWiseSign", {-7.0f, -0.0f, 0.0f, 3.0f}), (std::vector<float>{-1.0f, 0.0f, 0.0f, 1.0f}));
  EXPECT_EQ(run1("ElementWiseAbs", {-7.0f, -0.5f, 0.0f, 3.0f}), (std::vector<float>{7.0f, 0.5f, 0.0f, 3.0f}));
  const std::vector<float> log = run1("ElementWiseLog", {0.0f, 1.0f});
  EXPECT_EQ(log[0], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(log[1], 0.0f);
  EXPECT_TRUE(std::isnan(run1("ElementWiseLog", {-1.0f})[0]));
  EXPECT_EQ(run1("ElementWiseRsqrt", {4.0f, 0.25f}), (std::vector<float>{0.5f, 2.0f}));
  EXPECT_EQ(run1("ElementWiseSquareRoot", {9.0f, 0.0f}), (std::vector<float>{3.0f, 0.0f}));
}

TEST(StandaloneUnary, NotMapsBool8ToBool8) {
  Node node{"ElementWiseNot", "n1", {typed(dtype::kBool8, {4})}, {typed(dtype::kBool8, {4})}, {}};
  const std::vector<uint8_t> x = {0, 1, 1, 0};
  EXPECT_EQ(run_bytes(node, {x.data()}), (std::vector<uint8_t>{1, 0, 0, 1}));
  // A float input is not NOT's.
  Node f = node;
  f.inputs[0] = f32({4});
  EXPECT_STATUS(f.prepare(), StatusCode::kInvalidArgument, "in[0]", "expected BOOL_8");
}

TEST(StandaloneUnary, SameAsTheGenericOpWithItsOperation) {
  // ABS 0 .. SQRT 15 in ElementWiseUnary's numbering (RECIPROCAL 10 has no
  // standalone op).
  const std::pair<const char*, uint32_t> pairs[] = {
      {"ElementWiseAbs", 0}, {"ElementWiseAtan", 2}, {"ElementWiseExp", 5},  {"ElementWiseRound", 11},
      {"ElementWiseSign", 13}, {"ElementWiseSin", 14}, {"ElementWiseNeg", 8}, {"ElementWiseCos", 4},
  };
  const std::vector<float> x = {-2.5f, -1.5f, -0.3f, 0.0f, 0.5f, 1.5f, 2.5f};
  for (const auto& [type, code] : pairs) {
    Node standalone{type, "n1", {f32({7})}, {f32({7})}, {}};
    Node generic{"ElementWiseUnary", "n1", {f32({7})}, {f32({7})}, {u32_param("operation", code)}};
    EXPECT_EQ(standalone.run({&x}), generic.run({&x})) << type;
  }
}

TEST(StandaloneUnary, RefusesAnOperationParameterAndWrongCounts) {
  for (const UnaryCase& c : unary_cases()) {
    Node node{c.type, "n1", {f32({3})}, {f32({3})}, {}};
    EXPECT_TRUE(node.prepare().ok()) << c.type << ": " << node.prepare().message;
    Node with_op = node;
    with_op.params.push_back(u32_param("operation", 0));
    EXPECT_STATUS(with_op.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'operation'", c.type);
    Node two_in = node;
    two_in.inputs.push_back(f32({3}));
    EXPECT_STATUS(two_in.prepare(), StatusCode::kInvalidArgument, "has 2 inputs");
    Node two_out = node;
    two_out.outputs.push_back(f32({3}));
    EXPECT_STATUS(two_out.prepare(), StatusCode::kInvalidArgument, "has 2 outputs, expected 1");
    Node wrong_shape = node;
    wrong_shape.outputs[0] = f32({4});
    EXPECT_STATUS(wrong_shape.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
}

TEST(StandaloneUnary, FixedPointAndFloat16GoThroughTheTypeAdapter) {
  auto ufixed8 = [](std::vector<uint32_t> dims, float scale, int32_t offset) {
    TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
    t.quant.present = true;
    t.quant.scale = scale;
    t.quant.offset = offset;
    return t;
  };
  // ABS: q {90, 100, 120} at scale 0.5 offset -100 is {-5, 0, 10} -> {5, 0, 10};
  // out scale 0.25 offset 0 -> q {20, 0, 40}.
  Node abs{"ElementWiseAbs", "n1", {ufixed8({3}, 0.5f, -100)}, {ufixed8({3}, 0.25f, 0)}, {}};
  const std::vector<uint8_t> q = {90, 100, 120};
  EXPECT_EQ(run_bytes(abs, {q.data()}), (std::vector<uint8_t>{20, 0, 40}));
  // SQRT in FLOAT_16: 4 = 0x4400 -> 2 = 0x4000; 0.25 = 0x3400 -> 0.5 = 0x3800.
  Node sqrt{"ElementWiseSquareRoot", "n1", {typed(dtype::kFloat16, {2})}, {typed(dtype::kFloat16, {2})}, {}};
  const std::vector<uint16_t> h = {0x4400, 0x3400};
  const std::vector<uint8_t> got = run_bytes(sqrt, {h.data()});
  ASSERT_EQ(got.size(), 4u);
  std::vector<uint16_t> hv(2);
  std::memcpy(hv.data(), got.data(), 4);
  EXPECT_EQ(hv, (std::vector<uint16_t>{0x4000, 0x3800}));
}

// --- binary ---

enum class Out { kFloat, kBool };

struct BinaryCase {
  const char* type;
  Out out;
  std::function<double(double, double)> f;
};

std::vector<BinaryCase> binary_cases() {
  auto t = [](double v) { return v != 0.0; };
  return {
      {"ElementWiseAnd", Out::kBool, [t](double a, double b) { return double(t(a) && t(b)); }},
      {"ElementWiseEqual", Out::kBool, [](double a, double b) { return double(a == b); }},
      {"ElementWiseFloorDiv", Out::kFloat, [](double a, double b) { return std::floor(a / b); }},
      {"ElementWiseFmod", Out::kFloat, [](double a, double b) { return std::fmod(a, b); }},
      {"ElementWiseGreater", Out::kBool, [](double a, double b) { return double(a > b); }},
      {"ElementWiseGreaterEqual", Out::kBool, [](double a, double b) { return double(a >= b); }},
      {"ElementWiseLess", Out::kBool, [](double a, double b) { return double(a < b); }},
      {"ElementWiseLessEqual", Out::kBool, [](double a, double b) { return double(a <= b); }},
      // Sign of the divisor: a - b * floor(a / b).
      {"ElementWiseMod", Out::kFloat, [](double a, double b) { return a - b * std::floor(a / b); }},
      {"ElementWiseNotEqual", Out::kBool, [](double a, double b) { return double(a != b); }},
      {"ElementWiseOr", Out::kBool, [t](double a, double b) { return double(t(a) || t(b)); }},
      {"ElementWisePower", Out::kFloat, [](double a, double b) { return std::pow(a, b); }},
      {"ElementWiseSquaredDifference", Out::kFloat, [](double a, double b) { return (a - b) * (a - b); }},
      {"ElementWiseXor", Out::kBool, [t](double a, double b) { return double(t(a) != t(b)); }},
  };
}

// Pairs chosen so every formula is defined and exact in float: both signs,
// equal operands, zero operands (not as divisors), .5 values.
const std::vector<float> kA = {7.0f, -7.0f, 7.0f, -7.0f, 5.5f, 2.0f, 0.0f, 3.0f, -1.5f, 2.0f};
const std::vector<float> kB = {2.0f, 2.0f, -2.0f, -2.0f, 2.0f, 2.0f, 4.0f, 0.5f, 3.0f, -3.0f};

TEST(StandaloneBinary, MatchesTheFormulaInFloat32) {
  const uint32_t n = static_cast<uint32_t>(kA.size());
  for (const BinaryCase& c : binary_cases()) {
    const TensorDesc y = c.out == Out::kBool ? typed(dtype::kBool8, {n}) : f32({n});
    Node node{c.type, "n1", {f32({n}), f32({n})}, {y}, {}};
    const std::vector<uint8_t> got = run_bytes(node, {kA.data(), kB.data()});
    ASSERT_EQ(got.size(), y.num_bytes()) << c.type;
    for (size_t i = 0; i < n; ++i) {
      const std::string what = std::string(c.type) + "(" + std::to_string(kA[i]) + ", " + std::to_string(kB[i]) + ")";
      const double want = c.f(kA[i], kB[i]);
      if (c.out == Out::kBool) {
        EXPECT_EQ(got[i], static_cast<uint8_t>(want)) << what;
      } else {
        float v = 0.0f;
        std::memcpy(&v, got.data() + 4 * i, 4);
        expect_close(v, want, what);
      }
    }
  }
}

TEST(StandaloneBinary, HandWorkedValuesAndBroadcast) {
  // FloorDiv / Mod / Fmod of +-7 by +-2, in[1] [2] broadcast over [2, 2]: the
  // pairs are (7, 2), (7, -2), (-7, 2), (-7, -2). 7//2 = 3, 7//-2 = -4,
  // -7//2 = -4, -7//-2 = 3; mod 1, -1, 1, -1 (divisor's sign); fmod 1, 1, -1,
  // -1 (dividend's sign).
  const std::vector<float> a = {7.0f, 7.0f, -7.0f, -7.0f};
  const std::vector<float> b = {2.0f, -2.0f};
  auto run = [&](const char* type) {
    Node node{type, "n1", {f32({2, 2}), f32({2})}, {f32({2, 2})}, {}};
    return node.run({&a, &b});
  };
  EXPECT_EQ(run("ElementWiseFloorDiv"), (std::vector<float>{3.0f, -4.0f, -4.0f, 3.0f}));
  EXPECT_EQ(run("ElementWiseMod"), (std::vector<float>{1.0f, -1.0f, 1.0f, -1.0f}));
  EXPECT_EQ(run("ElementWiseFmod"), (std::vector<float>{1.0f, 1.0f, -1.0f, -1.0f}));
  EXPECT_EQ(run("ElementWiseSquaredDifference"), (std::vector<float>{25.0f, 81.0f, 81.0f, 25.0f}));
  EXPECT_EQ(run("ElementWisePower"), (std::vector<float>{49.0f, 1.0f / 49.0f, 49.0f, 1.0f / 49.0f}));
}

TEST(StandaloneBinary, LogicalOpsTakeBool8AndIntegersComputeNatively) {
  const std::vector<uint8_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
  auto run_bool = [&](const char* type) {
    Node node{type, "n1", {typed(dtype::kBool8, {4}), typed(dtype::kBool8, {4})}, {typed(dtype::kBool8, {4})}, {}};
    return run_bytes(node, {a.data(), b.data()});
  };
  EXPECT_EQ(run_bool("ElementWiseAnd"), (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(run_bool("ElementWiseOr"), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(run_bool("ElementWiseXor"), (std::vector<uint8_t>{0, 1, 1, 0}));
  // INT_32: -7 // 2 = -4, 2^10 = 1024 (exact, no float rounding).
  const std::vector<int32_t> x = {-7, 2, 16777217}, y = {2, 10, 1};
  Node fd{"ElementWiseFloorDiv", "n1", {typed(dtype::kInt32, {3}), typed(dtype::kInt32, {3})},
          {typed(dtype::kInt32, {3})}, {}};
  std::vector<uint8_t> got = run_bytes(fd, {x.data(), y.data()});
  std::vector<int32_t> v(3);
  std::memcpy(v.data(), got.data(), 12);
  EXPECT_EQ(v, (std::vector<int32_t>{-4, 0, 16777217}));
  fd.type = "ElementWisePower";
  got = run_bytes(fd, {x.data(), y.data()});
  std::memcpy(v.data(), got.data(), 12);
  EXPECT_EQ(v, (std::vector<int32_t>{49, 1024, 16777217}));
}

TEST(StandaloneBinary, SameAsTheGenericOpWithItsOperation) {
  const std::pair<const char*, uint32_t> pairs[] = {
      {"ElementWiseFloorDiv", 4}, {"ElementWiseFmod", 5}, {"ElementWiseMod", 12},
      {"ElementWisePower", 16},   {"ElementWiseSquaredDifference", 17},
  };
  const uint32_t n = static_cast<uint32_t>(kA.size());
  for (const auto& [type, code] : pairs) {
    Node standalone{type, "n1", {f32({n}), f32({n})}, {f32({n})}, {}};
    Node generic{"ElementWiseBinary", "n1", {f32({n}), f32({n})}, {f32({n})}, {u32_param("operation", code)}};
    EXPECT_EQ(standalone.run({&kA, &kB}), generic.run({&kA, &kB})) << type;
  }
}

TEST(StandaloneBinary, RefusesAnOperationParameterWrongCountsAndTypes) {
  for (const BinaryCase& c : binary_cases()) {
    const TensorDesc y = c.out == Out::kBool ? typed(dtype::kBool8, {3}) : f32({3});
    Node node{c.type, "n1", {f32({3}), f32({3})}, {y}, {}};
    EXPECT_TRUE(node.prepare().ok()) << c.type << ": " << node.prepare().message;
    Node with_op = node;
    with_op.params.push_back(u32_param("operation", 0));
    EXPECT_STATUS(with_op.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'operation'", c.type);
    Node one_in = node;
    one_in.inputs.pop_back();
    EXPECT_STATUS(one_in.prepare(), StatusCode::kInvalidArgument, "has 1 inputs");
    Node three_in = node;
    three_in.inputs.push_back(f32({3}));
    EXPECT_STATUS(three_in.prepare(), StatusCode::kInvalidArgument, "has 3 inputs");
    // Comparisons and logic output booleans, arithmetic outputs numbers.
    Node wrong_out = node;
    wrong_out.outputs[0] = c.out == Out::kBool ? f32({3}) : typed(dtype::kBool8, {3});
    EXPECT_STATUS(wrong_out.prepare(), StatusCode::kInvalidArgument, "out[0]");
    Node no_broadcast = node;
    no_broadcast.inputs[1] = f32({2});
    EXPECT_STATUS(no_broadcast.prepare(), StatusCode::kInvalidArgument, "not broadcastable");
  }
}

}  // namespace
}  // namespace opstest
