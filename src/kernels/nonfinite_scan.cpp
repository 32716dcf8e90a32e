#include "kernels/nonfinite_scan.h"

namespace openhtp::kernels {

__attribute__((target_clones("avx2", "default"))) bool any_nan(const float* y, size_t n) {
  int acc = 0;
  for (size_t i = 0; i < n; ++i) acc |= y[i] != y[i];
  return acc != 0;
}

__attribute__((target_clones("avx2", "default"))) bool any_equal(const float* y, size_t n, float v) {
  int acc = 0;
  for (size_t i = 0; i < n; ++i) acc |= y[i] == v;
  return acc != 0;
}

__attribute__((target_clones("avx2", "default"))) bool any_not_nonnegative(const float* y, size_t n) {
  int acc = 0;
  for (size_t i = 0; i < n; ++i) acc |= !(y[i] >= 0.0f);
  return acc != 0;
}

}  // namespace openhtp::kernels
