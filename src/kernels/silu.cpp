#include "kernels/silu.h"

#include <immintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "kernels/exp_poly.h"

// GCC 12 warns that the AVX-512 intrinsics' internal "undefined" source
// operands may be used uninitialized (a false positive of its headers).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace openhtp::kernels {

namespace {

// exp's polynomial and ln 2 split (exp_poly.h), as the vector code below
// uses them one by one.
using exp_poly::kC2, exp_poly::kC3, exp_poly::kC4, exp_poly::kC5, exp_poly::kC6, exp_poly::kLn2Hi,
    exp_poly::kLn2Lo;

// x is clamped to [kXMin, kXMax] before exp(-x): k = round(-x / ln 2) stays
// in [-126, 128], so 2^k is a normal float or, at k = 128 (x below about
// -88.7), infinity, and x / (1 + inf) the -0 the contract gives there. NaN
// becomes kXMin (a finite exponent; the division by it keeps the NaN).
constexpr float kXMin = -89.0f;
constexpr float kXMax = 87.0f;

}  // namespace

// The arithmetic, element by element (GCC vectorizes it at -O3; one clone
// per ISA level): the definition the AVX-512 loop below follows op for op.
__attribute__((target_clones("avx2", "default"))) void silu_clamp_f32_portable(float* y, size_t n, float lo,
                                                                                 float hi) {
  for (size_t i = 0; i < n; ++i) {
    const float x = y[i];
    float xc = x > kXMin ? x : kXMin;  // NaN: the comparison is false
    xc = xc < kXMax ? xc : kXMax;
    // exp(-x) is 2^k p exactly (a power of two times p), so the one rounding
    // is the + 1's, as fma(p, 2^k, 1) and the vector code's scalef + 1.
    float v = x / (exp_poly::exp_clamped(-xc) + 1.0f);
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    y[i] = v;
  }
}

namespace {

// The same arithmetic on 16 lanes. Written out because GCC's vectorization
// of the loop above (nearbyint, the exponent built in an integer register)
// costs about twice this. 2^k * p is vscalefps (exact, and infinity at
// k = 128 as the shift above gives); fma(p, 2^k, 1) is then scalef + 1, the
// same single rounding. The pass is bound by its vector instructions, not by
// memory (0.17 ns an element from L2 as from a 4.8 MB map, against 0.06 for a
// plain scaling pass), so every instruction counts: the clamp after the SiLU
// is left out where there is none (Clamp false).
struct SiluConstants {
  __m512 neg_log2e, x_min, x_max, ln2_hi, ln2_lo, one, lo, hi, c6, c5, c4, c3, c2;
};

template <bool Clamp>
__attribute__((target("avx512f"), always_inline)) inline __m512 silu_step(__m512 x, const SiluConstants& c) {
  // max returns its second operand when either is NaN: NaN -> x_min.
  const __m512 xc = _mm512_min_ps(_mm512_max_ps(x, c.x_min), c.x_max);
  const __m512 k =
      _mm512_roundscale_ps(_mm512_mul_ps(xc, c.neg_log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmsub_ps(k, c.ln2_hi, xc);  // -(k ln2hi) - x
  r = _mm512_fnmadd_ps(k, c.ln2_lo, r);
  __m512 p = _mm512_fmadd_ps(c.c6, r, c.c5);
  p = _mm512_fmadd_ps(p, r, c.c4);
  p = _mm512_fmadd_ps(p, r, c.c3);
  p = _mm512_fmadd_ps(p, r, c.c2);
  p = _mm512_fmadd_ps(p, r, c.one);
  p = _mm512_fmadd_ps(p, r, c.one);
  const __m512 v = _mm512_div_ps(x, _mm512_add_ps(_mm512_scalef_ps(p, k), c.one));
  if constexpr (!Clamp) return v;
  // max/min return their second operand when either is NaN: NaN passes.
  return _mm512_min_ps(c.hi, _mm512_max_ps(c.lo, v));
}

__attribute__((target("avx512f"))) SiluConstants silu_constants(float lo, float hi) {
  return {_mm512_set1_ps(-1.44269504088896341f), _mm512_set1_ps(kXMin),  _mm512_set1_ps(kXMax),
          _mm512_set1_ps(kLn2Hi),                _mm512_set1_ps(kLn2Lo), _mm512_set1_ps(1.0f),
          _mm512_set1_ps(lo),                    _mm512_set1_ps(hi),     _mm512_set1_ps(kC6),
          _mm512_set1_ps(kC5),                _mm512_set1_ps(kC4), _mm512_set1_ps(kC3),
          _mm512_set1_ps(kC2)};
}

bool clamps(float lo, float hi) { return !(std::isinf(lo) && lo < 0 && std::isinf(hi) && hi > 0); }

template <bool Clamp>
__attribute__((target("avx512f"))) void silu_avx512(float* y, size_t n, const SiluConstants& c) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, silu_step<Clamp>(_mm512_loadu_ps(y + i), c));
  if (i < n) {  // masked: nothing read or written past y + n
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, silu_step<Clamp>(_mm512_maskz_loadu_ps(m, y + i), c));
  }
}

