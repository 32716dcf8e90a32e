#include "ops/reference/pool_window.h"

#include <algorithm>

#include "ops/validate.h"

namespace openhtp::ops::detail {

PoolTaps pool_taps(const PoolGeometry& g) {
  PoolTaps taps;
  for (size_t i = 0; i < 3; ++i) {
    const PoolAxis& a = g.axes[i];
    taps[i].resize(a.out);
    for (uint64_t o = 0; o < a.out; ++o) taps[i][o] = valid_taps(o, a.stride, a.pad_begin, 1, a.filter, a.in);
  }
  return taps;
}

Status check_no_padding_only_window(const NodeDesc& node, const PoolGeometry& g, const PoolTaps& taps) {
  // A window is empty when its range along any one axis is; only the first
  // and last windows along an axis can be the empty ones.
  for (size_t i = 3 - g.spatial; i < 3; ++i) {
    const PoolAxis& a = g.axes[i];
    for (uint64_t o : {uint64_t{0}, uint64_t{a.out} - 1}) {
      if (taps[i][o].lo != taps[i][o].hi) continue;
      return unsupported(node, pool_output_name(i), " ", o, " pools only padding (window ", pool_axis_name(i), " ",
                         static_cast<int64_t>(o * a.stride) - a.pad_begin, "..",
                         static_cast<int64_t>(o * a.stride + a.filter) - a.pad_begin - 1, " of input ",
                         pool_axis_name(i), " ", a.in, ")");
    }
  }
  return Status::Ok();
}

uint32_t padded_count(const PoolAxis& a, uint64_t o) {
  const int64_t first = static_cast<int64_t>(o * a.stride) - a.pad_begin;
  const int64_t lo = std::max<int64_t>(first, -int64_t{a.pad_begin});
  const int64_t hi = std::min<int64_t>(first + a.filter, int64_t{a.in} + a.pad_end);
  return static_cast<uint32_t>(std::max<int64_t>(hi - lo, 0));
}

}  // namespace openhtp::ops::detail
