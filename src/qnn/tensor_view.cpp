#include "qnn/tensor_view.h"

#include "common/client_memory.h"

namespace openhtp::qnn {

// Only error messages call this, often for a tensor that failed validation:
// its name pointer may be garbage, so it is read without trusting it.
std::string TensorView::display_name() const {
  const char* n = name();
  return n != nullptr ? "'" + read_client_string(n) + "'" : "id " + std::to_string(id());
}

size_t TensorView::num_bytes() const {
  size_t bytes = ops::dtype::element_size(static_cast<uint32_t>(data_type()));
  if (bytes == 0) return 0;
  if (rank() > 0 && dims() == nullptr) return 0;
  for (uint32_t i = 0; i < rank(); ++i) {
    if (dims()[i] == 0 || bytes > SIZE_MAX / dims()[i]) return 0;
    bytes *= dims()[i];
  }
  return bytes;
}

void set_tensor_id(Qnn_Tensor_t* t, uint32_t id) { t->v1.id = id; }
void set_client_buf_size(Qnn_Tensor_t* t, uint32_t size) { t->v1.clientBuf.dataSize = size; }

}  // namespace openhtp::qnn
