// Vectorized scans for the values only a non-finite input produces, which
// the XNNPACK x86 float kernels here give differently from the reference:
// their output clamp turns a NaN into -inf, their max and min drop a NaN on
// one side. A path scans for the sign of that (in cache, after the run) and
// recomputes where it finds it, so the fast path keeps the reference's
// answer at NaN and ±inf too, at the cost of one pass it can afford.
//
// Each is an OR-reduction with no early exit, which GCC vectorizes; cloned
// for AVX2 (the build's baseline is SSE2). Internal linkage on purpose, one
// copy per user: a target_clones function with external linkage is an IFUNC
// symbol, which the dynamic linker resolved before the DSP library's own
// relocations were done (the DSP process crashed at load in the TSan tree);
// a local one is an IRELATIVE relocation, applied last.
#pragma once

#include <cstddef>

namespace openhtp::kernels {
namespace {  // NOLINT(google-build-namespaces): see above

// Whether y[0..n) holds a NaN.
[[maybe_unused]] __attribute__((target_clones("avx2", "default"))) bool any_nan(const float* y, size_t n) {
  int acc = 0;
  for (size_t i = 0; i < n; ++i) acc |= y[i] != y[i];
  return acc != 0;
}

// Whether y[0..n) holds exactly `v` (-inf, say).
[[maybe_unused]] __attribute__((target_clones("avx2", "default"))) bool any_equal(const float* y, size_t n, float v) {
  int acc = 0;
  for (size_t i = 0; i < n; ++i) acc |= y[i] == v;
  return acc != 0;
}

// Whether y[0..n) holds a value that is not >= 0: a negative one or a NaN.
[[maybe_unused]] __attribute__((target_clones("avx2", "default"))) bool any_not_nonnegative(const float* y,
                                                                                             size_t n) {
  int acc = 0;
  for (size_t i = 0; i < n; ++i) acc |= !(y[i] >= 0.0f);
  return acc != 0;
}

}  // namespace
}  // namespace openhtp::kernels
