// Quantize, Dequantize, Convert, Cast: hand-checked values (saturation and
// round half to even included), round trips, and the type rules.
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

// Prepares (must succeed) and runs a one-input, one-output node on raw bytes.
std::vector<uint8_t> run1(const Node& n, const std::vector<uint8_t>& x) {
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  EXPECT_TRUE(s.ok()) << s.message;
  if (!s.ok()) return {};
  std::vector<uint8_t> y(n.outputs[0].num_bytes(), 0xAB);
  std::vector<const void*> ins{x.data()};
  std::vector<void*> outs{y.data()};
  k->run(ins, outs);
  return y;
}

TensorDesc fixed(uint32_t dt, std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dt, std::move(dims));
  t.quant.present = true;
  t.quant.scale = scale;
  t.quant.offset = offset;
  return t;
}

// ---------------- Quantize ----------------

TEST(Quantize, HandComputedUfixed8) {
  // scale 0.5, offset -10 (zero point 10): q = round_half_even(x / 0.5) + 10, clamped to [0, 255].
  //   0 -> 10;  1.25 -> 2.5 -> 2 -> 12;  1.75 -> 3.5 -> 4 -> 14;  -5 -> -10 + 10 = 0;
  //   -6 -> -12 + 10 = -2 -> 0;  200 -> 400 + 10 -> 255;  0.74 -> 1.48 -> 1 -> 11
  Node n{"Quantize", "q", {f32({7})}, {fixed(dtype::kUfixed8, {7}, 0.5f, -10)}, {}};
  std::vector<float> x{0, 1.25f, 1.75f, -5, -6, 200, 0.74f};
  EXPECT_EQ(run1(n, bytes_of(x)), (std::vector<uint8_t>{10, 12, 14, 0, 0, 255, 11}));
}

TEST(Quantize, HandComputedSfixed8AndPerChannel) {
  // scale 1, offset 0: -128.5 -> -128 (even), 127.5 -> 128 -> 127, -129 -> -128, 2.5 -> 2, -2.5 -> -2.
  Node n{"Quantize", "q", {f32({5})}, {fixed(dtype::kSfixed8, {5}, 1.0f, 0)}, {}};
  std::vector<float> x{-128.5f, 127.5f, -129, 2.5f, -2.5f};
  EXPECT_EQ(as<int8_t>(run1(n, bytes_of(x))), (std::vector<int8_t>{-128, 127, -128, 2, -2}));
  // Per-channel along axis 1, scales (1, 0.5): [3 3; -1 -1] -> [3 6; -1 -2].
  TensorDesc out = typed(dtype::kSfixed8, {2, 2});
  out.quant.present = true;
  out.quant.axis = 1;
  out.quant.scales = {1.0f, 0.5f};
  out.quant.offsets = {0, 0};
  Node pc{"Quantize", "q", {f32({2, 2})}, {out}, {}};
  std::vector<float> y{3, 3, -1, -1};
  EXPECT_EQ(as<int8_t>(run1(pc, bytes_of(y))), (std::vector<int8_t>{3, 6, -1, -2}));
}

