#include "ops/quant.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "ops/shape.h"

namespace openhtp::ops::quant {

bool is_fixed_point(uint32_t dt) {
  switch (dt) {
    case dtype::kSfixed8: case dtype::kSfixed16: case dtype::kSfixed32:
    case dtype::kUfixed8: case dtype::kUfixed16: case 0x0432 /* UFIXED_POINT_32 */:
      return true;
    default:
      return false;
  }
}

bool needs_float_conversion(uint32_t dt) { return dt == dtype::kFloat16 || is_fixed_point(dt); }

int64_t qmin(uint32_t dt) {
  switch (dt) {
    case dtype::kInt8: case dtype::kSfixed8: return INT8_MIN;
    case dtype::kInt16: case dtype::kSfixed16: return INT16_MIN;
    case dtype::kInt32: case dtype::kSfixed32: return INT32_MIN;
    case dtype::kInt64: return INT64_MIN;
    default: return 0;  // unsigned and bool
  }
}

int64_t qmax(uint32_t dt) {
  switch (dt) {
    case dtype::kInt8: case dtype::kSfixed8: return INT8_MAX;
    case dtype::kInt16: case dtype::kSfixed16: return INT16_MAX;
    case dtype::kInt32: case dtype::kSfixed32: return INT32_MAX;
    case dtype::kInt64: return INT64_MAX;
    case dtype::kUint8: case dtype::kUfixed8: return UINT8_MAX;
    case dtype::kUint16: case dtype::kUfixed16: return UINT16_MAX;
    case dtype::kUint32: case 0x0432: return UINT32_MAX;
    case dtype::kBool8: return 1;
    default: return INT64_MAX;
  }
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal half: renormalize
      int e = -1;
      uint32_t m = man;
      do { ++e; m <<= 1; } while ((m & 0x400u) == 0);
      bits = sign | (uint32_t(127 - 15 - e) << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);  // inf / nan
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bfloat16_to_float(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t float_to_bfloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x0040);
  const uint32_t lsb = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7FFFu + lsb) >> 16);
}

uint16_t float_to_half(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0);  // inf / nan
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: overflow to inf
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    // Scale so the half's subnormal step (2^-24) is one unit, round to even.
    const float a = std::fabs(f) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(a));
  }
  // Normal: drop 13 mantissa bits with round-to-nearest-even.
  const uint32_t rebiased = abs - ((127u - 15u) << 23);
  const uint32_t round = 0xfffu + ((rebiased >> 13) & 1u);
  return sign | static_cast<uint16_t>((rebiased + round) >> 13);
}

namespace {

// Whole arrays of halves through F16C (8 a time): its conversions are IEEE's
// (exact widening; narrowing rounds to nearest even, overflows to inf,
// subnormals exact), which is what half_to_float / float_to_half compute —
// except for NaNs, whose payload F16C keeps (and quiets) where those write
// their own bits. A block of 8 with a NaN in it is converted by the scalar
// functions, so the results are theirs bit for bit. The adapter converts
// every FLOAT_16 tensor a float kernel reads or writes: 6.5 ns an element
// as scalar code against a float Relu's 0.1 (bench_kernels relu_f16).
bool has_f16c() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return yes;
}

__attribute__((target("avx2,f16c"))) void halves_to_floats_f16c(const uint16_t* h, float* f, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i));
    // NaN: exponent all ones and a mantissa, i.e. |h| above 0x7c00 (inf).
    const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(v, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
    if (_mm_testz_si128(nan, nan)) {
      _mm256_storeu_ps(f + i, _mm256_cvtph_ps(v));
    } else {
      for (size_t k = i; k < i + 8; ++k) f[k] = half_to_float(h[k]);
    }
  }
  for (; i < n; ++i) f[i] = half_to_float(h[i]);
}

__attribute__((target("avx2,f16c"))) void floats_to_halves_f16c(const float* f, uint16_t* h, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(f + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) == 0) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(h + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    } else {
      for (size_t k = i; k < i + 8; ++k) h[k] = float_to_half(f[k]);
    }
  }
  for (; i < n; ++i) h[i] = float_to_half(f[i]);
}

