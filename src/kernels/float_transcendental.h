// FLOAT_32 tanh, GELU, exp, log, softplus, sin and cos as vectorized
// polynomials;
// rsqrt as a vectorized loop of the reference's own expression.
//
// Why: the reference computes them per element in double (erf) or with
// libm's float functions (tanhf, expf): 4-17 ns an element, so a ViT's or BERT's GELUs ran about as long as its
// matrix products, and the fast path could only split that reference over
// the pool from 2M elements. These loops are element by element with no
// branch, which GCC vectorizes (one clone per ISA level).
//
// Accuracy, against the reference (double erf / float tanhf): within
// 6 * 2^-24 * |y| + 2^-24 * max(1, |x|), the bound the tests hold XNNPACK's
// sigmoid, ELU and hard swish to; measured over a million values covering
// every exponent: tanh 2 ulp, GELU 4 ulp where the relative term binds, exp
// 1 ulp. NaN stays NaN; tanh(+-inf) = +-1, gelu(+inf) = +inf, gelu(-inf) =
// NaN, exp(-inf) = 0, exp overflows to +inf, as the reference gives.
//
// tanh(x): x + x^3 R(x^2) for |x| < 0.625, else sign(x) (1 - 2 / (e^{2|x|} +
// 1)) with |x| clamped to 9.1, where tanh already rounds to 1.
// gelu(x) = x Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2: with t = |x| /
// sqrt 2, erf(t) = t P(t^2) below t = 0.75, above it erfc(t) = e^{-t^2}
// Q(t) (t^2 split in two parts, so e^{-t^2} keeps its accuracy), so that
// Phi of a negative x never cancels more than 2.5x; from t = 3.9,
// erfc(t) < 4e-8 and Phi is 1 (x > 0) or 0 (x < 0). R, P and Q are
// Chebyshev interpolants evaluated on their interval mapped to [-1, 1]
// (degrees 4, 5 and 12; relative error 2e-7, 7e-8 and 1.5e-7 with float
// arithmetic).
// exp(x) = 2^k p(r), p the SiLU pass's polynomial (exp_poly.h), 2^k applied
// in two factors so subnormal results and overflow round once.
// sin, cos: Cody-Waite reduction by pi/2 in three parts, Taylor series on
// [-pi/4, pi/4], the quadrant in float (float_transcendental.cpp).
// log(x) = k ln 2 + log(m), m in [sqrt(1/2), sqrt(2)), log(m) from atanh's
// series in s = (m - 1) / (m + 1); softplus(x) = max(x, 0) + log1p(e^{-|bx|})
// / b from the same two pieces (float_transcendental.cpp says how).
#pragma once

#include <cstddef>

namespace openhtp::kernels {

// y[i] = tanh(x[i]) / gelu(x[i]) / exp(x[i]) / log(x[i]) for i < n; x == y
// allowed.
void tanh_f32(const float* x, float* y, size_t n);
void gelu_f32(const float* x, float* y, size_t n);
void exp_f32(const float* x, float* y, size_t n);
void log_f32(const float* x, float* y, size_t n);
void sin_f32(const float* x, float* y, size_t n);
void cos_f32(const float* x, float* y, size_t n);
// y[i] = 1 / sqrt(x[i]), bit for bit the reference's (computed in double).
void rsqrt_f32(const float* x, float* y, size_t n);
// y[i] = atan(x[i]) / asin(x[i]): polynomials after a reduction
// (float_transcendental.cpp), within 2.1 / 2.3 ulp of the true value.
void atan_f32(const float* x, float* y, size_t n);
void asin_f32(const float* x, float* y, size_t n);
// y[i] = log(z / (1 - z)), z = x[i] clamped to [eps, 1 - eps] when `clamp`,
// in double as the reference computes it (float_transcendental.cpp).
void logit_f32(const float* x, float* y, size_t n, bool clamp, float eps);
// y[i] = softplus(x[i]) with the reference's beta (> 0) and threshold (< 0:
// no linear cut-over).
void softplus_f32(const float* x, float* y, size_t n, float beta, float threshold);

// Power with a static scalar exponent, within an ulp of the reference's powf
// (glibc's, itself within 0.82 ulp), powf's answers at every edge (0 and -0,
// +-inf, NaN, overflow, 1 for any x to the power 0):
//   - a whole exponent e, |e| <= kMaxWholePower: x^|e| by repeated squaring
//     in double (x^2 is exact there, each later product rounds at 2^-53 of
//     the value), 1 / that for e < 0, rounded once to float: the result is
//     the correctly rounded power but within a few 2^-53 of a tie;
//   - e = 0.5: sqrtf (correctly rounded), with powf's +0 for -0 and +inf
//     for -inf; e = -0.5: 1 / sqrt in double, +inf for -0, +0 for -inf.
// Why: GPT-2-style GELUs (x^3), distances (x^0.5) and inverse powers came
// out of ONNX as Pow and ran the reference's powf per element.
inline constexpr int kMaxWholePower = 16;
void whole_power_f32(const float* x, float* y, size_t n, int e);
void half_power_f32(const float* x, float* y, size_t n, bool negative);

}  // namespace openhtp::kernels
