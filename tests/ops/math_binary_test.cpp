// ElementWiseSubtract/Divide/Maximum/Minimum, the generic ElementWiseBinary
// (all 20 operations) and Prelu. Expected values are worked out by hand in
// the comments, or (random shapes) by an independent index mapping.
#include <cmath>
#include <cstring>
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// ElementWiseBinary `operation` codes (facts §4.2).
enum Op : uint32_t {
  ADD = 0, AND, DIVIDE, EQUAL, FLOOR_DIV, FMOD, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL,
  MAXIMUM, MINIMUM, MOD, MULTIPLY, NOT_EQUAL, OR, POWER, SQUARED_DIFFERENCE, SUBTRACT, XOR,
};

Node binary(uint32_t op, TensorDesc a, TensorDesc b, TensorDesc y) {
  return Node{"ElementWiseBinary", "bin", {std::move(a), std::move(b)}, {std::move(y)}, {u32_param("operation", op)}};
}

void expect_floats(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i << ": got " << got[i];
    } else {
      EXPECT_FLOAT_EQ(got[i], want[i]) << what << " at " << i;
    }
  }
}

// --- the typed ops ---

TEST(ElementWiseSubtract, HandComputedBroadcast) {
  // [2,1] - [1,3] -> [2,3]: out[r][c] = a[r] - b[c]; a = {10, 20}, b = {1, 2, 3}
  Node n{"ElementWiseSubtract", "sub", {f32({2, 1}), f32({1, 3})}, {f32({2, 3})}, {}};
  std::vector<float> a{10, 20}, b{1, 2, 3};
  EXPECT_EQ(n.run({&a, &b}), (std::vector<float>{9, 8, 7, 19, 18, 17}));
  // Order matters: in[0] - in[1], not the reverse.
  Node r{"ElementWiseSubtract", "sub", {f32({3}), f32({1})}, {f32({3})}, {}};
  std::vector<float> x{1, 2, 3}, y{5};
  EXPECT_EQ(r.run({&x, &y}), (std::vector<float>{-4, -3, -2}));
}

TEST(ElementWiseDivide, HandComputedWithZeroDivisor) {
  // {3, -6, 1, 0} / {2, 4, 0, 0}: 1.5, -1.5, +inf, 0/0 = NaN (IEEE).
  Node n{"ElementWiseDivide", "div", {f32({4}), f32({4})}, {f32({4})}, {}};
  std::vector<float> a{3, -6, 1, 0}, b{2, 4, 0, 0};
  expect_floats(n.run({&a, &b}), {1.5f, -1.5f, kInf, kNaN}, "divide");
}

TEST(ElementWiseMaximumMinimum, HandComputedBroadcastAndNaN) {
  // [2,2] vs [2]: columns compared with b = {0, 5}. a = {-1, 7, 3, NaN}.
  // max: {0, 7, 3, NaN}, min: {-1, 5, 0, NaN}; NaN propagates as in numpy.
  std::vector<float> a{-1, 7, 3, kNaN}, b{0, 5};
  Node mx{"ElementWiseMaximum", "mx", {f32({2, 2}), f32({2})}, {f32({2, 2})}, {}};
  Node mn{"ElementWiseMinimum", "mn", {f32({2, 2}), f32({2})}, {f32({2, 2})}, {}};
  expect_floats(mx.run({&a, &b}), {0, 7, 3, kNaN}, "max");
  expect_floats(mn.run({&a, &b}), {-1, 5, 0, kNaN}, "min");
  // NaN on the right-hand side propagates too.
  std::vector<float> c{1, 2, 3, 4}, d{kNaN, 0};
  expect_floats(mx.run({&c, &d}), {kNaN, 2, kNaN, 4}, "max nan rhs");
}

// Independent broadcasting: decompose each output flat index by div/mod,
// clamp broadcast axes to 0, re-linearise by Horner's rule.
size_t source_index(size_t flat, const std::vector<uint32_t>& out, const std::vector<uint32_t>& in) {
  std::vector<size_t> idx(out.size());
  for (size_t ax = out.size(); ax-- > 0;) {
    idx[ax] = flat % out[ax];
    flat /= out[ax];
  }
  size_t src = 0;
  const size_t lead = out.size() - in.size();
  for (size_t j = 0; j < in.size(); ++j) src = src * in[j] + (in[j] == 1 ? 0 : idx[lead + j]);
  return src;
}

