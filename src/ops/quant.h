// Element conversions between a tensor's stored type and float: QNN's
// fixed-point encodings (real = (q + offset) * scale, per tensor or per
// channel) and IEEE half precision. The type adapter and the Quantize /
// Dequantize / Convert / Cast kernels are built on these; they are the one
// place the rounding and saturation rules live.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ops/op.h"

namespace openhtp::ops::quant {

// SFIXED/UFIXED_POINT_8/16/32.
bool is_fixed_point(uint32_t dt);
// Types the type adapter turns into FLOAT_32 for a float kernel: FLOAT_16 and
// fixed point. (FLOAT_32 itself needs no conversion.)
bool needs_float_conversion(uint32_t dt);
// Integer range of a fixed-point (or plain integer) type.
int64_t qmin(uint32_t dt);
int64_t qmax(uint32_t dt);

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);  // round to nearest even, saturates to inf
// The same over n elements, vectorized where the CPU has F16C (bit for bit
// the functions above, NaNs included).
void halves_to_floats(const uint16_t* h, float* f, size_t n);
void floats_to_halves(const float* f, uint16_t* h, size_t n);
// bfloat16 is the high half of a float32: widening is exact; narrowing
// rounds the dropped 16 bits half to even (NaN stays a quiet NaN).
float bfloat16_to_float(uint16_t b);
uint16_t float_to_bfloat16(float f);

// q = clamp(round_half_even(real / scale) - offset, qmin, qmax).
int64_t quantize_one(float real, float scale, int32_t offset, int64_t lo, int64_t hi);

// Converts all elements of a tensor described by `t` (FLOAT_32, FLOAT_16,
// fixed point with t.quant, or a plain integer/bool type read as its value)
// between its stored form at `src`/`dst` and float.
void to_float(const TensorDesc& t, const void* src, float* dst);
void from_float(const TensorDesc& t, const float* src, void* dst);
// Elements [begin, begin + n) only (src and dst still point at element 0):
// a conversion split over threads.
void to_float(const TensorDesc& t, const void* src, float* dst, size_t begin, size_t n);
void from_float(const TensorDesc& t, const float* src, void* dst, size_t begin, size_t n);

// Checks that a fixed-point tensor carries a usable encoding: present,
// finite scale > 0, per-channel axis within rank with one (scale, offset)
// per channel. Empty string = fine, else the reason (without node prefix).
std::string check_encoding(const TensorDesc& t);

}  // namespace openhtp::ops::quant