// The same 16 a time with AVX-512 (vcvtph2ps / vcvtps2ph on 512 bits), a
// block with a NaN again through the scalar functions; the tail (under 16)
// through the F16C loops. An fp16 Relu of 451K elements (one pass, converted
// in blocks): 131-133 -> 103 us (bench_kernels relu_f16, A/B in one hour).
// GCC 12 warns that the AVX-512 intrinsics' internal "undefined" operands may
// be used uninitialized (a false positive of its headers).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
bool has_avx512_f16() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && has_f16c();
  return yes;
}

__attribute__((target("avx512f,avx512bw,avx2,f16c"))) void halves_to_floats_avx512(const uint16_t* h, float* f,
                                                                                  size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + i));
    const __m256i abs = _mm256_and_si256(v, _mm256_set1_epi16(0x7fff));
    if (_mm256_testz_si256(_mm256_cmpgt_epi16(abs, _mm256_set1_epi16(0x7c00)), _mm256_set1_epi16(-1))) {
      _mm512_storeu_ps(f + i, _mm512_cvtph_ps(v));
    } else {
      for (size_t k = i; k < i + 16; ++k) f[k] = half_to_float(h[k]);
    }
  }
  halves_to_floats_f16c(h + i, f + i, n - i);
}

__attribute__((target("avx512f,avx512bw,avx2,f16c"))) void floats_to_halves_avx512(const float* f, uint16_t* h,
                                                                                  size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(f + i);
    if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) == 0) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(h + i), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    } else {
      for (size_t k = i; k < i + 16; ++k) h[k] = float_to_half(f[k]);
    }
  }
  floats_to_halves_f16c(f + i, h + i, n - i);
}
#pragma GCC diagnostic pop

}  // namespace

void halves_to_floats(const uint16_t* h, float* f, size_t n) {
  if (has_avx512_f16()) return halves_to_floats_avx512(h, f, n);
  if (has_f16c()) return halves_to_floats_f16c(h, f, n);
  for (size_t i = 0; i < n; ++i) f[i] = half_to_float(h[i]);
}

void floats_to_halves(const float* f, uint16_t* h, size_t n) {
  if (has_avx512_f16()) return floats_to_halves_avx512(f, h, n);
  if (has_f16c()) return floats_to_halves_f16c(f, h, n);
  for (size_t i = 0; i < n; ++i) h[i] = float_to_half(f[i]);
}

int64_t quantize_one(float real, float scale, int32_t offset, int64_t lo, int64_t hi) {
  const double q = std::nearbyint(static_cast<double>(real) / scale) - offset;
  if (!(q >= static_cast<double>(lo))) return lo;  // also NaN -> lo
  if (q > static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(q);
}

namespace {

// Reads element i of an integer-typed buffer as int64.
int64_t load_int(uint32_t dt, const void* p, size_t i) {
  switch (dtype::element_size(dt)) {
    case 1: return qmin(dt) < 0 ? int64_t{static_cast<const int8_t*>(p)[i]} : int64_t{static_cast<const uint8_t*>(p)[i]};
    case 2: return qmin(dt) < 0 ? int64_t{static_cast<const int16_t*>(p)[i]} : int64_t{static_cast<const uint16_t*>(p)[i]};
    case 4: return qmin(dt) < 0 ? int64_t{static_cast<const int32_t*>(p)[i]} : int64_t{static_cast<const uint32_t*>(p)[i]};
    default: return static_cast<const int64_t*>(p)[i];
  }
}

void store_int(uint32_t dt, void* p, size_t i, int64_t v) {
  switch (dtype::element_size(dt)) {
    case 1: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case 2: static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v); break;
    case 4: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v); break;
    default: static_cast<int64_t*>(p)[i] = v; break;
  }
}

