#include "kernels/float_transcendental.h"

#include <bit>
#include <cmath>
#include <cstdint>

#include "kernels/exp_poly.h"

namespace openhtp::kernels {
namespace {

// p(u) = c[0] + c[1] u + ... on u in [-1, 1], unrolled at compile time (an
// inner loop would keep GCC from vectorizing the loop over elements).
template <size_t I = 0, size_t N>
inline float horner(const float (&c)[N], float u) {
  if constexpr (I + 1 == N) {
    return c[I];
  } else {
    return std::fma(horner<I + 1>(c, u), u, c[I]);
  }
}

// (tanh(x) - x) / x^3 on s = x^2 in [0, 0.390625]: u = (s - 0.1953125) * 5.12.
constexpr float kTanhR[] = {-3.091993928e-01f, 2.236590348e-02f, -1.638156944e-03f, 1.209536276e-04f,
                            -8.871887076e-06f};
constexpr float kTanhSmall = 0.625f;
constexpr float kTanhMaxTwice = 18.2f;  // 2 |x| clamped: tanh(9.1) rounds to 1

// erf(t) / t on s = t^2 in [0, 0.5625]: u = (s - 0.28125) * 3.5555... (t
// below 0.75: Phi = 1/2 - erf(t)/2 for x < 0 cancels at most 2.5x there).
constexpr float kErfP[] = {1.030952811e+00f, -8.960376680e-02f, 7.314458955e-03f, -4.808715603e-04f,
                           2.606190901e-05f, -1.189003456e-06f};
constexpr float kErfInvHalf = 3.5555555555555554f;
constexpr float kErfSplitT = 0.75f;
// erfc(t) e^{t^2} on t in [0.75, 3.9]: u = (t - 2.325) * 0.6349...
constexpr float kErfcxQ[] = {2.246261984e-01f,  -1.320910007e-01f, 7.351240516e-02f,  -3.898489475e-02f,
                             1.980285160e-02f,  -9.663774632e-03f, 4.558863584e-03f,  -2.123787766e-03f,
                             9.380723350e-04f,  -3.328178718e-04f, 1.423746289e-04f,  -1.154508791e-04f,
                             4.514316970e-05f};
constexpr float kInvSqrt2 = 0.707106781186547524f;
constexpr float kSqrt2 = 1.41421356237309505f;
constexpr float kErfcCenter = 2.325f;
constexpr float kErfcInvHalf = 0.6349206349206349f;
constexpr float kTailT = 3.9f;  // erfc(3.9) < 4e-8

inline float tanh_one(float x) {
  const float a = std::fabs(x);
  const float s = x * x;
  const float small = std::fma(x * s, horner(kTanhR, std::fma(s, 5.12f, -1.0f)), x);
  float v = 2.0f * a;
  v = v < kTanhMaxTwice ? v : kTanhMaxTwice;  // NaN: the clamp; selected away below
  const float big = 1.0f - 2.0f / (exp_poly::exp_clamped(v) + 1.0f);
  const float y = a < kTanhSmall ? small : std::copysign(big, x);
  return x != x ? x : y;
}

inline float gelu_one(float x) {
  const float t = std::fabs(x) * kInvSqrt2;
  const float s = t * t;
  const float half_erf = 0.5f * t * horner(kErfP, std::fma(s, kErfInvHalf, -1.0f));
  const float phi_near = 0.5f + (x < 0.0f ? -half_erf : half_erf);
  // |x| clamped to [0.75, 3.9] sqrt 2; t^2 = x^2 / 2 as hi + lo exactly, from
  // x rather than from the rounded t, whose error e^{-t^2} would multiply
  // by 2 t^2 (up to 30 ulp at t = 3.9).
  const float a = std::fabs(x);
  float ac = a < kTailT * kSqrt2 ? a : kTailT * kSqrt2;  // NaN: the clamp; selected away below
  ac = ac > kErfSplitT * kSqrt2 ? ac : kErfSplitT * kSqrt2;
  const float aa = ac * ac;
  const float hi = 0.5f * aa, lo = 0.5f * std::fma(ac, ac, -aa);
  const float half_erfc = 0.5f * exp_poly::exp_clamped(-hi) * (1.0f - lo) *
                          horner(kErfcxQ, (ac * kInvSqrt2 - kErfcCenter) * kErfcInvHalf);
  float phi_far = x < 0.0f ? half_erfc : 1.0f - half_erfc;
  if (t >= kTailT) phi_far = x < 0.0f ? 0.0f : 1.0f;  // -inf * 0: NaN, as the reference's -inf * (1 + erf)
  const float y = x * (t < kErfSplitT ? phi_near : phi_far);
  return x != x ? x : y;
}

// exp(x): 2^k p(r) as exp_clamped, with 2^k applied in two factors so that
// k may run from -150 to 128: results in the subnormal range and overflow
// round once, in the second product, as expf's do. x is clamped to
// [-104, 89], beyond which expf gives 0 and infinity.
inline float exp_one(float x) {
  float v = x > -104.0f ? x : -104.0f;  // NaN: the clamp; selected away below
  v = v < 89.0f ? v : 89.0f;
  float k;
  const float p = exp_poly::reduced(v, &k);
  const float k1 = std::nearbyint(k * 0.5f), k2 = k - k1;  // each in [-75, 64]: normal powers of two
  const float y = p * std::bit_cast<float>(static_cast<int32_t>(k1 + 127.0f) << 23) *
                  std::bit_cast<float>(static_cast<int32_t>(k2 + 127.0f) << 23);
  return x != x ? x : y;
}

// The loop over elements, compiled once per ISA level below (GCC vectorizes
// it at each) and chosen by a CPU check. Not target_clones: an ifunc
// resolver runs before ThreadSanitizer's runtime is up, and the TSan tree's
// DSP process crashed at load with it (as quant.cpp found).
template <float (*F)(float)>
inline void each(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = F(x[i]);
}

#define OPENHTP_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))
#define OPENHTP_AVX2 __attribute__((target("avx2,fma")))
template <float (*F)(float)>
OPENHTP_AVX512 void each_avx512(const float* x, float* y, size_t n) {
  each<F>(x, y, n);
}
template <float (*F)(float)>
OPENHTP_AVX2 void each_avx2(const float* x, float* y, size_t n) {
  each<F>(x, y, n);
}
#undef OPENHTP_AVX512
#undef OPENHTP_AVX2

enum class Level { kBaseline, kAvx2, kAvx512 };

Level cpu_level() {
  static const Level level = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")) {
      return Level::kAvx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Level::kAvx2;
    return Level::kBaseline;
  }();
  return level;
}

template <float (*F)(float)>
void dispatch(const float* x, float* y, size_t n) {
  switch (cpu_level()) {
    case Level::kAvx512: return each_avx512<F>(x, y, n);
    case Level::kAvx2: return each_avx2<F>(x, y, n);
    case Level::kBaseline: return each<F>(x, y, n);
  }
}

}  // namespace

void tanh_f32(const float* x, float* y, size_t n) { dispatch<tanh_one>(x, y, n); }
void gelu_f32(const float* x, float* y, size_t n) { dispatch<gelu_one>(x, y, n); }
void exp_f32(const float* x, float* y, size_t n) { dispatch<exp_one>(x, y, n); }

}  // namespace openhtp::kernels
