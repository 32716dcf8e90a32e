// kernels/silu.h: SiLU over float32 in place, then a clamp, against
// x * (1 / (1 + exp(-x))) in double, rounded: within 2 ulp above x = -87,
// -0 below -88.7 (|silu| < 2e-37 there), and the special values the double
// formula gives.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "kernels/silu.h"

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Each test runs on both implementations (the AVX-512 loop is what
// silu_clamp_f32 runs on an AVX-512 CPU, the portable one elsewhere).
using SiluFn = void (*)(float*, size_t, float, float);
class Silu : public ::testing::TestWithParam<SiluFn> {};
INSTANTIATE_TEST_SUITE_P(Paths, Silu,
                         ::testing::Values(&openhtp::kernels::silu_clamp_f32,
                                           &openhtp::kernels::silu_clamp_f32_portable),
                         [](const auto& info) { return info.index == 0 ? "Dispatched" : "Portable"; });

float silu_ref(float x) { return static_cast<float>(double{x} * (1.0 / (1.0 + std::exp(-double{x})))); }

double ulps(float got, float want) {
  const double unit = std::ldexp(1.0, std::ilogb(want) - 23);
  return std::fabs(double{got} - want) / unit;
}

TEST_P(Silu, WithinTwoUlpOfTheDoubleFormula) {
  std::mt19937 rng(5);
  std::vector<float> x;
  for (int i = 0; i < 200000; ++i) x.push_back(std::uniform_real_distribution<float>(-87.0f, 90.0f)(rng));
  for (int i = 0; i < 200000; ++i) x.push_back(std::uniform_real_distribution<float>(-6.0f, 6.0f)(rng));
  for (int e = -40; e <= 6; ++e) x.push_back(std::ldexp(1.0f, e)), x.push_back(-std::ldexp(1.0f, e));
  std::vector<float> y = x;
  GetParam()(y.data(), y.size(), -kInf, kInf);  // odd lengths too: the vector tail
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = silu_ref(x[i]);
    if (want == 0.0f) {
      EXPECT_EQ(y[i], 0.0f) << x[i];
      continue;
    }
    worst = std::max(worst, ulps(y[i], want));
    ASSERT_LE(ulps(y[i], want), 2.0) << "x = " << x[i] << ": " << y[i] << " against " << want;
  }
  EXPECT_GT(worst, 0.0) << "the pass did not run";
}

TEST_P(Silu, FarBelowZeroFlushesAndSpecialValues) {
  std::vector<float> x = {-89.0f, -100.0f, -1e30f, 0.0f, -0.0f, kInf, -kInf, std::nanf("")};
  std::vector<float> y = x;
  GetParam()(y.data(), y.size(), -kInf, kInf);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(y[i], 0.0f) << x[i];
    EXPECT_TRUE(std::signbit(y[i])) << x[i];
    EXPECT_LT(std::fabs(silu_ref(x[i])), 2e-37f) << x[i];
  }
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_FALSE(std::signbit(y[3]));
  EXPECT_TRUE(std::signbit(y[4]));
  EXPECT_EQ(y[5], kInf);
  EXPECT_TRUE(std::isnan(y[6])) << "-inf * sigmoid(-inf) = -inf * 0";
  EXPECT_TRUE(std::isnan(silu_ref(-kInf)));
  EXPECT_TRUE(std::isnan(y[7]));
}

TEST_P(Silu, ClampsAfterward) {
  std::vector<float> x = {-3.0f, -0.5f, 0.0f, 0.3f, 2.0f, 50.0f, std::nanf("")};
  std::vector<float> y = x;
  GetParam()(y.data(), y.size(), -0.1f, 1.0f);
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    const float want = std::min(std::max(silu_ref(x[i]), -0.1f), 1.0f);
    EXPECT_NEAR(y[i], want, 3e-7f * std::fabs(want)) << x[i];
  }
  EXPECT_TRUE(std::isnan(y.back())) << "NaN passes the clamp, as the reference's";
}

// silu_clamp_f32_sums: the same values as the pass (bit for bit: the same
// arithmetic), and per channel the float sum of them, against a double sum
// of those values: within n * 2^-24 of the sum of magnitudes (a float
// running sum's bound). Both implementations, channel counts around the
// AVX-512 loop's 16-lane vectors and 64-channel blocks.
using SiluSumsFn = void (*)(float*, size_t, size_t, float, float, float*);
class SiluSums : public ::testing::TestWithParam<SiluSumsFn> {};
INSTANTIATE_TEST_SUITE_P(Paths, SiluSums,
                         ::testing::Values(&openhtp::kernels::silu_clamp_f32_sums,
                                           &openhtp::kernels::silu_clamp_f32_sums_portable),
                         [](const auto& info) { return info.index == 0 ? "Dispatched" : "Portable"; });

TEST_P(SiluSums, ValuesAreThePassAndSumsAddThemPerChannel) {
  std::mt19937 rng(9);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (size_t channels : {1, 5, 16, 17, 32, 48, 64, 65, 96, 144, 200}) {
    for (auto [lo, hi] : {std::pair{-kInf, kInf}, std::pair{-0.1f, 4.0f}}) {
      const size_t pixels = 1 + rng() % 300;
      std::vector<float> x(pixels * channels);
      for (float& v : x) v = d(rng);
      std::vector<float> y = x, want = x;
      openhtp::kernels::silu_clamp_f32(want.data(), want.size(), lo, hi);
      std::vector<float> sums(channels + 1, 0.0f);
      sums[channels] = 42.0f;  // past the end: untouched
      for (size_t c = 0; c < channels; ++c) sums[c] = static_cast<float>(c);  // added to, not overwritten
      GetParam()(y.data(), pixels, channels, lo, hi, sums.data());
      ASSERT_EQ(y, want) << channels << " channels";
      EXPECT_EQ(sums[channels], 42.0f);
      for (size_t c = 0; c < channels; ++c) {
        double exact = static_cast<double>(c), magnitude = static_cast<double>(c);
        for (size_t p = 0; p < pixels; ++p) {
          exact += want[p * channels + c];
          magnitude += std::fabs(want[p * channels + c]);
        }
        ASSERT_NEAR(sums[c], exact, magnitude * (pixels + 1) * 0x1p-24) << channels << " channels, channel " << c;
      }
    }
  }
}

}  // namespace
