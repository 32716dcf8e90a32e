// The pooling window of PoolMax2d/3d and PoolAvg2d/3d: the parameters
// filter_size, stride, pad_amount and rounding_mode, read and checked once
// for 2 or 3 spatial axes (channel-last: N, [D,] H, W, C), the output size
// per axis, and the window taps that land on real input for each output
// position. A 2-D window is given a leading depth axis of size 1, so one
// kernel per op serves both ranks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ops/op.h"
#include "ops/param_reader.h"
#include "ops/shape.h"

namespace openhtp::ops::detail {

struct PoolAxis {
  uint32_t in = 1, out = 1, filter = 1, stride = 1, pad_begin = 0, pad_end = 0;
  std::vector<TapRange> taps{TapRange{0, 1}};  // valid taps per output position
};

struct PoolWindow {
  uint32_t N = 0, C = 0;
  std::array<PoolAxis, 3> axes;  // D, H, W; D is 1 (one tap) for a 2-D pool
  size_t spatial = 0;            // 2 or 3: how many axes the op has
};

// Reads and checks the window of a node with `spatial` (2 or 3) spatial axes
// and checks its output dims. The caller checked the parameter names.
Status read_pool_window(const NodeDesc& node, const ParamReader& params, size_t spatial, PoolWindow* w);

// A window made only of padding has no maximum; PoolMax refuses it.
Status check_no_padding_only_window(const NodeDesc& node, const PoolWindow& w);

// Window positions inside [-pad_begin, in + pad_end) for output position o
// (PoolAvg's divisor with count_pad_for_edges).
uint32_t padded_count(const PoolAxis& a, uint64_t o);

// Message name of output positions along axis i (0 D, 1 H, 2 W): "output row".
const char* pool_output_name(size_t i);

}  // namespace openhtp::ops::detail
