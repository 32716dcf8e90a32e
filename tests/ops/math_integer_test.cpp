// Plain integer tensors (INT_8/16/32, UINT_8/16/32) in the element-wise ops,
// ReluMinMax, Relu and PoolMax2d: computed natively with C / numpy
// semantics. Every expected value is worked out by hand in the comments;
// several are chosen so that a float detour would get them wrong (int32
// values above 2^24, uint32 near 2^32).
#include <cstring>
#include <limits>
#include <type_traits>

#include "test_util.h"

namespace opstest {
namespace {

// ElementWiseBinary `operation` codes (facts §4.2).
enum Op : uint32_t {
  ADD = 0, AND, DIVIDE, EQUAL, FLOOR_DIV, FMOD, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL,
  MAXIMUM, MINIMUM, MOD, MULTIPLY, NOT_EQUAL, OR, POWER, SQUARED_DIFFERENCE, SUBTRACT, XOR,
};

// The QNN data type code of T.
template <typename T>
constexpr uint32_t code_of() {
  if constexpr (std::is_same_v<T, int8_t>) return dtype::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return dtype::kInt16;
  if constexpr (std::is_same_v<T, int32_t>) return dtype::kInt32;
  if constexpr (std::is_same_v<T, uint8_t>) return dtype::kUint8;
  if constexpr (std::is_same_v<T, uint16_t>) return dtype::kUint16;
  return dtype::kUint32;
}

// Runs a two-input node whose inputs and output are all T (same dims).
template <typename T>
std::vector<T> run2(std::string type, std::vector<Param> params, const std::vector<T>& a, const std::vector<T>& b) {
  const uint32_t n = static_cast<uint32_t>(a.size());
  const uint32_t dt = code_of<T>();
  Node node{std::move(type), "n", {typed(dt, {n}), typed(dt, {n})}, {typed(dt, {n})}, std::move(params)};
  return as<T>(run_raw(node, {bytes_of(a), bytes_of(b)}));
}

// ElementWiseBinary `op` on T in and T out.
template <typename T>
std::vector<T> binary(uint32_t op, const std::vector<T>& a, const std::vector<T>& b) {
  return run2<T>("ElementWiseBinary", {u32_param("operation", op)}, a, b);
}

// ElementWiseBinary comparison / logical `op` on T in, BOOL_8 out.
template <typename T>
std::vector<uint8_t> predicate(uint32_t op, const std::vector<T>& a, const std::vector<T>& b) {
  const uint32_t n = static_cast<uint32_t>(a.size());
  Node node{"ElementWiseBinary", "n", {typed(code_of<T>(), {n}), typed(code_of<T>(), {n})},
            {typed(dtype::kBool8, {n})}, {u32_param("operation", op)}};
  return run_raw(node, {bytes_of(a), bytes_of(b)});
}

using I8 = std::vector<int8_t>;
using I16 = std::vector<int16_t>;
using I32 = std::vector<int32_t>;
using U8 = std::vector<uint8_t>;
using U16 = std::vector<uint16_t>;
using U32 = std::vector<uint32_t>;

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

// --- the typed ops ---

TEST(IntegerElementWise, AddWrapsAround) {
  // uint8: 200 + 100 = 300 - 256 = 44; 255 + 1 = 0.
  EXPECT_EQ(run2<uint8_t>("ElementWiseAdd", {}, {200, 255, 0, 17}, {100, 1, 0, 3}), (U8{44, 0, 0, 20}));
  // int32 above 2^24 stays exact: 16777217 + 0 (float would give 16777216).
  EXPECT_EQ(run2<int32_t>("ElementWiseAdd", {}, {16777217, kI32Max}, {0, 1}), (I32{16777217, kI32Min}));
}

TEST(IntegerElementWise, AddBroadcasts) {
  // [2,3] + [3]: out[r][c] = a[r][c] + b[c].
  // Row 0: INT32_MAX + 1 wraps to INT32_MIN; -5 + 7 = 2; 0 + INT32_MIN.
  // Row 1: 1 + 1 = 2; 2 + 7 = 9; 3 + INT32_MIN = -2147483645.
  Node n{"ElementWiseAdd", "add", {typed(dtype::kInt32, {2, 3}), typed(dtype::kInt32, {3})},
         {typed(dtype::kInt32, {2, 3})}, {}};
  const I32 got = as<int32_t>(run_raw(n, {bytes_of(I32{kI32Max, -5, 0, 1, 2, 3}), bytes_of(I32{1, 7, kI32Min})}));
  EXPECT_EQ(got, (I32{kI32Min, 2, kI32Min, 2, 9, -2147483645}));
}

TEST(IntegerElementWise, SubtractWrapsAround) {
  // int8: -128 - 1 = -129 -> 127; 127 - (-1) = 128 -> -128; 5 - 10 = -5.
  EXPECT_EQ(run2<int8_t>("ElementWiseSubtract", {}, {-128, 127, 5}, {1, -1, 10}), (I8{127, -128, -5}));
  // uint16: 0 - 1 = 65535; 1000 - 999 = 1.
  EXPECT_EQ(run2<uint16_t>("ElementWiseSubtract", {}, {0, 1000}, {1, 999}), (U16{65535, 1}));
}

TEST(IntegerElementWise, MultiplyWrapsAround) {
  // int16: 300 * 300 = 90000 = 65536 + 24464 -> 24464; -90000 + 2 * 65536 =
  // 41072 -> 41072 - 65536 = -24464; 7 * -7 = -49.
  EXPECT_EQ(run2<int16_t>("ElementWiseMultiply", {}, {300, -300, 7}, {300, 300, -7}), (I16{24464, -24464, -49}));
  // uint32: (2^32 - 1)^2 = 2^64 - 2^33 + 1 -> 1 mod 2^32; 2^16 * 2^16 = 2^32 -> 0.
  EXPECT_EQ(run2<uint32_t>("ElementWiseMultiply", {}, {4294967295u, 65536}, {4294967295u, 65536}), (U32{1, 0}));
}

TEST(IntegerElementWise, DivideTruncatesTowardZero) {
  // 7/2 = 3.5 -> 3; -7/2 -> -3; 7/-2 -> -3; -7/-2 -> 3; 0/3 = 0;
  // 5/0 -> 0 (defined: run() cannot fail); INT32_MIN / -1 = 2^31 wraps to INT32_MIN.
  EXPECT_EQ(run2<int32_t>("ElementWiseDivide", {}, {7, -7, 7, -7, 0, 5, kI32Min}, {2, 2, -2, -2, 3, 0, -1}),
            (I32{3, -3, -3, 3, 0, 0, kI32Min}));
  // uint8: 200/3 = 66.67 -> 66; 7/0 -> 0; 9/10 -> 0.
  EXPECT_EQ(run2<uint8_t>("ElementWiseDivide", {}, {200, 7, 9}, {3, 0, 10}), (U8{66, 0, 0}));
}

// Maximum / Minimum on each type, at the type's limits.
template <typename T>
class IntegerMaxMin : public ::testing::Test {};
using IntegerTypes = ::testing::Types<int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t>;
TYPED_TEST_SUITE(IntegerMaxMin, IntegerTypes);

TYPED_TEST(IntegerMaxMin, AtTheLimits) {
  using T = TypeParam;
  constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const std::vector<T> a{lo, hi, 1, 0};
  const std::vector<T> b{hi, lo, 0, 0};
  EXPECT_EQ(run2<T>("ElementWiseMaximum", {}, a, b), (std::vector<T>{hi, hi, 1, 0}));
  EXPECT_EQ(run2<T>("ElementWiseMinimum", {}, a, b), (std::vector<T>{lo, lo, 0, 0}));
  EXPECT_EQ(binary<T>(MAXIMUM, a, b), (std::vector<T>{hi, hi, 1, 0}));
  EXPECT_EQ(binary<T>(MINIMUM, a, b), (std::vector<T>{lo, lo, 0, 0}));
}

TEST(IntegerElementWise, MaxMinKeepNeighbouringLargeValuesApart) {
  // 4000000000 and 3999999999 round to the same float; natively they differ.
  EXPECT_EQ(run2<uint32_t>("ElementWiseMaximum", {}, {4000000000u, 1}, {3999999999u, 2}), (U32{4000000000u, 2}));
  EXPECT_EQ(run2<uint32_t>("ElementWiseMinimum", {}, {4000000000u, 1}, {3999999999u, 2}), (U32{3999999999u, 1}));
}

// --- ElementWiseBinary arithmetic ---

TEST(IntegerElementWiseBinary, BasicArithmeticOnInt16) {
  const I16 a{-7, 100, 32767}, b{2, -3, 1};
  EXPECT_EQ(binary<int16_t>(ADD, a, b), (I16{-5, 97, -32768}));       // 32767 + 1 wraps
  EXPECT_EQ(binary<int16_t>(SUBTRACT, a, b), (I16{-9, 103, 32766}));
  EXPECT_EQ(binary<int16_t>(MULTIPLY, a, b), (I16{-14, -300, 32767}));
  EXPECT_EQ(binary<int16_t>(DIVIDE, a, b), (I16{-3, -33, 32767}));    // -3.5 -> -3, -33.3 -> -33
}

TEST(IntegerElementWiseBinary, ModTakesTheDivisorsSign) {
  // numpy mod: 7 % 3 = 1; -7 % 3 = 2; 7 % -3 = -2; -7 % -3 = -1; 6 % 3 = 0; 5 % 0 -> 0.
  EXPECT_EQ(binary<int32_t>(MOD, {7, -7, 7, -7, 6, 5}, {3, 3, -3, -3, 3, 0}), (I32{1, 2, -2, -1, 0, 0}));
  // int8: -128 % 3: -128 = -43 * 3 + 1 -> 1.
  EXPECT_EQ(binary<int8_t>(MOD, {-128}, {3}), (I8{1}));
  // uint8: 200 = 28 * 7 + 4 -> 4; 5 % 0 -> 0.
  EXPECT_EQ(binary<uint8_t>(MOD, {200, 5}, {7, 0}), (U8{4, 0}));
}

TEST(IntegerElementWiseBinary, FmodTakesTheDividendsSign) {
  // C fmod: 7 fmod 3 = 1; -7 fmod 3 = -1; 7 fmod -3 = 1; -7 fmod -3 = -1; 6 fmod 3 = 0; 5 fmod 0 -> 0.
  EXPECT_EQ(binary<int32_t>(FMOD, {7, -7, 7, -7, 6, 5}, {3, 3, -3, -3, 3, 0}), (I32{1, -1, 1, -1, 0, 0}));
  // uint16: 65535 = 2 * 30000 + 5535.
  EXPECT_EQ(binary<uint16_t>(FMOD, {65535}, {30000}), (U16{5535}));
}

TEST(IntegerElementWiseBinary, FloorDivRoundsDown) {
  // 7 // 3 = 2; -7 // 3 = floor(-2.33) = -3; 7 // -3 = -3; -7 // -3 = 2; 6 // 3 = 2;
  // -6 // 3 = -2 (exact, no extra step); 5 // 0 -> 0.
  EXPECT_EQ(binary<int32_t>(FLOOR_DIV, {7, -7, 7, -7, 6, -6, 5}, {3, 3, -3, -3, 3, 3, 0}),
            (I32{2, -3, -3, 2, 2, -2, 0}));
  // uint8: 255 // 2 = 127.
  EXPECT_EQ(binary<uint8_t>(FLOOR_DIV, {255}, {2}), (U8{127}));
}

TEST(IntegerElementWiseBinary, PowerIsIntegerExponentiation) {
  // 2^10 = 1024; (-3)^3 = -27; 0^0 = 1; 5^0 = 1; 2^31 = 2147483648 wraps to INT32_MIN;
  // 3^21 = 10460353203 - 2 * 2^32 = 1870418611.
  EXPECT_EQ(binary<int32_t>(POWER, {2, -3, 0, 5, 2, 3}, {10, 3, 0, 0, 31, 21}),
            (I32{1024, -27, 1, 1, kI32Min, 1870418611}));
  // Negative exponents (defined, see elementwise.cpp): 1^-5 = 1; (-1)^-3 = -1;
  // (-1)^-4 = 1; 2^-1 = 0.5 -> 0; 0^-1 -> 0; -2^-1 = -0.5 -> 0.
  EXPECT_EQ(binary<int32_t>(POWER, {1, -1, -1, 2, 0, -2}, {-5, -3, -4, -1, -1, -1}), (I32{1, -1, 1, 0, 0, 0}));
  // uint8: 2^8 = 256 -> 0; 3^5 = 243; 3^6 = 729 - 512 = 217.
  EXPECT_EQ(binary<uint8_t>(POWER, {2, 3, 3}, {8, 5, 6}), (U8{0, 243, 217}));
}

TEST(IntegerElementWiseBinary, SquaredDifferenceWraps) {
  // (3 - 5)^2 = 4; (-2 - 2)^2 = 16.
  EXPECT_EQ(binary<int32_t>(SQUARED_DIFFERENCE, {3, -2}, {5, 2}), (I32{4, 16}));
  // uint8: (0 - 255)^2 = 65025 = 254 * 256 + 1 -> 1.
  EXPECT_EQ(binary<uint8_t>(SQUARED_DIFFERENCE, {0}, {255}), (U8{1}));
}

// --- comparisons and logic: integer in, BOOL_8 out ---

TEST(IntegerElementWiseBinary, ComparisonsAreExact) {
  // 16777217 vs 16777216 are one float apart from nothing: equal in float, not here.
  const I32 a{16777217, -1, 5}, b{16777216, -1, 7};
  EXPECT_EQ(predicate<int32_t>(EQUAL, a, b), (U8{0, 1, 0}));
  EXPECT_EQ(predicate<int32_t>(NOT_EQUAL, a, b), (U8{1, 0, 1}));
  EXPECT_EQ(predicate<int32_t>(GREATER, a, b), (U8{1, 0, 0}));
  EXPECT_EQ(predicate<int32_t>(GREATER_EQUAL, a, b), (U8{1, 1, 0}));
  EXPECT_EQ(predicate<int32_t>(LESS, a, b), (U8{0, 0, 1}));
  EXPECT_EQ(predicate<int32_t>(LESS_EQUAL, a, b), (U8{0, 1, 1}));
  // uint8 compares as unsigned: 200 > 100.
  EXPECT_EQ(predicate<uint8_t>(GREATER, {200, 3}, {100, 4}), (U8{1, 0}));
  // int8 compares as signed: -1 < 1.
  EXPECT_EQ(predicate<int8_t>(LESS, {-1}, {1}), (U8{1}));
}

TEST(IntegerElementWiseBinary, LogicalTreatsNonZeroAsTrue) {
  const I32 a{0, 2, -1, 0}, b{5, 0, 3, 0};
  EXPECT_EQ(predicate<int32_t>(AND, a, b), (U8{0, 0, 1, 0}));
  EXPECT_EQ(predicate<int32_t>(OR, a, b), (U8{1, 1, 1, 0}));
  EXPECT_EQ(predicate<int32_t>(XOR, a, b), (U8{1, 1, 0, 0}));
}

// --- type rules ---

TEST(IntegerElementWiseRules, MixedIntegerTypesAreInvalid) {
  Node add{"ElementWiseAdd", "add", {typed(dtype::kInt32, {2}), typed(dtype::kInt8, {2})},
           {typed(dtype::kInt32, {2})}, {}};
  EXPECT_STATUS(add.prepare(), StatusCode::kInvalidArgument, "'add'", "in[1] data type is INT_8", "in[0] is INT_32");
  add.inputs[1] = typed(dtype::kInt32, {2});
  add.outputs[0] = typed(dtype::kUint32, {2});
  EXPECT_STATUS(add.prepare(), StatusCode::kInvalidArgument, "out[0] data type is UINT_32", "in[0] is INT_32");
  // A 64-bit integer with a 32-bit one is still a type mismatch.
  add.outputs[0] = typed(dtype::kInt64, {2});
  EXPECT_STATUS(add.prepare(), StatusCode::kInvalidArgument, "out[0] data type is INT_64", "in[0] is INT_32");
  Node eq{"ElementWiseBinary", "eq", {typed(dtype::kInt8, {2}), typed(dtype::kUint8, {2})},
          {typed(dtype::kBool8, {2})}, {u32_param("operation", EQUAL)}};
  EXPECT_STATUS(eq.prepare(), StatusCode::kInvalidArgument, "in[1] data type is UINT_8", "in[0] is INT_8");
  // The same node with matching types is valid: the mismatch was the reason.
  eq.inputs[1] = typed(dtype::kInt8, {2});
  EXPECT_TRUE(eq.prepare().ok());
}

TEST(IntegerElementWiseRules, IntegerWithFloatIsUnsupported) {
  Node add{"ElementWiseAdd", "add", {f32({2}), typed(dtype::kInt32, {2})}, {f32({2})}, {}};
  EXPECT_STATUS(add.prepare(), StatusCode::kUnsupported, "in[0] data type is a float type", "in[1] is INT_32");
  // A quantized operand reaches the kernel as float, so it is the same case.
  TensorDesc q = typed(dtype::kUfixed8, {2});
  q.quant.present = true;
  q.quant.scale = 0.5f;
  Node mixed{"ElementWiseAdd", "add", {typed(dtype::kInt32, {2}), q}, {typed(dtype::kInt32, {2})}, {}};
  EXPECT_STATUS(mixed.prepare(), StatusCode::kUnsupported, "in[1] data type is a float type", "in[0] is INT_32");
}

TEST(IntegerElementWiseRules, OutputKindStillFollowsTheOperation) {
  // Comparison of integers into an integer: expected BOOL_8.
  Node eq{"ElementWiseBinary", "eq", {typed(dtype::kInt32, {2}), typed(dtype::kInt32, {2})},
          {typed(dtype::kInt32, {2})}, {u32_param("operation", EQUAL)}};
  EXPECT_STATUS(eq.prepare(), StatusCode::kInvalidArgument, "out[0] data type is INT_32, expected BOOL_8");
  // Arithmetic of integers into BOOL_8: outputs numbers.
  Node add = eq;
  add.params = {u32_param("operation", ADD)};
  add.outputs[0] = typed(dtype::kBool8, {2});
  EXPECT_STATUS(add.prepare(), StatusCode::kInvalidArgument, "out[0] data type is BOOL_8", "ADD outputs numbers");
}

TEST(IntegerElementWiseRules, ShapeRulesApplyToIntegers) {
  Node zero{"ElementWiseAdd", "add", {typed(dtype::kInt16, {2, 0}), typed(dtype::kInt16, {2, 0})},
            {typed(dtype::kInt16, {2, 0})}, {}};
  EXPECT_STATUS(zero.prepare(), StatusCode::kInvalidArgument, "in[0] dim 1 is 0");
  Node bad{"ElementWiseSubtract", "sub", {typed(dtype::kUint8, {2, 3}), typed(dtype::kUint8, {2})},
           {typed(dtype::kUint8, {2, 3})}, {}};
  EXPECT_STATUS(bad.prepare(), StatusCode::kInvalidArgument, "not broadcastable");
}

// --- Relu, ReluMinMax ---

TEST(IntegerRelu, ClampsNegativesToZero) {
  Node n{"Relu", "r", {typed(dtype::kInt8, {5})}, {typed(dtype::kInt8, {5})}, {}};
  EXPECT_EQ(as<int8_t>(run_raw(n, {bytes_of(I8{-128, -1, 0, 1, 127})})), (I8{0, 0, 0, 1, 127}));
  n.inputs[0] = typed(dtype::kUint8, {5});
  n.outputs[0] = typed(dtype::kUint8, {5});
  EXPECT_EQ(run_raw(n, {U8{0, 200, 255, 1, 128}}), (U8{0, 200, 255, 1, 128}));  // unsigned: unchanged
  n.outputs[0] = typed(dtype::kInt16, {5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] data type is INT_16", "in[0] is UINT_8");
}

Node relu_min_max(uint32_t dt, uint32_t n, float lo, float hi) {
  return Node{"ReluMinMax", "clip", {typed(dt, {n})}, {typed(dt, {n})},
              {f32_param("min_value", lo), f32_param("max_value", hi)}};
}

TEST(IntegerReluMinMax, ClampsToTheBounds) {
  const Node n = relu_min_max(dtype::kInt32, 7, -2.0f, 3.0f);
  EXPECT_EQ(as<int32_t>(run_raw(n, {bytes_of(I32{kI32Min, -3, -2, 0, 3, 4, kI32Max})})), (I32{-2, -2, -2, 0, 3, 3, 3}));
  // The importer's "no bound" (+-FLT_MAX) becomes the type's own limits.
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(run_raw(relu_min_max(dtype::kUint8, 3, -big, big), {U8{0, 255, 17}}), (U8{0, 255, 17}));
  // A bound outside the type's range: min -5 on uint8 is no bound at all.
  EXPECT_EQ(run_raw(relu_min_max(dtype::kUint8, 3, -5.0f, 100.0f), {U8{0, 200, 50}}), (U8{0, 100, 50}));
  // 16777217 is kept exactly (a float clamp would return 16777216).
  EXPECT_EQ(as<int32_t>(run_raw(relu_min_max(dtype::kInt32, 1, -big, big), {bytes_of(I32{16777217})})), (I32{16777217}));
}

TEST(IntegerReluMinMax, FractionalBoundsRoundInward) {
  // The integers in [0.5, 2.5] are 1 and 2.
  const Node n = relu_min_max(dtype::kInt16, 5, 0.5f, 2.5f);
  EXPECT_EQ(as<int16_t>(run_raw(n, {bytes_of(I16{-1, 0, 1, 2, 3})})), (I16{1, 1, 1, 2, 2}));
  // No integer lies in [1.2, 1.8].
  EXPECT_STATUS(relu_min_max(dtype::kInt32, 2, 1.2f, 1.8f).prepare(), StatusCode::kUnsupported,
                "no INT_32 value lies in [min_value, max_value]");
}

TEST(IntegerReluMinMax, TypeRules) {
  Node n = relu_min_max(dtype::kInt32, 2, 0.0f, 1.0f);
  n.outputs[0] = f32({2});
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "out[0] data type is a float type", "in[0] is INT_32");
  n.outputs[0] = typed(dtype::kUint32, {2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] data type is UINT_32", "in[0] is INT_32");
  n.outputs[0] = typed(dtype::kInt32, {3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 3, expected 2");
  n = relu_min_max(dtype::kInt32, 2, 2.0f, 1.0f);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'min_value' (2) exceeds 'max_value' (1)");
}

// --- PoolMax2d ---

Node pool(uint32_t dt, std::vector<uint32_t> in_dims, std::vector<uint32_t> out_dims, std::vector<uint32_t> filter,
          std::vector<uint32_t> pad) {
  return Node{"PoolMax2d", "pool", {typed(dt, std::move(in_dims))}, {typed(dt, std::move(out_dims))},
              {u32_tensor_param("filter_size", {2}, std::move(filter)), u32_tensor_param("stride", {2}, {1, 1}),
               u32_tensor_param("pad_amount", {2, 2}, std::move(pad))}};
}

TEST(IntegerPoolMax2d, PaddingNeverWins) {
  // x (2x2) = [[-5, -3], [-8, -128]], 2x2 windows, stride 1, pad 1 all round:
  // output (oh, ow) sees input rows oh-1..oh, columns ow-1..ow that exist.
  //   (0,0) {-5} = -5      (0,1) {-5,-3} = -3        (0,2) {-3} = -3
  //   (1,0) {-5,-8} = -5   (1,1) all = -3            (1,2) {-3,-128} = -3
  //   (2,0) {-8} = -8      (2,1) {-8,-128} = -8      (2,2) {-128} = -128
  // A zero padding value would win everywhere.
  const Node n = pool(dtype::kInt8, {1, 2, 2, 1}, {1, 3, 3, 1}, {2, 2}, {1, 1, 1, 1});
  EXPECT_EQ(as<int8_t>(run_raw(n, {bytes_of(I8{-5, -3, -8, -128})})), (I8{-5, -3, -3, -5, -3, -3, -8, -8, -128}));
}

TEST(IntegerPoolMax2d, Uint8PerChannel) {
  // x (2x3x2), channel 0 rows [10, 250, 3] / [7, 9, 255], channel 1 rows
  // [0, 0, 1] / [2, 0, 0]; 2x2 windows, no pad -> 1x2 output:
  //   column 0: c0 max(10, 250, 7, 9) = 250, c1 max(0, 0, 2, 0) = 2
  //   column 1: c0 max(250, 3, 9, 255) = 255, c1 max(0, 1, 0, 0) = 1
  const Node n = pool(dtype::kUint8, {1, 2, 3, 2}, {1, 1, 2, 2}, {2, 2}, {0, 0, 0, 0});
  const U8 x{10, 0, 250, 0, 3, 1, 7, 2, 9, 0, 255, 0};  // NHWC: (h, w, c) interleaved
  EXPECT_EQ(run_raw(n, {x}), (U8{250, 2, 255, 1}));
}

TEST(IntegerPoolMax2d, Int32IsExact) {
  // 16777217 and 16777216 are the same float; the max is the first.
  const Node n = pool(dtype::kInt32, {1, 1, 2, 1}, {1, 1, 1, 1}, {1, 2}, {0, 0, 0, 0});
  EXPECT_EQ(as<int32_t>(run_raw(n, {bytes_of(I32{16777216, 16777217})})), (I32{16777217}));
}

TEST(IntegerPoolMax2d, TypeRules) {
  Node n = pool(dtype::kUint8, {1, 2, 2, 1}, {1, 1, 1, 1}, {2, 2}, {0, 0, 0, 0});
  n.outputs[0].dtype = dtype::kInt8;
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] data type is INT_8", "in[0] is UINT_8");
  n.outputs[0].dtype = dtype::kFloat32;
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "out[0] data type is a float type", "in[0] is UINT_8");
}

}  // namespace
}  // namespace opstest
