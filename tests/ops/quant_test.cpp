// The conversion rules every quantized and half-precision path relies on.
// Expected values are worked out by hand from the definitions: IEEE 754
// binary16 bit patterns and QNN's real = (q + offset) * scale.
#include <cmath>
#include <cstring>
#include <random>
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

// The array conversions (F16C where the CPU has it) must be the scalar
// functions bit for bit: every half widened; narrowed, every half's value,
// every midpoint between neighbouring halves (ties to even), the points
// just beside them, random floats over the whole exponent range (subnormal
// halves, overflow, float subnormals), and NaNs with payloads — each alone at
// every position of a 16-wide block, an 8-wide one and the scalar tail.
TEST(Half, ArrayConversionsAreTheScalarOnesBitForBit) {
  std::vector<uint16_t> halves(0x10000);
  for (uint32_t h = 0; h < 0x10000; ++h) halves[h] = static_cast<uint16_t>(h);
  std::vector<float> wide(halves.size());
  halves_to_floats(halves.data(), wide.data(), halves.size());
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float want = half_to_float(static_cast<uint16_t>(h));
    ASSERT_EQ(0, std::memcmp(&wide[h], &want, 4)) << std::hex << h;
  }
  std::vector<float> floats;
  auto from_bits = [](uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float a = half_to_float(static_cast<uint16_t>(h)), b = half_to_float(static_cast<uint16_t>(h + 1));
    uint32_t u;
    std::memcpy(&u, &a, 4);
    const float mid = a + (b - a) / 2;  // exact in float
    uint32_t m;
    std::memcpy(&m, &mid, 4);
    for (float f : {a, mid, from_bits(m - 1), from_bits(m + 1), from_bits(u + 1)}) {
      floats.push_back(f);
      floats.push_back(-f);
    }
  }
  std::mt19937 rng(12);
  for (int i = 0; i < 200000; ++i) floats.push_back(from_bits(static_cast<uint32_t>(rng())));  // NaN payloads too
  for (float f : {std::numeric_limits<float>::infinity(), 65504.0f, 65519.99f, 65520.0f, 1e30f, 1e-30f,
                  std::numeric_limits<float>::denorm_min(), std::nanf("")}) {
    floats.push_back(f);
    floats.push_back(-f);
  }
  std::vector<uint16_t> narrow(floats.size());
  floats_to_halves(floats.data(), narrow.data(), floats.size());
  size_t nans = 0;
  for (size_t i = 0; i < floats.size(); ++i) {
    ASSERT_EQ(narrow[i], float_to_half(floats[i])) << std::hexfloat << floats[i];
    nans += std::isnan(floats[i]);
  }
  EXPECT_GT(nans, 100u);
  // One NaN among ordinary values, at every position of 43 = two 16-wide
  // blocks (AVX-512), an 8-wide one (F16C; where the CPU has no AVX-512, five)
  // and a scalar tail of 3, both ways;
  // for halves, every kind of NaN (the smallest and largest payloads, both
  // signs, quiet and signalling).
  for (size_t at = 0; at < 43; ++at) {
    std::vector<float> v(43, 1.5f);
    v[at] = from_bits(0x7f800001u + static_cast<uint32_t>(at) * 0x1000u);
    std::vector<uint16_t> out(v.size());
    floats_to_halves(v.data(), out.data(), v.size());
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(out[i], float_to_half(v[i])) << at << " " << i;
    for (uint16_t nan : {0x7c01, 0x7dff, 0x7e00, 0x7fff, 0xfc01, 0xfe00, 0xffff}) {
      std::vector<uint16_t> hv(43, 0x3e00);  // 1.5
      hv[at] = nan;
      std::vector<float> fv(hv.size());
      halves_to_floats(hv.data(), fv.data(), hv.size());
      for (size_t i = 0; i < hv.size(); ++i) {
        const float want = half_to_float(hv[i]);
        ASSERT_EQ(0, std::memcmp(&fv[i], &want, 4)) << at << " " << i << " " << std::hex << nan;
      }
    }
  }
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

// Whole per-tensor tensors (the vectorized loops) must be the one-element
// rules exactly: quantize_one for every value — ties at k + 1/2 steps, values
// beside them, NaN, infinities, far out of range — and (q + offset) * scale
// in int64 arithmetic for every code, for each fixed-point type.
TEST(Quantize, WholeTensorsFollowTheOneElementRules) {
  std::mt19937 rng(5);
  struct Type {
    uint32_t dt;
    size_t bytes;
  };
  for (const Type ty : {Type{dtype::kUfixed8, 1}, Type{dtype::kSfixed8, 1}, Type{dtype::kUfixed16, 2},
                        Type{dtype::kSfixed16, 2}, Type{dtype::kSfixed32, 4}}) {
    const float scale = std::uniform_real_distribution<float>(1e-4f, 0.2f)(rng);
    const int32_t offset = int32_t(rng() % 2001) - 1000;
    TensorDesc t = typed(ty.dt, {0});
    t.quant = Quant::per_tensor(scale, offset);
    std::vector<float> f;
    for (int k = -300; k <= 300; ++k) {
      const float tie = (float(k) + 0.5f) * scale;
      f.push_back(tie);
      f.push_back(std::nextafter(tie, 1e30f));
      f.push_back(std::nextafter(tie, -1e30f));
    }
    std::uniform_real_distribution<float> wide(-3e5f, 3e5f);
    for (int i = 0; i < 4000; ++i) f.push_back(wide(rng) * scale);
    for (float v : {std::nanf(""), -std::nanf(""), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), 3e38f, -3e38f, 0.0f, -0.0f}) {
      f.push_back(v);
    }
    t.dims = {static_cast<uint32_t>(f.size())};
    std::vector<uint8_t> q(f.size() * ty.bytes);
    from_float(t, f.data(), q.data());
    std::vector<float> back(f.size());
    to_float(t, q.data(), back.data());
    const int64_t lo = qmin(ty.dt), hi = qmax(ty.dt);
    for (size_t i = 0; i < f.size(); ++i) {
      int64_t got = 0;
      if (ty.bytes == 1) got = qmin(ty.dt) < 0 ? int64_t(int8_t(q[i])) : int64_t(q[i]);
      if (ty.bytes == 2) {
        uint16_t u;
        std::memcpy(&u, &q[i * 2], 2);
        got = qmin(ty.dt) < 0 ? int64_t(int16_t(u)) : int64_t(u);
      }
      if (ty.bytes == 4) {
        int32_t v;
        std::memcpy(&v, &q[i * 4], 4);
        got = v;
      }
      ASSERT_EQ(got, quantize_one(f[i], scale, offset, lo, hi)) << std::hex << ty.dt << std::dec << " " << f[i];
      const float want = static_cast<float>((got + int64_t{offset}) * double{scale});
      ASSERT_EQ(back[i], want) << std::hex << ty.dt << std::dec << " code " << got;
    }
  }
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