TEST(Quantize, Rules) {
  Node in_type{"Quantize", "q", {typed(dtype::kInt32, {2})}, {fixed(dtype::kUfixed8, {2}, 1, 0)}, {}};
  EXPECT_STATUS(in_type.prepare(), StatusCode::kInvalidArgument, "in[0] data type is INT_32, expected FLOAT_32");
  Node out_type{"Quantize", "q", {f32({2})}, {f32({2})}, {}};
  EXPECT_STATUS(out_type.prepare(), StatusCode::kInvalidArgument, "out[0] data type is FLOAT_32, expected a fixed-point");
  Node no_enc{"Quantize", "q", {f32({2})}, {typed(dtype::kUfixed8, {2})}, {}};
  EXPECT_STATUS(no_enc.prepare(), StatusCode::kInvalidArgument, "out[0] UFIXED_POINT_8 needs a quantization encoding");
  Node bad_scale{"Quantize", "q", {f32({2})}, {fixed(dtype::kUfixed8, {2}, 0.0f, 0)}, {}};
  EXPECT_STATUS(bad_scale.prepare(), StatusCode::kInvalidArgument, "quantization scale is 0");
  Node shape{"Quantize", "q", {f32({2})}, {fixed(dtype::kUfixed8, {3}, 1, 0)}, {}};
  EXPECT_STATUS(shape.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 3, expected 2");
}

// ---------------- Dequantize ----------------

TEST(Dequantize, HandComputed) {
  // scale 0.5, offset -10: x = (q - 10) * 0.5 -> 0: -5, 10: 0, 255: 122.5.
  Node n{"Dequantize", "d", {fixed(dtype::kUfixed8, {3}, 0.5f, -10)}, {f32({3})}, {}};
  std::vector<uint8_t> q{0, 10, 255};
  EXPECT_EQ(as<float>(run1(n, q)), (std::vector<float>{-5, 0, 122.5f}));
  // FLOAT_16 output, IEEE half bits: -5 = 0xC500, 0 = 0x0000, 122.5 = 1.9140625 * 2^6 = 0x57A8.
  Node h{"Dequantize", "d", {fixed(dtype::kUfixed8, {3}, 0.5f, -10)}, {typed(dtype::kFloat16, {3})}, {}};
  EXPECT_EQ(as<uint16_t>(run1(h, q)), (std::vector<uint16_t>{0xC500, 0x0000, 0x57A8}));
  // SFIXED_16, scale 2^-8, offset 0: -32768 -> -128, 256 -> 1.
  Node s16{"Dequantize", "d", {fixed(dtype::kSfixed16, {2}, 1.0f / 256, 0)}, {f32({2})}, {}};
  EXPECT_EQ(as<float>(run1(s16, bytes_of(std::vector<int16_t>{-32768, 256}))), (std::vector<float>{-128, 1}));
}

TEST(QuantizeDequantize, RoundTrips) {
  const float scale = 0.037f;
  const int32_t offset = -97;
  // Every code survives dequantize -> quantize.
  std::vector<uint8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<uint8_t>(i);
  Node dq{"Dequantize", "d", {fixed(dtype::kUfixed8, {256}, scale, offset)}, {f32({256})}, {}};
  Node q{"Quantize", "q", {f32({256})}, {fixed(dtype::kUfixed8, {256}, scale, offset)}, {}};
  EXPECT_EQ(run1(q, run1(dq, all)), all);
  // In-range reals come back within half a step.
  std::mt19937 rng(5);
  std::vector<float> x = random_floats(rng, 256, (0 + offset) * scale, (255 + offset) * scale);
  std::vector<float> back = as<float>(run1(dq, run1(q, bytes_of(x))));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_LE(std::fabs(back[i] - x[i]), scale / 2 * 1.0001f) << x[i];
}

TEST(Dequantize, Rules) {
  Node in_type{"Dequantize", "d", {f32({2})}, {f32({2})}, {}};
  EXPECT_STATUS(in_type.prepare(), StatusCode::kInvalidArgument, "in[0] data type is FLOAT_32, expected a fixed-point");
  Node out_type{"Dequantize", "d", {fixed(dtype::kUfixed8, {2}, 1, 0)}, {typed(dtype::kInt32, {2})}, {}};
  EXPECT_STATUS(out_type.prepare(), StatusCode::kInvalidArgument, "out[0] data type is INT_32, expected FLOAT_32 or FLOAT_16");
  Node no_enc{"Dequantize", "d", {typed(dtype::kUfixed8, {2})}, {f32({2})}, {}};
  EXPECT_STATUS(no_enc.prepare(), StatusCode::kInvalidArgument, "in[0] UFIXED_POINT_8 needs a quantization encoding");
}

// ---------------- Convert ----------------

TEST(Convert, HandComputed) {
  // UFIXED_8 (0.5, -10) -> UFIXED_16 (0.25, 0): q=14 -> 2 -> 8; q=0 -> -5 -> -20 -> 0 (saturates); q=255 -> 122.5 -> 490.
  Node a{"Convert", "cv", {fixed(dtype::kUfixed8, {3}, 0.5f, -10)}, {fixed(dtype::kUfixed16, {3}, 0.25f, 0)}, {}};
  EXPECT_EQ(as<uint16_t>(run1(a, {14, 0, 255})), (std::vector<uint16_t>{8, 0, 490}));
  // SFIXED_8 (1, 0) -> UFIXED_8 (2, -128): q_out = round_half_even(q / 2) + 128:
  // -3 -> -1.5 -> -2 -> 126; 5 -> 2.5 -> 2 -> 130; -128 -> -64 -> 64; 127 -> 63.5 -> 64 -> 192.
  Node b{"Convert", "cv", {fixed(dtype::kSfixed8, {4}, 1.0f, 0)}, {fixed(dtype::kUfixed8, {4}, 2.0f, -128)}, {}};
  EXPECT_EQ(run1(b, bytes_of(std::vector<int8_t>{-3, 5, -128, 127})), (std::vector<uint8_t>{126, 130, 64, 192}));
  // FLOAT_32 -> FLOAT_16: 1 -> 0x3C00, -2 -> 0xC000, 65504 -> 0x7BFF, 1e6 -> inf 0x7C00.
  Node c{"Convert", "cv", {f32({4})}, {typed(dtype::kFloat16, {4})}, {}};
  EXPECT_EQ(as<uint16_t>(run1(c, bytes_of(std::vector<float>{1, -2, 65504, 1e6f}))),
            (std::vector<uint16_t>{0x3C00, 0xC000, 0x7BFF, 0x7C00}));
  // FLOAT_16 -> UFIXED_8 (0.5, 0): 1.5 (0x3E00) -> 3; 0.25 (0x3400) -> 0.5 -> 0 (even).
  Node d{"Convert", "cv", {typed(dtype::kFloat16, {2})}, {fixed(dtype::kUfixed8, {2}, 0.5f, 0)}, {}};
  EXPECT_EQ(run1(d, bytes_of(std::vector<uint16_t>{0x3E00, 0x3400})), (std::vector<uint8_t>{3, 0}));
}

TEST(Convert, Rules) {
  Node ints{"Convert", "cv", {typed(dtype::kInt32, {2})}, {f32({2})}, {}};
  EXPECT_STATUS(ints.prepare(), StatusCode::kInvalidArgument, "in[0] data type is INT_32", "use Cast");
  Node out_int{"Convert", "cv", {f32({2})}, {typed(dtype::kUint8, {2})}, {}};
  EXPECT_STATUS(out_int.prepare(), StatusCode::kInvalidArgument, "out[0] data type is UINT_8");
  Node dyn{"Convert", "cv", {f32({2})}, {f32({2})}, {bool_param("dynamic_input_data", true)}};
  EXPECT_STATUS(dyn.prepare(), StatusCode::kUnsupported, "'dynamic_input_data' = 1 is not supported");
  Node shape{"Convert", "cv", {f32({2})}, {f32({1, 2})}, {}};
  EXPECT_STATUS(shape.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 2, expected 1");
  Node no_enc{"Convert", "cv", {f32({2})}, {typed(dtype::kSfixed8, {2})}, {}};
  EXPECT_STATUS(no_enc.prepare(), StatusCode::kInvalidArgument, "out[0] SFIXED_POINT_8 needs a quantization encoding");
}

// ---------------- Cast ----------------

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  Node n{"Cast", "c", {f32({6})}, {typed(dtype::kInt32, {6})}, {}};
  std::vector<float> x{2.7f, -2.7f, 3e10f, -3e10f, std::nanf(""), -0.5f};
  EXPECT_EQ(as<int32_t>(run1(n, bytes_of(x))),
            (std::vector<int32_t>{2, -2, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), 0, 0}));
  Node u8{"Cast", "c", {f32({3})}, {typed(dtype::kUint8, {3})}, {}};
  EXPECT_EQ(run1(u8, bytes_of(std::vector<float>{255.9f, -3.0f, 300.0f})), (std::vector<uint8_t>{255, 0, 255}));
}

