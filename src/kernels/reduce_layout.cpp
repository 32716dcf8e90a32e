#include "kernels/reduce_layout.h"

#include <cstring>
#include <vector>

namespace openhtp::kernels {

bool contiguous_reduce_layout(const ops::NodeDesc& node, ReduceLayout* layout) {
  const ops::TensorDesc& x = node.inputs[0];
  const ops::Param* axes = node.find_param("axes");
  if (axes == nullptr || !axes->is_tensor || axes->data.size() % 4 != 0) return false;
  std::vector<bool> reduced(x.dims.size(), false);
  for (size_t i = 0; i < axes->data.size() / 4; ++i) {
    uint32_t ax;
    std::memcpy(&ax, axes->data.data() + 4 * i, 4);
    if (ax >= x.dims.size()) return false;
    reduced[ax] = true;
  }
  ReduceLayout l;
  int phase = 0;  // 0: before the block, 1: in it, 2: after
  for (size_t ax = 0; ax < x.dims.size(); ++ax) {
    const size_t d = x.dims[ax];
    if (d == 1) continue;
    if (reduced[ax]) {
      if (phase == 2) return false;
      phase = 1;
      l.reduced *= d;
    } else {
      if (phase == 1) phase = 2;
      (phase == 0 ? l.outer : l.inner) *= d;
    }
  }
  if (l.reduced > (size_t{1} << 40)) return false;
  *layout = l;
  return true;
}

}  // namespace openhtp::kernels