__attribute__((target("avx512f"))) void silu_clamp_avx512(float* y, size_t n, float lo, float hi) {
  const SiluConstants c = silu_constants(lo, hi);
  if (clamps(lo, hi)) {
    silu_avx512<true>(y, n, c);
  } else {
    silu_avx512<false>(y, n, c);
  }
}

// One block of V vectors (16 V channels from c0, the last vector masked to
// `tail` lanes) over every pixel, its sums held in registers.
template <int V, bool Clamp>
__attribute__((target("avx512f"), always_inline)) inline void silu_sums_block(float* y, size_t pixels,
                                                                            size_t channels, size_t c0,
                                                                            __mmask16 tail, const SiluConstants& c,
                                                                            float* sums) {
  __m512 acc[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) acc[v] = _mm512_maskz_loadu_ps(v == V - 1 ? tail : 0xffff, sums + c0 + 16 * v);
  for (size_t p = 0; p < pixels; ++p) {
    float* row = y + p * channels + c0;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __mmask16 m = v == V - 1 ? tail : static_cast<__mmask16>(0xffff);
      const __m512 r = silu_step<Clamp>(_mm512_maskz_loadu_ps(m, row + 16 * v), c);
      _mm512_mask_storeu_ps(row + 16 * v, m, r);
      acc[v] = _mm512_add_ps(acc[v], r);  // lanes outside the mask are never stored
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) _mm512_mask_storeu_ps(sums + c0 + 16 * v, v == V - 1 ? tail : 0xffff, acc[v]);
}

template <bool Clamp>
__attribute__((target("avx512f"))) void silu_sums_avx512(float* y, size_t pixels, size_t channels,
                                                        const SiluConstants& c, float* sums) {
  if (channels > 64) {
    // Pixel by pixel, the sums in memory (L1): blocks of channels taken one
    // pass each would read the map once per block, in strided pieces
    // (144 channels: 15 % slower than the plain pass, against 4 % this way).
    const size_t full = channels / 16 * 16;
    const __mmask16 tail = static_cast<__mmask16>((1u << (channels - full)) - 1);
    for (size_t p = 0; p < pixels; ++p) {
      float* row = y + p * channels;
      size_t i = 0;
      for (; i < full; i += 16) {
        const __m512 r = silu_step<Clamp>(_mm512_loadu_ps(row + i), c);
        _mm512_storeu_ps(row + i, r);
        _mm512_storeu_ps(sums + i, _mm512_add_ps(_mm512_loadu_ps(sums + i), r));
      }
      if (tail != 0) {
        const __m512 r = silu_step<Clamp>(_mm512_maskz_loadu_ps(tail, row + i), c);
        _mm512_mask_storeu_ps(row + i, tail, r);
        _mm512_mask_storeu_ps(sums + i, tail, _mm512_add_ps(_mm512_maskz_loadu_ps(tail, sums + i), r));
      }
    }
    return;
  }
  // Up to 64 channels: one block, its sums in up to four registers across
  // every pixel.
  for (size_t c0 = 0; c0 < channels; c0 += 64) {
    const size_t width = channels - c0 < 64 ? channels - c0 : 64;
    const int vectors = static_cast<int>((width + 15) / 16);
    const size_t last = width - 16 * (vectors - 1);
    const __mmask16 tail = static_cast<__mmask16>((1u << last) - 1);
    switch (vectors) {
      case 1: silu_sums_block<1, Clamp>(y, pixels, channels, c0, tail, c, sums); break;
      case 2: silu_sums_block<2, Clamp>(y, pixels, channels, c0, tail, c, sums); break;
      case 3: silu_sums_block<3, Clamp>(y, pixels, channels, c0, tail, c, sums); break;
      default: silu_sums_block<4, Clamp>(y, pixels, channels, c0, tail, c, sums); break;
    }
  }
}

__attribute__((target("avx512f"))) void silu_clamp_sums_avx512(float* y, size_t pixels, size_t channels, float lo,
                                                              float hi, float* sums) {
  const SiluConstants c = silu_constants(lo, hi);
  if (clamps(lo, hi)) {
    silu_sums_avx512<true>(y, pixels, channels, c, sums);
  } else {
    silu_sums_avx512<false>(y, pixels, channels, c, sums);
  }
}

bool have_avx512f() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return yes;
}

}  // namespace

void silu_clamp_f32_sums_portable(float* y, size_t pixels, size_t channels, float lo, float hi, float* sums) {
  for (size_t p = 0; p < pixels; ++p) {
    float* row = y + p * channels;
    silu_clamp_f32_portable(row, channels, lo, hi);
    for (size_t c = 0; c < channels; ++c) sums[c] += row[c];
  }
}

void silu_clamp_f32_sums(float* y, size_t pixels, size_t channels, float lo, float hi, float* sums) {
  if (have_avx512f()) {
    silu_clamp_sums_avx512(y, pixels, channels, lo, hi, sums);
  } else {
    silu_clamp_f32_sums_portable(y, pixels, channels, lo, hi, sums);
  }
}

void silu_clamp_f32(float* y, size_t n, float lo, float hi) {
  if (have_avx512f()) {
    silu_clamp_avx512(y, n, lo, hi);
  } else {
    silu_clamp_f32_portable(y, n, lo, hi);
  }
}

}  // namespace openhtp::kernels
