// The reference pool kernels' view of a PoolGeometry (ops/pool_geometry.h):
// for each output position along each axis, the window taps that land on
// real input; the rules the taps decide (a window of only padding), and
// PoolAvg's padded divisor.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ops/op.h"
#include "ops/pool_geometry.h"
#include "ops/shape.h"

namespace openhtp::ops::detail {

// taps[i][o]: valid taps of output position o along axis i (D, H, W).
using PoolTaps = std::array<std::vector<TapRange>, 3>;
PoolTaps pool_taps(const PoolGeometry& g);

// A window made only of padding has no maximum; PoolMax refuses it.
Status check_no_padding_only_window(const NodeDesc& node, const PoolGeometry& g, const PoolTaps& taps);

// Window positions inside [-pad_begin, in + pad_end) for output position o
// (PoolAvg's divisor with count_pad_for_edges).
uint32_t padded_count(const PoolAxis& a, uint64_t o);

}  // namespace openhtp::ops::detail
