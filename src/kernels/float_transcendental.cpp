#include "kernels/float_transcendental.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/exp_poly.h"
#include "kernels/isa_level.h"

namespace openhtp::kernels {
namespace {

// p(u) = c[0] + c[1] u + ... on u in [-1, 1], unrolled at compile time (an
// inner loop would keep GCC from vectorizing the loop over elements).
template <size_t I = 0, typename T, size_t N>
inline T horner(const T (&c)[N], T u) {
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

// log(x) of a positive normal x: x = 2^k m with m in [sqrt(1/2), sqrt(2))
// (the exponent field taken relative to sqrt(1/2)'s bits), f = m - 1
// (exact), s = f / (2 + f), and log(m) = 2 atanh(s) = f - s (f - R) with
// R = s^2 (2/3 + 2/5 s^2 + ... + 2/11 s^8), atanh's own series: |s| <=
// 0.1716, so the first term left out is under 2e-9 of the result. Written
// as f minus a correction of size f^2 / 2, so a result near 0 (x near 1)
// keeps f's exactness.
constexpr uint32_t kSqrtHalfBits = 0x3f3504f3u;  // sqrt(1/2) as a float's bits
// `scale`: log2 of a power of two x was multiplied by (subtracted from k).
inline float log_normal(float x, float scale = 0.0f) {
  const int32_t t = static_cast<int32_t>(std::bit_cast<uint32_t>(x) - kSqrtHalfBits);
  const float k = static_cast<float>(t >> 23) - scale;  // arithmetic shift: x below sqrt(1/2) gives k = -1
  const float m = std::bit_cast<float>((static_cast<uint32_t>(t) & 0x007fffffu) + kSqrtHalfBits);
  const float f = m - 1.0f;
  const float s = f / (m + 1.0f);
  const float z = s * s;
  float r = std::fma(z, 2.0f / 11.0f, 2.0f / 9.0f);
  r = std::fma(r, z, 2.0f / 7.0f);
  r = std::fma(r, z, 2.0f / 5.0f);
  r = std::fma(r, z, 2.0f / 3.0f);
  r *= z;
  const float log_m = f - s * (f - r);
  return std::fma(k, exp_poly::kLn2Hi, std::fma(k, exp_poly::kLn2Lo, log_m));
}

// log(x) as logf gives it: subnormal inputs scaled by 2^24 first; log(0) =
// -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays NaN.
inline float log_one(float x) {
  const bool subnormal = x < 0x1p-126f;
  // Arithmetic on both sides, the choice after it: a conditional multiply
  // would keep GCC from vectorizing the loop (it may not speculate one).
  const float y = log_normal(x * (subnormal ? 0x1p24f : 1.0f), subnormal ? 24.0f : 0.0f);
  float out = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : y;
  out = x == 0.0f ? -std::numeric_limits<float>::infinity() : out;
  out = x == std::numeric_limits<float>::infinity() ? x : out;
  return x != x ? x : out;
}

// Softplus as the reference's formula: max(x, 0) + log1p(e^{-|bx|}) / b,
// with log1p(u) = log(w) + (u - (w - 1)) / w for w = 1 + u rounded (the
// second term is what the rounding lost), and e^{-|bx|} taken as 0 beyond
// |bx| = 87.33 (log1p of it is then below the smallest normal float).
// Above the threshold (when one is set, t >= 0) the result is x; bx > t is
// decided on the exact product (b x as p + e, e from a fused multiply-add),
// as the reference compares it in double.
constexpr float kSoftplusCut = 87.33f;  // e^-87.33 is still normal; beyond, log1p(e^{-|bx|}) < 2^-126
struct SoftplusFn {
  float beta, threshold;
  float operator()(float x) const {
    const float p = beta * x;
    const float e = std::fma(beta, x, -p);
    const float a = std::fabs(p);
    const float e_a = exp_poly::exp_clamped(-(a < kSoftplusCut ? a : kSoftplusCut));  // NaN: selected away below
    const float u = a < kSoftplusCut ? e_a : 0.0f;
    const float w = 1.0f + u;
    const float l = log_normal(w) + (u - (w - 1.0f)) / w;
    const float y = (x > 0.0f ? x : 0.0f) + l / beta;
    // Bitwise, not short-circuit: no branch in the loop.
    const bool linear = (threshold >= 0.0f) & ((p > threshold) | ((p == threshold) & (e > 0.0f)));
    return x != x ? x : (linear ? x : y);
  }
};

// sin and cos: r = x - j pi/2 with j = round(x 2/pi) and pi/2 in three
// float parts (Cody-Waite; each step one fused multiply-add, the first
// exact for |x| >= 1), then the Taylor series on |r| <=
// pi/4 (sin to r^9, cos to r^10: the first terms left out are under 3e-9
// there) and the quadrant j mod 4, taken in float (j - 4 floor(j / 4),
// exact for every integer-valued j, no conversion to an integer). Used up
// to |x| = 2^20 (kSinCosReduced).
constexpr float kTwoOverPi = 0.636619772367581343f;
// Up to here the reduction is accurate (j below 2^20; the first step is
// exact); beyond, and for inf and NaN, libm's sinf/cosf answer, as in the
// reference (sin_f32/cos_f32 below).
constexpr float kSinCosReduced = 1048576.0f;
constexpr float kPio2A = 1.57079637050628662f;       // float(pi/2)
constexpr float kPio2B = -4.371138828673793e-8f;    // float(pi/2 - kPio2A)
constexpr float kPio2C = -1.7151245100058819e-15f;  // float(pi/2 - kPio2A - kPio2B)
inline float sin_poly(float r, float z) {  // z = r^2
  float p = std::fma(z, 1.0f / 362880.0f, -1.0f / 5040.0f);
  p = std::fma(p, z, 1.0f / 120.0f);
  p = std::fma(p, z, -1.0f / 6.0f);
  return std::fma(r * z, p, r);
}
inline float cos_poly(float z) {
  float p = std::fma(z, -1.0f / 3628800.0f, 1.0f / 40320.0f);
  p = std::fma(p, z, -1.0f / 720.0f);
  p = std::fma(p, z, 1.0f / 24.0f);
  p = std::fma(p, z, -0.5f);
  return std::fma(p, z, 1.0f);
}
// sin(x) (shift 0) or cos(x) = sin(x + pi/2) (shift 1, one quadrant on).
template <int kShift>
inline float sincos_one(float x) {
  const float j = std::nearbyint(x * kTwoOverPi);
  float r = std::fma(-j, kPio2A, x);
  r = std::fma(-j, kPio2B, r);
  r = std::fma(-j, kPio2C, r);
  const float z = r * r;
  const float q = j + static_cast<float>(kShift) - 4.0f * std::floor((j + static_cast<float>(kShift)) * 0.25f);
  const float s = sin_poly(r, z), c = cos_poly(z);
  // q = 0: s, 1: c, 2: -s, 3: -c. NaN and +-inf give NaN through r.
  const float v = (q == 1.0f || q == 3.0f) ? c : s;
  return q >= 2.0f ? -v : v;
}

// Logit as the reference computes it: z = x (clamped to [eps, 1 - eps] when
// eps is given, NaN kept), q = z / (1 - z) in double, log(q) in double,
// rounded once to float. The log is log_normal's scheme in double: q = 2^k m,
// m in [sqrt(1/2), sqrt(2)), log(m) = f - s (f - R) with atanh's series to
// s^20 (|s| <= 0.1716: the first term left out is below 2^-56 of the
// result), k ln 2 in two parts. q is a normal double or 0, inf, NaN, or
// negative here (z comes from a float): no subnormal path. The result is
// the reference's (libm's log, then the same rounding) but where the two
// double logs land on either side of a float rounding boundary.
constexpr uint64_t kSqrtHalfBits64 = 0x3fe6a09e667f3bcdull;  // sqrt(1/2) as a double's bits
constexpr double kLn2Hi64 = 6.93147180369123816490e-01, kLn2Lo64 = 1.90821492927058770002e-10;
// 2/3, 2/5, ..., 2/21: atanh's series in z = s^2, less its first term.
constexpr double kAtanhSeries64[] = {2.0 / 3,  2.0 / 5,  2.0 / 7,  2.0 / 9,  2.0 / 11,
                                     2.0 / 13, 2.0 / 15, 2.0 / 17, 2.0 / 19, 2.0 / 21};
inline double log_positive_f64(double q) {
  // Biased by 1023 exponents so that the shift is a logical one (AVX2 has
  // no 64-bit arithmetic shift) and never crosses 0 for q >= 2^-1022.
  const uint64_t t = std::bit_cast<uint64_t>(q) - kSqrtHalfBits64 + (uint64_t{1023} << 52);
  const double k = static_cast<double>(static_cast<int64_t>(t >> 52) - 1023);
  const double m = std::bit_cast<double>((t & 0x000fffffffffffffull) + kSqrtHalfBits64);
  const double f = m - 1.0;
  const double s = f / (m + 1.0);
  const double z = s * s;
  const double r = z * horner(kAtanhSeries64, z);
  const double log_m = f - s * (f - r);
  return std::fma(k, kLn2Hi64, std::fma(k, kLn2Lo64, log_m));
}
struct LogitFn {
  bool clamp;
  double lo, hi;
  float operator()(float x) const {
    const double v = x;
    const double z = clamp ? (v < lo ? lo : (v > hi ? hi : v)) : v;  // NaN stays NaN
    const double q = z / (1.0 - z);
    double y = log_positive_f64(q > 0.0 ? q : 1.0);  // the edges selected below
    y = q == 0.0 ? -std::numeric_limits<double>::infinity() : y;
    y = q < 0.0 ? std::numeric_limits<double>::quiet_NaN() : y;
    y = q == std::numeric_limits<double>::infinity() ? q : y;
    return static_cast<float>(q != q ? q : y);
  }
};

// atan and asin (FLOAT_32): odd polynomials x + x z P(z), z = x^2, least-
// squares fits of relative error made for this file (degrees 4 and 5 in z;
// coefficients rounded to float), on |x| <= tan(pi/8) and |x| <= 1/2.
//   atan: |x| > tan(3 pi/8) as pi/2 + atan(-1/|x|), |x| > tan(pi/8) as
//   pi/4 + atan((|x| - 1) / (|x| + 1)), pi/2 and pi/4 in two float parts;
//   the sign restored at the end (atan is odd).
//   asin: |x| > 1/2 as pi/2 - 2 asin(s), s = sqrt((1 - |x|) / 2) <= 1/2
//   (exact inputs for the square root: 1 - |x| is exact there); |x| > 1
//   gives NaN through the square root, as asinf does.
// Measured against double atan/asin over every 97th float: 2.1 and 2.3 ulp
// (libm's atanf/asinf: 0.8 and 0.9).
constexpr float kAtanP[] = {-0.3333333134651184f, 0.19999535381793976f, -0.14263808727264404f,
                            0.10742427408695221f, -0.06448239833116531f};
constexpr float kAsinP[] = {0.1666666567325592f,   0.07500092685222626f,  0.04459977149963379f,
                            0.031097088009119034f, 0.017164085060358047f, 0.03366861492395401f};
constexpr float kTanPi8 = 0.41421356f, kTan3Pi8 = 2.41421356f;
constexpr float kPi2Hi = 1.57079637f, kPi2Lo = -4.37113883e-8f;  // pi/2 = hi + lo
constexpr float kPi4Hi = 0.785398185f, kPi4Lo = -2.18556941e-8f;

inline float atan_one(float x) {
  const float a = std::fabs(x);
  const bool big = a > kTan3Pi8, mid = a > kTanPi8;
  const float r = big ? -1.0f / a : (mid ? (a - 1.0f) / (a + 1.0f) : a);
  const float hi = big ? kPi2Hi : (mid ? kPi4Hi : 0.0f);
  const float lo = big ? kPi2Lo : (mid ? kPi4Lo : 0.0f);
  const float z = r * r;
  const float y = hi + (std::fma(r * z, horner(kAtanP, z), r) + lo);
  return std::copysign(y, x);  // NaN: r and y are NaN
}

inline float asin_one(float x) {
  const float a = std::fabs(x);
  const bool big = a > 0.5f;
  const float z = big ? 0.5f * (1.0f - a) : a * a;
  const float s = big ? std::sqrt(z) : a;
  const float p = std::fma(s * z, horner(kAsinP, z), s);
  const float y = big ? kPi2Hi - (2.0f * p - kPi2Lo) : p;
  return std::copysign(y, x);
}

// 1 / sqrt(x) as the reference computes it, in double and rounded once to
// float: the same IEEE operations, so the same bits, NaNs included.
inline float rsqrt_one(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }

// The loop over elements, compiled once per ISA level below (GCC vectorizes
// it at each) and chosen by isa_level() (isa_level.h says why not
// target_clones).
template <typename Fn>
inline void each(const float* x, float* y, size_t n, Fn fn) {
  for (size_t i = 0; i < n; ++i) y[i] = fn(x[i]);
}

#define OPENHTP_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))
#define OPENHTP_AVX2 __attribute__((target("avx2,fma")))
template <typename Fn>
OPENHTP_AVX512 void each_avx512(const float* x, float* y, size_t n, Fn fn) {
  each(x, y, n, fn);
}
template <typename Fn>
OPENHTP_AVX2 void each_avx2(const float* x, float* y, size_t n, Fn fn) {
  each(x, y, n, fn);
}

// x^k (1 / x^k when invert) for a block of m <= kPowerBlock elements: the
// bits of k walked once per block, each step a plain loop over the block in
// double that vectorizes (k is the same for every element).
constexpr size_t kPowerBlock = 256;
__attribute__((always_inline)) inline void whole_power_block(const float* x, float* y, size_t m, uint32_t k,
                                                             bool invert) {
  double d[kPowerBlock], r[kPowerBlock];
  for (size_t i = 0; i < m; ++i) {
    d[i] = x[i];
    r[i] = 1.0;
  }
  for (; k != 0; k >>= 1) {
    if (k & 1) {
      for (size_t i = 0; i < m; ++i) r[i] *= d[i];
    }
    if (k > 1) {
      for (size_t i = 0; i < m; ++i) d[i] *= d[i];
    }
  }
  if (invert) {
    for (size_t i = 0; i < m; ++i) y[i] = static_cast<float>(1.0 / r[i]);
  } else {
    for (size_t i = 0; i < m; ++i) y[i] = static_cast<float>(r[i]);
  }
}
OPENHTP_AVX512 void whole_power_avx512(const float* x, float* y, size_t m, uint32_t k, bool invert) {
  whole_power_block(x, y, m, k, invert);
}
OPENHTP_AVX2 void whole_power_avx2(const float* x, float* y, size_t m, uint32_t k, bool invert) {
  whole_power_block(x, y, m, k, invert);
}
#undef OPENHTP_AVX512
#undef OPENHTP_AVX2

using Level = IsaLevel;

template <typename Fn>
void dispatch(const float* x, float* y, size_t n, Fn fn) {
  switch (isa_level()) {
    case Level::kAvx512: return each_avx512(x, y, n, fn);
    case Level::kAvx2: return each_avx2(x, y, n, fn);
    case Level::kBaseline: return each(x, y, n, fn);
  }
}

// A plain function as a functor, so that it inlines into each ISA's loop.
template <float (*F)(float)>
struct Of {
  float operator()(float x) const { return F(x); }
};

// Whether every x[i] is within the reduction's range (NaN is not): an
// AND-reduction GCC vectorizes.
bool all_reducible(const float* x, size_t n) {
  bool all = true;
  for (size_t i = 0; i < n; ++i) all &= std::fabs(x[i]) <= kSinCosReduced;
  return all;
}

// In blocks: the series on every element, then libm for the few outside
// the range, from a copy of the block's inputs (x may be y).
template <int kShift>
void sincos_f32(const float* x, float* y, size_t n) {
  constexpr size_t kBlock = 512;
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t m = std::min(kBlock, n - b);
    if (all_reducible(x + b, m)) {
      dispatch(x + b, y + b, m, Of<sincos_one<kShift>>{});
      continue;
    }
    float keep[kBlock];
    std::memcpy(keep, x + b, m * sizeof(float));
    dispatch(keep, y + b, m, Of<sincos_one<kShift>>{});
    for (size_t i = 0; i < m; ++i) {
      if (!(std::fabs(keep[i]) <= kSinCosReduced)) y[b + i] = kShift == 0 ? std::sin(keep[i]) : std::cos(keep[i]);
    }
  }
}

// powf(x, 0.5) and powf(x, -0.5) at their edges: sqrt(-0) is -0 where powf
// gives +0 (the + 0 makes it so), and sqrt(-inf) NaN where powf gives +inf
// (its inverse +0).
inline float sqrt_power_one(float x) {
  return x == -std::numeric_limits<float>::infinity() ? std::numeric_limits<float>::infinity() : std::sqrt(x) + 0.0f;
}
inline float rsqrt_power_one(float x) {
  return x == -std::numeric_limits<float>::infinity()
             ? 0.0f
             : static_cast<float>(1.0 / (std::sqrt(static_cast<double>(x)) + 0.0));
}

}  // namespace

void whole_power_f32(const float* x, float* y, size_t n, int e) {
  const uint32_t k = static_cast<uint32_t>(e < 0 ? -e : e);
  const Level level = isa_level();
  for (size_t b = 0; b < n; b += kPowerBlock) {
    const size_t m = std::min(kPowerBlock, n - b);
    switch (level) {
      case Level::kAvx512: whole_power_avx512(x + b, y + b, m, k, e < 0); break;
      case Level::kAvx2: whole_power_avx2(x + b, y + b, m, k, e < 0); break;
      case Level::kBaseline: whole_power_block(x + b, y + b, m, k, e < 0); break;
    }
  }
}

void half_power_f32(const float* x, float* y, size_t n, bool negative) {
  if (negative) {
    dispatch(x, y, n, Of<rsqrt_power_one>{});
  } else {
    dispatch(x, y, n, Of<sqrt_power_one>{});
  }
}

void tanh_f32(const float* x, float* y, size_t n) { dispatch(x, y, n, Of<tanh_one>{}); }
void gelu_f32(const float* x, float* y, size_t n) { dispatch(x, y, n, Of<gelu_one>{}); }
void exp_f32(const float* x, float* y, size_t n) { dispatch(x, y, n, Of<exp_one>{}); }
void log_f32(const float* x, float* y, size_t n) { dispatch(x, y, n, Of<log_one>{}); }
void rsqrt_f32(const float* x, float* y, size_t n) { dispatch(x, y, n, Of<rsqrt_one>{}); }
void atan_f32(const float* x, float* y, size_t n) { dispatch(x, y, n, Of<atan_one>{}); }
void asin_f32(const float* x, float* y, size_t n) { dispatch(x, y, n, Of<asin_one>{}); }
void sin_f32(const float* x, float* y, size_t n) { sincos_f32<0>(x, y, n); }
void cos_f32(const float* x, float* y, size_t n) { sincos_f32<1>(x, y, n); }
void logit_f32(const float* x, float* y, size_t n, bool clamp, float eps) {
  dispatch(x, y, n, LogitFn{clamp, eps, 1.0 - double{eps}});
}
void softplus_f32(const float* x, float* y, size_t n, float beta, float threshold) {
  dispatch(x, y, n, SoftplusFn{beta, threshold});
}

}  // namespace openhtp::kernels
