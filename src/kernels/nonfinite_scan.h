// Vectorized scans for the values only a non-finite input produces, which
// the XNNPACK x86 float kernels here give differently from the reference:
// their output clamp turns a NaN into -inf, their max and min drop a NaN on
// one side. A path scans for the sign of that (in cache, after the run) and
// recomputes where it finds it, so the fast path keeps the reference's
// answer at NaN and ±inf too, at the cost of one pass it can afford.
//
// Each is an OR-reduction with no early exit, which GCC vectorizes; cloned
// for AVX2 (the build's baseline is SSE2) in nonfinite_scan.cpp.
#pragma once

#include <cstddef>

namespace openhtp::kernels {

// Whether y[0..n) holds a NaN.
bool any_nan(const float* y, size_t n);
// Whether y[0..n) holds exactly `v` (-inf, say).
bool any_equal(const float* y, size_t n, float v);
// Whether y[0..n) holds a value that is not >= 0: a negative one or a NaN.
bool any_not_nonnegative(const float* y, size_t n);

}  // namespace openhtp::kernels
