// The conversion rules every quantized and half-precision path relies on.
// Expected values are worked out by hand from the definitions: IEEE 754
// binary16 bit patterns and QNN's real = (q + offset) * scale.
#include <cmath>
#include <limits>

#include "ops/quant.h"
#include "test_util.h"

namespace opstest {
namespace {

using namespace openhtp::ops::quant;

TEST(Half, KnownBitPatterns) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);                 // largest finite half
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);                 // rounds up to infinity
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);     // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
  EXPECT_EQ(float_to_half(0.1f), 0x2e66);                     // 0.0999755859375
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half(std::nanf("")) & 0x7c00, 0x7c00);
  EXPECT_NE(float_to_half(std::nanf("")) & 0x03ff, 0);
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 lies halfway between 1 (0x3c00, even) and 1 + 2^-10 (0x3c01).
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3*2^-11 lies halfway between 0x3c01 (odd) and 0x3c02 (even).
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
}

TEST(Half, EveryFiniteHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00) continue;  // inf / nan
    const float f = half_to_float(static_cast<uint16_t>(h));
    ASSERT_EQ(float_to_half(f), h) << std::hex << h;
  }
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
}

TEST(Quantize, OffsetIsNegativeZeroPoint) {
  // uint8, scale 0.5, offset -128 (zero point 128): real 0 -> 128, 1 -> 130.
  EXPECT_EQ(quantize_one(0.0f, 0.5f, -128, 0, 255), 128);
  EXPECT_EQ(quantize_one(1.0f, 0.5f, -128, 0, 255), 130);
  EXPECT_EQ(quantize_one(-64.0f, 0.5f, -128, 0, 255), 0);
  EXPECT_EQ(quantize_one(-100.0f, 0.5f, -128, 0, 255), 0);    // saturates
  EXPECT_EQ(quantize_one(1000.0f, 0.5f, -128, 0, 255), 255);  // saturates
  // Ties go to even: 0.25/0.5 = 0.5 -> 0; 0.75/0.5 = 1.5 -> 2.
  EXPECT_EQ(quantize_one(0.25f, 0.5f, 0, 0, 255), 0);
  EXPECT_EQ(quantize_one(0.75f, 0.5f, 0, 0, 255), 2);
  EXPECT_EQ(quantize_one(std::nanf(""), 1.0f, 0, -128, 127), -128);
}

TEST(Quantize, TensorPerChannelUsesTheAxis) {
  // [2,3] SFIXED_8, per-channel along axis 1: channel c has scale c+1.
  TensorDesc t = typed(dtype::kSfixed8, {2, 3});
  t.quant.present = true;
  t.quant.axis = 1;
  t.quant.scales = {1.0f, 2.0f, 3.0f};
  t.quant.offsets = {0, 0, 0};
  const int8_t q[6] = {1, 1, 1, -2, 3, -4};
  float f[6];
  to_float(t, q, f);
  const float want[6] = {1, 2, 3, -2, 6, -12};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(f[i], want[i]) << i;
  int8_t back[6];
  from_float(t, f, back);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(back[i], q[i]) << i;
}

TEST(Quantize, Uint16AndInt32Ranges) {
  TensorDesc t = typed(dtype::kUfixed16, {3});
  t.quant = Quant::per_tensor(0.001f, -32768);
  const float f[3] = {0.0f, 40.0f, -40.0f};
  uint16_t q[3];
  from_float(t, f, q);
  EXPECT_EQ(q[0], 32768);
  EXPECT_EQ(q[1], 65535);  // 40/0.001 + 32768 > 65535
  EXPECT_EQ(q[2], 0);
  TensorDesc i = typed(dtype::kInt32, {2});
  const float g[2] = {2.5f, -7.0f};
  int32_t out[2];
  from_float(i, g, out);  // plain integers: round half even, no encoding
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], -7);
}

TEST(Quantize, EncodingChecks) {
  TensorDesc t = typed(dtype::kUfixed8, {2, 4});
  EXPECT_NE(check_encoding(t).find("needs a quantization encoding"), std::string::npos);
  t.quant = Quant::per_tensor(0.0f, 0);
  EXPECT_NE(check_encoding(t).find("scale is 0"), std::string::npos);
  t.quant = Quant::per_tensor(0.1f, -3);
  EXPECT_EQ(check_encoding(t), "");
  t.quant.axis = 1;
  t.quant.scales = {1, 1, 1};
  t.quant.offsets = {0, 0, 0};
  EXPECT_NE(check_encoding(t).find("3 scales for 4 channels"), std::string::npos);
  t.quant.axis = 2;
  EXPECT_NE(check_encoding(t).find("axis 2 is outside rank 2"), std::string::npos);
  EXPECT_EQ(check_encoding(f32({3})), "");  // float needs none
}

}  // namespace
}  // namespace opstest