template <typename Fn>
void random_broadcast(const char* type, uint32_t seed, Fn fn) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 100; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 5);
    std::vector<uint32_t> out(rank);
    for (auto& d : out) d = rand_int(rng, 2, 4);
    // Each input keeps a random suffix of the output dims, some set to 1.
    auto make_input = [&]() {
      std::vector<uint32_t> in(out.end() - rand_int(rng, 0, rank), out.end());
      for (auto& d : in) if (rand_int(rng, 0, 2) == 0) d = 1;
      return in;
    };
    std::vector<uint32_t> da = make_input(), db = make_input();
    // Expected output dims: per trailing axis the larger of the two (1 if absent).
    std::vector<uint32_t> dy(std::max(da.size(), db.size()));
    for (size_t k = 1; k <= dy.size(); ++k) {
      const uint32_t x = k <= da.size() ? da[da.size() - k] : 1;
      const uint32_t y = k <= db.size() ? db[db.size() - k] : 1;
      dy[dy.size() - k] = std::max(x, y);
    }
    if (dy.empty()) continue;
    Node n{type, "bc", {f32(da), f32(db)}, {f32(dy)}, {}};
    std::vector<float> a = random_floats(rng, count(da)), b = random_floats(rng, count(db), 0.5f, 2.0f);
    std::vector<float> got = n.run({&a, &b});
    ASSERT_EQ(got.size(), count(dy));
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], fn(a[source_index(i, dy, da)], b[source_index(i, dy, db)])) << type << " iter " << iter;
    }
  }
}

TEST(ElementWiseSubtract, RandomBroadcastShapes) {
  random_broadcast("ElementWiseSubtract", 11, [](float a, float b) { return a - b; });
}
TEST(ElementWiseDivide, RandomBroadcastShapes) {
  random_broadcast("ElementWiseDivide", 12, [](float a, float b) { return a / b; });
}
TEST(ElementWiseMaximum, RandomBroadcastShapes) {
  random_broadcast("ElementWiseMaximum", 13, [](float a, float b) { return a > b ? a : b; });
}
TEST(ElementWiseMinimum, RandomBroadcastShapes) {
  random_broadcast("ElementWiseMinimum", 14, [](float a, float b) { return a < b ? a : b; });
}