TEST(Cast, IntegerNarrowingWraps) {
  Node n{"Cast", "c", {typed(dtype::kInt32, {3})}, {typed(dtype::kUint8, {3})}, {}};
  EXPECT_EQ(run1(n, bytes_of(std::vector<int32_t>{300, -1, 7})), (std::vector<uint8_t>{44, 255, 7}));
  Node s{"Cast", "c", {typed(dtype::kUint8, {2})}, {typed(dtype::kInt8, {2})}, {}};
  EXPECT_EQ(as<int8_t>(run1(s, {200, 100})), (std::vector<int8_t>{-56, 100}));
  Node wide{"Cast", "c", {typed(dtype::kInt8, {2})}, {typed(dtype::kInt64, {2})}, {}};
  EXPECT_EQ(as<int64_t>(run1(wide, bytes_of(std::vector<int8_t>{-128, 5}))), (std::vector<int64_t>{-128, 5}));
}

TEST(Cast, FixedPointIgnoresEncoding) {
  // UFIXED_8 with scale 0.5, offset -10 is read as UINT_8: 200 -> 200, not 95.
  Node n{"Cast", "c", {fixed(dtype::kUfixed8, {2}, 0.5f, -10)}, {typed(dtype::kInt32, {2})}, {}};
  EXPECT_EQ(as<int32_t>(run1(n, {200, 3})), (std::vector<int32_t>{200, 3}));
  // And no encoding is needed at all.
  Node bare{"Cast", "c", {typed(dtype::kFloat32, {1})}, {typed(dtype::kUfixed8, {1})}, {}};
  EXPECT_EQ(run1(bare, bytes_of(std::vector<float>{17.9f})), (std::vector<uint8_t>{17}));
}

