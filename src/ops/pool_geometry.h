// The typed parameters of PoolMax2d/3d and PoolAvg2d/3d: filter_size,
// stride, pad_amount, rounding_mode (and PoolAvg's count_pad_for_edges),
// read and checked once from a node for 2 or 3 spatial axes (channel-last:
// N, [D,] H, W, C) with the output size per axis. prepare_node reads it
// (parsed_params.h); the reference kernels and the XNNPACK pooling path
// consume it as it is, so the QNN parameters are read in one place.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "ops/op.h"

namespace openhtp::ops {

// One spatial axis. A 2-D pool is given a leading depth axis of size 1 (one
// tap, no padding), so one description serves both ranks.
struct PoolAxis {
  uint32_t in = 1, out = 1, filter = 1, stride = 1, pad_begin = 0, pad_end = 0;

  // The end padding the output's windows actually reach: pad_end, or more
  // where CEIL rounding adds a last window that runs past the padded input.
  // A kernel that only knows floor rounding gets the same output size with
  // this much end padding (positions past the padded input are read as
  // padding either way).
  uint32_t pad_end_reached() const {
    const uint64_t need = uint64_t{out - 1} * stride + filter;  // padded length the windows read
    const uint64_t have = uint64_t{pad_begin} + in + pad_end;
    return need > have ? static_cast<uint32_t>(pad_end + (need - have)) : pad_end;
  }
};

struct PoolGeometry {
  uint32_t N = 0, C = 0;
  std::array<PoolAxis, 3> axes;  // D, H, W; D is 1 (one tap) for a 2-D pool
  size_t spatial = 0;            // 2 or 3: how many axes the op has
  bool count_pad = false;        // PoolAvg count_pad_for_edges (false for PoolMax)

  // Whether any window reaches into padding (begin or reached end).
  bool any_padding() const {
    for (const PoolAxis& a : axes) {
      if (a.pad_begin != 0 || a.pad_end_reached() != 0) return true;
    }
    return false;
  }
};

enum class PoolKind { kMax, kAvg };

// Read and check a pool node with `spatial` (2 or 3) axes: the parameter
// names of `kind`, the parameters, the input rank and the output dims, each
// broken rule reported with the wording the ops have always used. Data
// types are not looked at (the reference prepare and the type adapter own
// those rules).
Status read_pool_geometry(const NodeDesc& node, size_t spatial, PoolKind kind, PoolGeometry* g);

// Message names of axis i (0 D, 1 H, 2 W): "height", and of output
// positions along it: "output row".
const char* pool_axis_name(size_t i);
const char* pool_output_name(size_t i);

}  // namespace openhtp::ops
