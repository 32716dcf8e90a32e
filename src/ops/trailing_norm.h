// The statistics of one row of a LayerNorm or RmsNorm (reference/layer_norm.cpp):
//   LayerNorm: center = mean(x), inv = 1 / sqrt(mean((x - center)^2) + epsilon)
//   RmsNorm:   center = 0,       inv = 1 / sqrt(mean(x^2) + epsilon)
// in double, two passes (the mean first, then the squared deviations: no
// cancellation when |mean| >> std), each summed over eight lanes
// (lane_sum.h). The reference and every fast path take their statistics
// from here, so they agree bit for bit; each then writes
// (x - center) * inv [* gamma] [+ beta] in double, rounded once.
#pragma once

#include <cmath>
#include <cstddef>

#include "ops/lane_sum.h"
#include "ops/op.h"

namespace openhtp::ops {

struct NormStats {
  double center = 0.0;
  double inv = 0.0;
};

// value(c): element c of the row as a float (a code's value, a sum, ...).
// Everything here is always inlined, so that a caller compiled for a wider
// ISA (a target_clones fast path) vectorizes it as its own loop.
template <typename Value>
inline __attribute__((always_inline)) NormStats norm_stats(size_t cols, bool centred, double epsilon, Value value) {
  const double n = static_cast<double>(cols);
  NormStats s;
  if (centred) s.center = lane_sum(cols, [&](size_t c) __attribute__((always_inline)) { return double{value(c)}; }) / n;
  const double sq = lane_sum(cols, [&](size_t c) __attribute__((always_inline)) {
    const double d = value(c) - s.center;
    return d * d;
  });
  s.inv = 1.0 / std::sqrt(sq / n + epsilon);
  return s;
}

// A LayerNorm / RmsNorm node as [rows, cols] (cols: the normalized trailing
// block, the product of the last M dims where M is the length of `axes`)
// and its epsilon as the reference reads it (the float parameter, or
// `default_epsilon`). For fast paths, on a node the reference accepted
// (which checked that `axes` is that trailing block); false when the node
// has no such shape.
struct NormShape {
  size_t rows = 0, cols = 0;
  double epsilon = 0.0;
};
inline bool norm_shape(const NodeDesc& node, float default_epsilon, NormShape* out) {
  if (node.inputs.empty()) return false;
  const std::vector<uint32_t>& dims = node.inputs[0].dims;
  const Param* axes = node.find_param("axes");
  const size_t m = axes != nullptr && axes->is_tensor && axes->dims.size() == 1 ? axes->dims[0] : 1;
  if (m == 0 || m > dims.size()) return false;
  size_t cols = 1;
  for (size_t i = dims.size() - m; i < dims.size(); ++i) cols *= dims[i];
  if (cols == 0) return false;
  const Param* eps = node.find_param("epsilon");
  out->cols = cols;
  out->rows = node.inputs[0].num_elements() / cols;
  out->epsilon = static_cast<double>(eps != nullptr ? static_cast<float>(eps->f) : default_epsilon);
  return true;
}

}  // namespace openhtp::ops