TEST(Cast, BoolAndFloatTargets) {
  Node to_bool{"Cast", "c", {typed(dtype::kInt32, {3})}, {typed(dtype::kBool8, {3})}, {}};
  EXPECT_EQ(run1(to_bool, bytes_of(std::vector<int32_t>{0, 5, -1})), (std::vector<uint8_t>{0, 1, 1}));
  Node f_bool{"Cast", "c", {f32({3})}, {typed(dtype::kBool8, {3})}, {}};
  EXPECT_EQ(run1(f_bool, bytes_of(std::vector<float>{0.0f, -0.0f, 0.1f})), (std::vector<uint8_t>{0, 0, 1}));
  Node from_bool{"Cast", "c", {typed(dtype::kBool8, {2})}, {f32({2})}, {}};
  EXPECT_EQ(as<float>(run1(from_bool, {0, 1})), (std::vector<float>{0, 1}));
  Node half{"Cast", "c", {typed(dtype::kInt32, {2})}, {typed(dtype::kFloat16, {2})}, {}};
  EXPECT_EQ(as<uint16_t>(run1(half, bytes_of(std::vector<int32_t>{1, -2}))), (std::vector<uint16_t>{0x3C00, 0xC000}));
  Node from_half{"Cast", "c", {typed(dtype::kFloat16, {2})}, {typed(dtype::kInt16, {2})}, {}};
  EXPECT_EQ(as<int16_t>(run1(from_half, bytes_of(std::vector<uint16_t>{0xC500, 0x3E00}))), (std::vector<int16_t>{-5, 1}));
  Node big{"Cast", "c", {typed(dtype::kUint64, {1})}, {f32({1})}, {}};
  EXPECT_EQ(as<float>(run1(big, bytes_of(std::vector<uint64_t>{uint64_t{1} << 63}))),
            (std::vector<float>{9223372036854775808.0f}));
}

// bfloat16 = the high 16 bits of a float32; the expected codes below are
// worked out by hand from the float bit patterns.
TEST(Cast, Bfloat16RoundsHalfToEvenAndKeepsNaN) {
  Node to_bf{"Cast", "c", {f32({5})}, {typed(dtype::kBfloat16, {5})}, {}};
  std::vector<uint32_t> bits{0x3F800000u,   // 1.0                    -> 0x3F80 exactly
                             0x3F808000u,   // halfway, even below    -> 0x3F80
                             0x3F818000u,   // halfway, odd below     -> 0x3F82
                             0x3F808001u,   // just above halfway     -> 0x3F81
                             0x7FC00000u};  // NaN                    -> NaN
  EXPECT_EQ(as<uint16_t>(run1(to_bf, bytes_of(bits))), (std::vector<uint16_t>{0x3F80, 0x3F80, 0x3F82, 0x3F81, 0x7FC0}));
  Node from_bf{"Cast", "c", {typed(dtype::kBfloat16, {2})}, {typed(dtype::kInt32, {2})}, {}};
  EXPECT_EQ(as<int32_t>(run1(from_bf, bytes_of(std::vector<uint16_t>{0xC040, 0x4120}))),  // -3.0, 10.0
            (std::vector<int32_t>{-3, 10}));
}

TEST(Cast, Float64BothWaysAndOneRoundingToBfloat16) {
  Node to_i{"Cast", "c", {typed(dtype::kFloat64, {2})}, {typed(dtype::kInt32, {2})}, {}};
  EXPECT_EQ(as<int32_t>(run1(to_i, bytes_of(std::vector<double>{2.5, -7.9}))), (std::vector<int32_t>{2, -7}));
  Node to_d{"Cast", "c", {typed(dtype::kInt32, {1})}, {typed(dtype::kFloat64, {1})}, {}};
  EXPECT_EQ(as<double>(run1(to_d, bytes_of(std::vector<int32_t>{-7}))), (std::vector<double>{-7.0}));
  // 1 + 2^-8 + 2^-30 lies above the bfloat16 midpoint 1 + 2^-8, so it rounds
  // up to 0x3F81; going through float first would land exactly on the
  // midpoint and round down to 0x3F80.
  Node d_bf{"Cast", "c", {typed(dtype::kFloat64, {1})}, {typed(dtype::kBfloat16, {1})}, {}};
  const double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(as<uint16_t>(run1(d_bf, bytes_of(std::vector<double>{d}))), (std::vector<uint16_t>{0x3F81}));
}

TEST(Cast, Rules) {
  Node shape{"Cast", "c", {f32({2})}, {typed(dtype::kInt32, {3})}, {}};
  EXPECT_STATUS(shape.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 3, expected 2");
  Node unknown{"Cast", "c", {typed(0x1234, {2})}, {f32({2})}, {}};
  EXPECT_STATUS(unknown.prepare(), StatusCode::kInvalidArgument, "in[0] has unknown data type 0x1234");
  Node str{"Cast", "c", {typed(0x0404 /* UFIXED_POINT_4 */, {2})}, {f32({2})}, {}};
  EXPECT_STATUS(str.prepare(), StatusCode::kUnsupported, "cannot be cast");
  Node param{"Cast", "c", {f32({2})}, {f32({2})}, {u32_param("to", 1)}};
  EXPECT_STATUS(param.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'to'");
}

}  // namespace
}  // namespace opstest
