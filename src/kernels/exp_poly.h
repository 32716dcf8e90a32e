// exp in float as 2^k * p(r): the polynomial and the ln 2 split the SiLU pass
// (silu.cpp) and the fp32 tanh and GELU loops (float_transcendental.cpp)
// share.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace openhtp::kernels::exp_poly {

// exp(r) on |r| <= ln2 / 2 as 1 + r + c2 r^2 + ... + c6 r^6: a near-minimax
// fit of the relative error (Lawson's iteration over 4000 Chebyshev nodes,
// the coefficients then rounded to float), max relative error 1.7e-8 (0.3
// ulp). It replaced the degree-7 Taylor polynomial: one fused multiply-add
// fewer an element, no less accurate (session 13, docs/performance.md).
inline constexpr float kC2 = 0.4999999403953552f;
inline constexpr float kC3 = 0.16666431725025177f;
inline constexpr float kC4 = 0.04166800156235695f;
inline constexpr float kC5 = 0.00837415549904108f;
inline constexpr float kC6 = 0.0013843653723597527f;
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693145751953125f;  // ln 2 split: k * kLn2Hi is exact
inline constexpr float kLn2Lo = 1.428606765330187e-06f;

// k = round(v / ln 2) and p = exp(v - k ln 2) (r in two steps), so that
// exp(v) = 2^k p; the caller applies 2^k.
inline float reduced(float v, float* k_out) {
  const float k = std::nearbyint(v * kLog2e);
  float r = std::fma(-k, kLn2Hi, v);
  r = std::fma(-k, kLn2Lo, r);
  float p = std::fma(kC6, r, kC5);
  p = std::fma(p, r, kC4);
  p = std::fma(p, r, kC3);
  p = std::fma(p, r, kC2);
  p = std::fma(p, r, 1.0f);
  *k_out = k;
  return std::fma(p, r, 1.0f);
}

// exp(v) for v whose k = round(v / ln 2) lies in [-126, 128] (the caller
// clamps; k = 128 gives infinity): r = v - k ln 2 in two steps, 2^k built
// in the exponent field, so 2^k p is exact and the result is rounded once,
// in p. Written element by element for loops GCC vectorizes.
inline float exp_clamped(float v) {
  float k;
  const float p = reduced(v, &k);
  return p * std::bit_cast<float>(static_cast<int32_t>(k + 127.0f) << 23);
}

}  // namespace openhtp::kernels::exp_poly