// Per-tensor conversions with the element type known: the same arithmetic
// as quantize_one and to_float's loop (double division, round half to even,
// saturation; NaN to lo), without a type switch per element — the type
// adapter and Quantize/Dequantize of large tensors spend their time here.
// Compiled a second time for AVX2, where GCC vectorizes them (vdivpd,
// vroundpd: the same IEEE operations, so the same results); the baseline
// SSE2 build calls libm's nearbyint per element. Chosen by a CPU check, not
// target_clones: an ifunc resolver runs before ThreadSanitizer's runtime
// starts, and crashes the TSan tree's binaries at load.
template <typename T>
inline __attribute__((always_inline)) void quantize_loop(const float* src, size_t n, double scale, double offset,
                                                        double lo, double hi, void* dst) {
  T* out = static_cast<T*>(dst);
  for (size_t i = 0; i < n; ++i) {
    double q = std::nearbyint(static_cast<double>(src[i]) / scale) - offset;
    q = !(q >= lo) ? lo : (q > hi ? hi : q);
    out[i] = static_cast<T>(q);
  }
}

// (q + offset) in double is the integer sum exactly (both below 2^53), as
// to_float's int64 sum converted: the same value, in a form GCC vectorizes.
template <typename T>
inline __attribute__((always_inline)) void dequantize_loop(const void* src, size_t n, double scale, int64_t offset,
                                                          float* dst) {
  const T* in = static_cast<const T*>(src);
  const double off = static_cast<double>(offset);
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>((static_cast<double>(in[i]) + off) * scale);
}

template <typename T>
__attribute__((target("avx2"))) void quantize_avx2(const float* src, size_t n, double scale, double offset, double lo,
                                                   double hi, void* dst) {
  quantize_loop<T>(src, n, scale, offset, lo, hi, dst);
}
template <typename T>
__attribute__((target("avx2"))) void dequantize_avx2(const void* src, size_t n, double scale, int64_t offset,
                                                     float* dst) {
  dequantize_loop<T>(src, n, scale, offset, dst);
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

template <typename T>
void quantize_typed(const float* src, size_t n, double scale, double offset, double lo, double hi, void* dst) {
  if (has_avx2()) return quantize_avx2<T>(src, n, scale, offset, lo, hi, dst);
  quantize_loop<T>(src, n, scale, offset, lo, hi, dst);
}
template <typename T>
void dequantize_typed(const void* src, size_t n, double scale, int64_t offset, float* dst) {
  if (has_avx2()) return dequantize_avx2<T>(src, n, scale, offset, dst);
  dequantize_loop<T>(src, n, scale, offset, dst);
}

// Calls f.template operator()<T>() with T the storage type of a fixed-point
// dtype (false: not a fixed-point type).
template <typename F>
bool with_storage_type(uint32_t dt, F&& f) {
  switch (dt) {
    case dtype::kUfixed8: f.template operator()<uint8_t>(); return true;
    case dtype::kSfixed8: f.template operator()<int8_t>(); return true;
    case dtype::kUfixed16: f.template operator()<uint16_t>(); return true;
    case dtype::kSfixed16: f.template operator()<int16_t>(); return true;
    case dtype::kSfixed32: f.template operator()<int32_t>(); return true;
    default: return false;
  }
}

// Channel of element i for a per-channel encoding: (i / inner) % channels.
struct ChannelIndex {
  size_t inner = 1, channels = 1;
  explicit ChannelIndex(const TensorDesc& t) {
    if (t.quant.per_channel()) {
      const size_t axis = static_cast<size_t>(t.quant.axis);
      inner = detail::product(t.dims, axis + 1, t.dims.size());
      channels = t.dims[axis];
    }
  }
  size_t operator()(size_t i) const { return (i / inner) % channels; }
};

}  // namespace

void to_float(const TensorDesc& t, const void* src, float* dst) { to_float(t, src, dst, 0, t.num_elements()); }

void from_float(const TensorDesc& t, const float* src, void* dst) { from_float(t, src, dst, 0, t.num_elements()); }

