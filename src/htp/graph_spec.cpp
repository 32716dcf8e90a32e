#include "htp/graph_spec.h"

#include <cstdint>

namespace openhtp::htp {

size_t TensorSpec::num_bytes() const {
  // Saturating: a hostile shape's product must not wrap round to a small
  // size that passes every check (it is SIZE_MAX instead, which none does).
  size_t n = ops::dtype::element_size(dtype);
  for (uint32_t d : dims) {
    if (d != 0 && n > SIZE_MAX / d) return SIZE_MAX;
    n *= d;
  }
  return n;
}

const TensorSpec* GraphSpec::find_tensor(uint32_t id) const {
  for (const auto& t : tensors) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

}  // namespace openhtp::htp