TEST(ElementWiseTypedRules, ShapeTypeAndParams) {
  for (const char* type : {"ElementWiseSubtract", "ElementWiseDivide", "ElementWiseMaximum", "ElementWiseMinimum"}) {
    SCOPED_TRACE(type);
    Node ok{type, "t", {f32({2, 3}), f32({3})}, {f32({2, 3})}, {}};
    EXPECT_TRUE(ok.prepare().ok());
    Node bad_bc = ok;
    bad_bc.inputs[1] = f32({2});
    EXPECT_STATUS(bad_bc.prepare(), StatusCode::kInvalidArgument, "in[0] dim 1 is 3", "in[1] dim 0 is 2",
                  "not broadcastable");
    Node bad_out = ok;
    bad_out.outputs[0] = f32({2, 2});
    EXPECT_STATUS(bad_out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 2, expected 3");
    Node bool_out = ok;
    bool_out.outputs[0] = bool8({2, 3});
    EXPECT_STATUS(bool_out.prepare(), StatusCode::kUnsupported, "out[0] data type is BOOL_8");
    Node param = ok;
    param.params = {u32_param("operation", 0)};
    EXPECT_STATUS(param.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'operation'");
    Node rank6{type, "t", {f32({1, 1, 1, 1, 2, 2}), f32({2})}, {f32({1, 1, 1, 1, 2, 2})}, {}};
    EXPECT_STATUS(rank6.prepare(), StatusCode::kUnsupported, "in[0] rank is 6");
  }
}

TEST(ElementWiseSubtract, QuantizedUfixed8) {
  // in0 UFIXED_8 scale 0.5 offset -10: q {30, 10, 50, 255} -> real {10, 0, 20, 122.5}
  // in1 UFIXED_8 scale 0.25 offset 0, dims [1]: q {8} -> real 2
  // real out = {8, -2, 18, 120.5}
  // out UFIXED_8 scale 0.125 offset -64: q = round(real / 0.125) + 64
  //   = {64+64, -16+64, 144+64, 964+64 -> saturates at 255} = {128, 48, 208, 255}
  Node n{"ElementWiseSubtract", "qsub", {ufixed8({4}, 0.5f, -10), ufixed8({1}, 0.25f, 0)}, {ufixed8({4}, 0.125f, -64)}, {}};
  const auto y = run_raw(n, {{30, 10, 50, 255}, {8}});
  EXPECT_EQ(y, (std::vector<uint8_t>{128, 48, 208, 255}));
}

TEST(ElementWiseDivide, Float16) {
  // half bits: 1.0 = 0x3C00, 3.0 = 0x4200, -1.0 = 0xBC00, 2.0 = 0x4000,
  // 0.5 = 0x3800, 1.5 = 0x3E00, -0.5 = 0xB800.  {1, 3, -1} / 2 = {0.5, 1.5, -0.5}
  Node n{"ElementWiseDivide", "hdiv", {typed(dtype::kFloat16, {3}), typed(dtype::kFloat16, {1})},
         {typed(dtype::kFloat16, {3})}, {}};
  const auto y = run_raw(n, {bytes_of<uint16_t>({0x3C00, 0x4200, 0xBC00}), bytes_of<uint16_t>({0x4000})});
  EXPECT_EQ(as<uint16_t>(y), (std::vector<uint16_t>{0x3800, 0x3E00, 0xB800}));
}

// --- ElementWiseBinary ---

TEST(ElementWiseBinary, ArithmeticOperationsByHand) {
  // a = {7, -7, 7, -7, 2.5, 0}, b = {2, 2, -2, -2, 2, 3}
  const std::vector<float> a{7, -7, 7, -7, 2.5f, 0}, b{2, 2, -2, -2, 2, 3};
  struct Case {
    uint32_t op;
    std::vector<float> want;
  };
  const Case cases[] = {
      {ADD, {9, -5, 5, -9, 4.5f, 3}},
      {SUBTRACT, {5, -9, 9, -5, 0.5f, -3}},
      {MULTIPLY, {14, -14, -14, 14, 5, 0}},
      {DIVIDE, {3.5f, -3.5f, -3.5f, 3.5f, 1.25f, 0}},
      // floor(a / b): floor(3.5)=3, floor(-3.5)=-4, ...
      {FLOOR_DIV, {3, -4, -4, 3, 1, 0}},
      // C fmod: sign of the dividend.
      {FMOD, {1, -1, 1, -1, 0.5f, 0}},
      // numpy mod: sign of the divisor. -7 mod 2 = 1 (-7 = 2*-4 + 1); 7 mod -2 = -1 (7 = -2*-3 - 1).
      {MOD, {1, 1, -1, -1, 0.5f, 0}},
      {MAXIMUM, {7, 2, 7, -2, 2.5f, 3}},
      {MINIMUM, {2, -7, -2, -7, 2, 0}},
      // 7^2, (-7)^2, 7^-2 = 1/49, (-7)^-2 = 1/49, 2.5^2, 0^3
      {POWER, {49, 49, 1.0f / 49, 1.0f / 49, 6.25f, 0}},
      // (a-b)^2: 5^2, 9^2, 9^2, 5^2, 0.5^2, 3^2
      {SQUARED_DIFFERENCE, {25, 81, 81, 25, 0.25f, 9}},
  };
  for (const Case& c : cases) {
    Node n = binary(c.op, f32({6}), f32({6}), f32({6}));
    std::vector<float> x = a, y = b;
    expect_floats(n.run({&x, &y}), c.want, "operation " + std::to_string(c.op));
  }
}

TEST(ElementWiseBinary, FloorDivAndModFollowNumpy) {
  // 1 // 0.1f: numpy/Python give 9, since 0.1f is slightly above 0.1 and
  // 1 = 9 * 0.1f + 0.09999999. Naive floor(1.0f / 0.1f) would be 10, because
  // the float quotient rounds up to exactly 10.
  Node fd = binary(FLOOR_DIV, f32({1}), f32({1}), f32({1}));
  std::vector<float> one{1.0f}, tenth{0.1f};
  EXPECT_EQ(fd.run({&one, &tenth}), (std::vector<float>{9.0f}));
  // Division by zero: FLOOR_DIV gives the IEEE quotient, MOD/FMOD NaN.
  std::vector<float> a{3, -3}, z{0, 0};
  Node fd2 = binary(FLOOR_DIV, f32({2}), f32({2}), f32({2}));
  expect_floats(fd2.run({&a, &z}), {kInf, -kInf}, "floor_div by 0");
  Node md = binary(MOD, f32({2}), f32({2}), f32({2}));
  expect_floats(md.run({&a, &z}), {kNaN, kNaN}, "mod by 0");
  // -0.5 mod 3 = 2.5; 0.5 mod -3 = -2.5; 3 mod 1.5 = 0.
  std::vector<float> x{-0.5f, 0.5f, 3}, y{3, -3, 1.5f};
  Node md3 = binary(MOD, f32({3}), f32({3}), f32({3}));
  expect_floats(md3.run({&x, &y}), {2.5f, -2.5f, 0}, "mod");
  Node fd3 = binary(FLOOR_DIV, f32({3}), f32({3}), f32({3}));
  expect_floats(fd3.run({&x, &y}), {-1, -1, 2}, "floor_div");
}

TEST(ElementWiseBinary, ComparisonsOutputBool8WithBroadcast) {
  // a [2,3] = {1,2,3, 4,5,6} against b [2,1] = {2, 5}: row 0 compares with 2, row 1 with 5.
  const auto a = bytes_of<float>({1, 2, 3, 4, 5, 6}), b = bytes_of<float>({2, 5});
  struct Case {
    uint32_t op;
    std::vector<uint8_t> want;
  };
  const Case cases[] = {
      {EQUAL, {0, 1, 0, 0, 1, 0}},         {NOT_EQUAL, {1, 0, 1, 1, 0, 1}},
      {GREATER, {0, 0, 1, 0, 0, 1}},       {GREATER_EQUAL, {0, 1, 1, 0, 1, 1}},
      {LESS, {1, 0, 0, 1, 0, 0}},          {LESS_EQUAL, {1, 1, 0, 1, 1, 0}},
  };
  for (const Case& c : cases) {
    Node n = binary(c.op, f32({2, 3}), f32({2, 1}), bool8({2, 3}));
    EXPECT_EQ(run_raw(n, {a, b}), c.want) << "operation " << c.op;
  }
}

TEST(ElementWiseBinary, LogicalOnBool8AndFloat) {
  // Truth table over a = {0,0,1,1}, b = {0,1,0,1}.
  struct Case {
    uint32_t op;
    std::vector<uint8_t> want;
  };
  const Case cases[] = {{AND, {0, 0, 0, 1}}, {OR, {0, 1, 1, 1}}, {XOR, {0, 1, 1, 0}}};
  for (const Case& c : cases) {
    Node n = binary(c.op, bool8({4}), bool8({4}), bool8({4}));
    EXPECT_EQ(run_raw(n, {{0, 0, 1, 1}, {0, 1, 0, 1}}), c.want) << "bool operation " << c.op;
    // Float inputs: any non-zero value is true (-0.5 and 2 true, 0 false).
    Node f = binary(c.op, f32({4}), f32({4}), bool8({4}));
    EXPECT_EQ(run_raw(f, {bytes_of<float>({0, 0, -0.5f, 2}), bytes_of<float>({0, 3, 0, 1})}), c.want)
        << "float operation " << c.op;
  }
  // Broadcast a bool scalar-like [1] over [3].
  Node bc = binary(AND, bool8({3}), bool8({1}), bool8({3}));
  EXPECT_EQ(run_raw(bc, {{1, 0, 1}, {1}}), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(ElementWiseBinary, ArithmeticBroadcast) {
  // POWER [3,1] ^ [2] -> [3,2]: a = {1, 2, 3}, b = {2, 3} -> {1,1, 4,8, 9,27}
  Node n = binary(POWER, f32({3, 1}), f32({2}), f32({3, 2}));
  std::vector<float> a{1, 2, 3}, b{2, 3};
  expect_floats(n.run({&a, &b}), {1, 1, 4, 8, 9, 27}, "power broadcast");
}

TEST(ElementWiseBinary, OperationParameterRules) {
  Node n = binary(ADD, f32({2}), f32({2}), f32({2}));
  n.params.clear();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "ElementWiseBinary 'bin'",
                "mandatory parameter 'operation' is missing");
  n.params = {u32_param("operation", 20)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'operation' is 20");
  n.params = {u32_param("operation", 12345)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'operation' is 12345");
  n.params = {u32_param("operation", 0), f32_param("alpha", 1)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'alpha'");
  n.params = {u32_param("operation", XOR)};
  n.outputs[0] = bool8({2});
  EXPECT_TRUE(n.prepare().ok());
}

TEST(ElementWiseBinary, OutputTypeAndShapeRules) {
  // Arithmetic into BOOL_8 is wrong.
  EXPECT_STATUS(binary(ADD, f32({2}), f32({2}), bool8({2})).prepare(), StatusCode::kInvalidArgument,
                "out[0] data type is BOOL_8", "ADD outputs numbers");
  // Comparison / logical into float is wrong.
  EXPECT_STATUS(binary(GREATER, f32({2}), f32({2}), f32({2})).prepare(), StatusCode::kInvalidArgument,
                "out[0] data type is a float type, expected BOOL_8", "GREATER");
  EXPECT_STATUS(binary(OR, bool8({2}), bool8({2}), f32({2})).prepare(), StatusCode::kInvalidArgument,
                "expected BOOL_8", "OR");
  // Comparison into an integer type is wrong too.
  EXPECT_STATUS(binary(EQUAL, f32({2}), f32({2}), typed(dtype::kInt32, {2})).prepare(),
                StatusCode::kInvalidArgument, "out[0] data type is INT_32, expected BOOL_8");
  // BOOL_8 inputs only for AND/OR/XOR.
  EXPECT_STATUS(binary(EQUAL, bool8({2}), bool8({2}), bool8({2})).prepare(), StatusCode::kUnsupported,
                "in[0] data type is BOOL_8", "only AND, OR, XOR");
  EXPECT_STATUS(binary(ADD, f32({2}), bool8({2}), f32({2})).prepare(), StatusCode::kUnsupported,
                "in[1] data type is BOOL_8");
  // Logical inputs must agree.
  EXPECT_STATUS(binary(AND, bool8({2}), f32({2}), bool8({2})).prepare(), StatusCode::kUnsupported,
                "in[0] is BOOL_8 but in[1] is not BOOL_8");
  // Shapes: wrong output dims, non-broadcastable inputs, rank 6.
  EXPECT_STATUS(binary(LESS, f32({2, 3}), f32({3}), bool8({3, 2})).prepare(), StatusCode::kInvalidArgument,
                "out[0] dim 0 is 3, expected 2");
  EXPECT_STATUS(binary(AND, bool8({2, 3}), bool8({2}), bool8({2, 3})).prepare(), StatusCode::kInvalidArgument,
                "not broadcastable");
  EXPECT_STATUS(binary(MOD, f32({1, 1, 1, 1, 1, 2}), f32({2}), f32({1, 1, 1, 1, 1, 2})).prepare(),
                StatusCode::kUnsupported, "in[0] rank is 6");
  // BOOL_8 tensors obey the same dims rules as float ones.
  EXPECT_STATUS(binary(XOR, bool8({2, 0}), bool8({2, 0}), bool8({2, 0})).prepare(), StatusCode::kInvalidArgument,
                "in[0] dim 1 is 0");
}

TEST(ElementWiseBinary, QuantizedComparisonUsesRealValues) {
  // in0 UFIXED_8 scale 0.5 offset 0: q {4, 6, 8} -> {2, 3, 4}
  // in1 UFIXED_8 scale 1.0 offset -1: q {4} -> (4 - 1) * 1 = 3
  // GREATER: {0, 0, 1}; EQUAL: {0, 1, 0} (raw 6 vs 4 differ, but both are 3.0).
  for (auto [op, want] : {std::pair{uint32_t{GREATER}, std::vector<uint8_t>{0, 0, 1}},
                          std::pair{uint32_t{EQUAL}, std::vector<uint8_t>{0, 1, 0}}}) {
    Node n = binary(op, ufixed8({3}, 0.5f, 0), ufixed8({1}, 1.0f, -1), bool8({3}));
    EXPECT_EQ(run_raw(n, {{4, 6, 8}, {4}}), want) << "operation " << op;
  }
}

TEST(ElementWiseBinary, QuantizedArithmetic) {
  // SQUARED_DIFFERENCE, in0 UFIXED_8 scale 0.25 offset -8: q {8, 16, 20} -> {0, 2, 3}
  // in1 same encoding, q {12} -> 1.  (a-b)^2 = {1, 1, 4}
  // out UFIXED_8 scale 0.5 offset 0 -> q {2, 2, 8}
  Node n = binary(SQUARED_DIFFERENCE, ufixed8({3}, 0.25f, -8), ufixed8({1}, 0.25f, -8), ufixed8({3}, 0.5f, 0));
  EXPECT_EQ(run_raw(n, {{8, 16, 20}, {12}}), (std::vector<uint8_t>{2, 2, 8}));
}

TEST(ElementWiseBinary, Float16ModAndFmod) {
  // half: 3 = 0x4200, -3 = 0xC200, 2 = 0x4000, 1 = 0x3C00, -1 = 0xBC00.
  // MOD(3, 2) = 1, MOD(-3, 2) = 1; FMOD(3, 2) = 1, FMOD(-3, 2) = -1.
  const auto a = bytes_of<uint16_t>({0x4200, 0xC200}), b = bytes_of<uint16_t>({0x4000});
  const TensorDesc h2 = typed(dtype::kFloat16, {2}), h1 = typed(dtype::kFloat16, {1});
  EXPECT_EQ(as<uint16_t>(run_raw(binary(MOD, h2, h1, h2), {a, b})), (std::vector<uint16_t>{0x3C00, 0x3C00}));
  EXPECT_EQ(as<uint16_t>(run_raw(binary(FMOD, h2, h1, h2), {a, b})), (std::vector<uint16_t>{0x3C00, 0xBC00}));
  // A half comparison still outputs BOOL_8: 3 >= 2, -3 >= 2 -> {1, 0}.
  EXPECT_EQ(run_raw(binary(GREATER_EQUAL, h2, h1, bool8({2})), {a, b}), (std::vector<uint8_t>{1, 0}));
}

// --- Prelu ---

TEST(Prelu, HandComputedPerChannel) {
  // x [2,3] = {-1, 2, -3, 4, -5, 6}, alpha [3] = {0.5, 0.25, 2} (per last axis)
  // negative entries scaled: -1*0.5, -3*2, -5*0.25 -> {-0.5, 2, -6, 4, -1.25, 6}
  Node n{"Prelu", "p", {f32({2, 3}), f32({3})}, {f32({2, 3})}, {}};
  std::vector<float> x{-1, 2, -3, 4, -5, 6}, alpha{0.5f, 0.25f, 2};
  EXPECT_EQ(n.run({&x, &alpha}), (std::vector<float>{-0.5f, 2, -6, 4, -1.25f, 6}));
}

TEST(Prelu, BroadcastAlongOtherAxes) {
  // alpha [2,1] = {0.5, 2}: row 0 uses 0.5, row 1 uses 2.
  //   x = {-1, 2, -3, 4, -5, 6} -> {-0.5, 2, -1.5, 4, -10, 6}
  Node n{"Prelu", "p", {f32({2, 3}), f32({2, 1})}, {f32({2, 3})}, {}};
  std::vector<float> x{-1, 2, -3, 4, -5, 6}, alpha{0.5f, 2};
  EXPECT_EQ(n.run({&x, &alpha}), (std::vector<float>{-0.5f, 2, -1.5f, 4, -10, 6}));
  // A single coefficient [1] applies everywhere; NaN passes through.
  Node s{"Prelu", "p", {f32({1, 1, 2, 2})}, {f32({1, 1, 2, 2})}, {}};
  s.inputs.push_back(f32({1}));
  std::vector<float> x2{-4, 0, kNaN, 3}, a2{0.25f};
  expect_floats(s.run({&x2, &a2}), {-1, 0, kNaN, 3}, "prelu scalar alpha");
}

TEST(Prelu, Rules) {
  // Coefficients must broadcast *to* in[0], never widen it.
  Node widen{"Prelu", "p", {f32({1, 3}), f32({3, 3})}, {f32({3, 3})}, {}};
  EXPECT_STATUS(widen.prepare(), StatusCode::kInvalidArgument, "in[1] (coefficients) dims [3,3]",
                "do not broadcast to in[0] dims [1,3]");
  Node mismatch{"Prelu", "p", {f32({2, 3}), f32({2})}, {f32({2, 3})}, {}};
  EXPECT_STATUS(mismatch.prepare(), StatusCode::kInvalidArgument, "dims [2] do not broadcast");
  Node higher{"Prelu", "p", {f32({3}), f32({1, 3})}, {f32({3})}, {}};
  EXPECT_STATUS(higher.prepare(), StatusCode::kInvalidArgument, "do not broadcast to in[0] dims [3]");
  Node out{"Prelu", "p", {f32({2, 3}), f32({3})}, {f32({3, 2})}, {}};
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 3, expected 2");
  Node rank5{"Prelu", "p", {f32({1, 1, 1, 2, 3}), f32({3})}, {f32({1, 1, 1, 2, 3})}, {}};
  EXPECT_STATUS(rank5.prepare(), StatusCode::kUnsupported, "in[0] rank is 5, expected 1 to 4");
  Node one_input{"Prelu", "p", {f32({3})}, {f32({3})}, {}};
  EXPECT_STATUS(one_input.prepare(), StatusCode::kInvalidArgument, "has 1 inputs, expected 2");
  Node out_type{"Prelu", "p", {f32({3}), f32({3})}, {bool8({3})}, {}};
  EXPECT_STATUS(out_type.prepare(), StatusCode::kUnsupported, "out[0] data type is BOOL_8");
}

TEST(Prelu, QuantizedUfixed8) {
  // x UFIXED_8 scale 0.5 offset -128: q {120, 128, 140, 100} -> {-4, 0, 6, -14}
  // alpha UFIXED_8 scale 0.125 offset 0: q {2} -> 0.25
  // y = {-1, 0, 6, -3.5}; out UFIXED_8 scale 0.25 offset -20: q = y/0.25 + 20 = {16, 20, 44, 6}
  Node n{"Prelu", "qp", {ufixed8({4}, 0.5f, -128), ufixed8({1}, 0.125f, 0)}, {ufixed8({4}, 0.25f, -20)}, {}};
  EXPECT_EQ(run_raw(n, {{120, 128, 140, 100}, {2}}), (std::vector<uint8_t>{16, 20, 44, 6}));
}

TEST(Prelu, Float16) {
  // half: -4 = 0xC400, 1 = 0x3C00; alpha 0.5 = 0x3800; y = {-2 = 0xC000, 1 = 0x3C00}
  Node n{"Prelu", "hp", {typed(dtype::kFloat16, {2}), typed(dtype::kFloat16, {1})}, {typed(dtype::kFloat16, {2})}, {}};
  EXPECT_EQ(as<uint16_t>(run_raw(n, {bytes_of<uint16_t>({0xC400, 0x3C00}), bytes_of<uint16_t>({0x3800})})),
            (std::vector<uint16_t>{0xC000, 0x3C00}));
}

}  // namespace
}  // namespace opstest