void to_float(const TensorDesc& t, const void* src, float* dst, size_t begin, size_t n) {
  const size_t elem = dtype::element_size(t.dtype);
  const void* in = static_cast<const uint8_t*>(src) + begin * elem;  // element begin of src ...
  dst += begin;                                                     // ... to element begin of dst
  if (t.dtype == dtype::kFloat32) {
    std::memcpy(dst, in, n * sizeof(float));
  } else if (t.dtype == dtype::kFloat16) {
    halves_to_floats(static_cast<const uint16_t*>(in), dst, n);
  } else if (is_fixed_point(t.dtype) && t.quant.present) {
    if (!t.quant.per_channel()) {
      const double scale = t.quant.scale;
      const int64_t offset = t.quant.offset;
      const bool typed = with_storage_type(t.dtype, [&]<typename T>() { dequantize_typed<T>(in, n, scale, offset, dst); });
      if (!typed) {
        for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>((load_int(t.dtype, in, i) + offset) * scale);
      }
    } else {
      const ChannelIndex ch(t);
      for (size_t i = 0; i < n; ++i) {
        const size_t c = ch(begin + i);
        dst[i] = static_cast<float>((load_int(t.dtype, in, i) + t.quant.offsets[c]) * double{t.quant.scales[c]});
      }
    }
  } else {  // plain integers and bool: the value itself
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(load_int(t.dtype, in, i));
  }
}

void from_float(const TensorDesc& t, const float* src, void* dst, size_t begin, size_t n) {
  src += begin;
  dst = static_cast<uint8_t*>(dst) + begin * dtype::element_size(t.dtype);
  if (t.dtype == dtype::kFloat32) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  if (t.dtype == dtype::kFloat16) {
    floats_to_halves(src, static_cast<uint16_t*>(dst), n);
    return;
  }
  const int64_t lo = qmin(t.dtype), hi = qmax(t.dtype);
  if (is_fixed_point(t.dtype) && t.quant.present) {
    if (!t.quant.per_channel()) {
      const bool typed = with_storage_type(t.dtype, [&]<typename T>() {
        quantize_typed<T>(src, n, t.quant.scale, t.quant.offset, static_cast<double>(lo), static_cast<double>(hi), dst);
      });
      if (!typed) {
        for (size_t i = 0; i < n; ++i) {
          store_int(t.dtype, dst, i, quantize_one(src[i], t.quant.scale, t.quant.offset, lo, hi));
        }
      }
    } else {
      const ChannelIndex ch(t);
      for (size_t i = 0; i < n; ++i) {
        const size_t c = ch(begin + i);
        store_int(t.dtype, dst, i, quantize_one(src[i], t.quant.scales[c], t.quant.offsets[c], lo, hi));
      }
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {  // plain integers: round, saturate; bool: != 0
    if (t.dtype == dtype::kBool8) {
      store_int(t.dtype, dst, i, src[i] != 0.0f ? 1 : 0);
    } else {
      store_int(t.dtype, dst, i, quantize_one(src[i], 1.0f, 0, lo, hi));
    }
  }
}

std::string check_encoding(const TensorDesc& t) {
  if (!is_fixed_point(t.dtype)) return {};
  const Quant& q = t.quant;
  if (!q.present) return std::string(dtype::name(t.dtype)) + " needs a quantization encoding, none is defined";
  if (!q.per_channel()) {
    if (!(q.scale > 0.0f) || !std::isfinite(q.scale)) {
      return "quantization scale is " + std::to_string(q.scale) + ", expected a finite value > 0";
    }
    return {};
  }
  if (static_cast<size_t>(q.axis) >= t.dims.size()) {
    return "per-channel quantization axis " + std::to_string(q.axis) + " is outside rank " + std::to_string(t.dims.size());
  }
  const size_t channels = t.dims[static_cast<size_t>(q.axis)];
  if (q.scales.size() != channels || q.offsets.size() != channels) {
    return "per-channel quantization has " + std::to_string(q.scales.size()) + " scales for " +
           std::to_string(channels) + " channels on axis " + std::to_string(q.axis);
  }
  for (size_t c = 0; c < channels; ++c) {
    if (!(q.scales[c] > 0.0f) || !std::isfinite(q.scales[c])) {
      return "per-channel quantization scale[" + std::to_string(c) + "] is " + std::to_string(q.scales[c]) +
             ", expected a finite value > 0";
    }
  }
  return {};
}

}  // namespace openhtp::ops::quant
