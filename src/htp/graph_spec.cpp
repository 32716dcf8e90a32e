#include "htp/graph_spec.h"

namespace openhtp::htp {

size_t TensorSpec::num_bytes() const {
  size_t n = ops::dtype::element_size(dtype);
  for (uint32_t d : dims) n *= d;
  return n;
}

const TensorSpec* GraphSpec::find_tensor(uint32_t id) const {
  for (const auto& t : tensors) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

}  // namespace openhtp::htp
