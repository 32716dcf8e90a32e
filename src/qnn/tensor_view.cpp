#include "qnn/tensor_view.h"

#include <cstdint>

#include "QnnTensor.h"
#include "common/client_memory.h"

namespace openhtp::qnn {

// Only error messages call this, often for a tensor that failed validation:
// its name pointer may be garbage, so it is read without trusting it.
std::string TensorView::display_name() const {
  const char* n = name();
  return n != nullptr ? "'" + read_client_string(n) + "'" : "id " + std::to_string(id());
}

size_t TensorView::sized(const char** problem) const {
  *problem = "";
  size_t bytes = ops::dtype::element_size(static_cast<uint32_t>(data_type()));
  if (bytes == 0) {
    *problem = "unknown data type";
    return 0;
  }
  if (rank() > 0 && dims() == nullptr) {
    *problem = "dimensions is NULL";
    return 0;
  }
  for (uint32_t i = 0; i < rank(); ++i) {
    if (dims()[i] == 0) {
      *problem = "a zero dimension";
      return 0;
    }
    if (bytes > SIZE_MAX / dims()[i]) {
      *problem = "the byte count overflows";
      return 0;
    }
    bytes *= dims()[i];
  }
  return bytes;
}

size_t TensorView::num_bytes() const {
  const char* problem;
  return sized(&problem);
}

const char* TensorView::size_problem() const {
  const char* problem;
  sized(&problem);
  return problem;
}

std::string TensorView::dims_text() const {
  if (rank() > 0 && dims() == nullptr) return "NULL";
  constexpr uint32_t kShown = 8;
  std::string s = "[";
  for (uint32_t i = 0; i < rank() && i < kShown; ++i) s += (i > 0 ? ", " : "") + std::to_string(dims()[i]);
  if (rank() > kShown) s += ", ...";
  return s + "]";
}

Qnn_ErrorHandle_t read_sparsity(const TensorView& v, ops::Sparsity* out, std::string* why) {
  *out = ops::Sparsity{};
  const Qnn_TensorDataFormat_t format = v.data_format();
  if (format == QNN_TENSOR_DATA_FORMAT_DENSE) return QNN_SUCCESS;
  if (format != QNN_TENSOR_DATA_FORMAT_SPARSE) {
    // QnnTypes.h defines 0..QNN_TENSOR_DATA_FORMAT_BATCH_ALIGNED_256.
    if (format > QNN_TENSOR_DATA_FORMAT_BATCH_ALIGNED_256) {
      *why = "dataFormat " + std::to_string(format) + " is not a QNN tensor data format (0 to " +
             std::to_string(QNN_TENSOR_DATA_FORMAT_BATCH_ALIGNED_256) + ")";
      return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
    }
    *why = "dataFormat " + std::to_string(format) + " is not supported (DENSE 0, or SPARSE 1 for NATIVE tensors)";
    return QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM;
  }
  if (v.type() != QNN_TENSOR_TYPE_NATIVE) {
    *why = "dataFormat SPARSE (1) is supported for NATIVE tensors only, this one has tensor type " +
           std::to_string(static_cast<int>(v.type()));
    return QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM;
  }
  const Qnn_SparseParams_t* sp = v.sparse_params();
  if (sp == nullptr) {
    *why = "dataFormat SPARSE (1) needs a version 2 tensor struct (version 1 has no sparseParams)";
    return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  if (sp->type != QNN_SPARSE_LAYOUT_HYBRID_COO) {
    *why = "sparseParams.type is " + std::to_string(static_cast<unsigned>(sp->type)) +
           ", expected QNN_SPARSE_LAYOUT_HYBRID_COO (0) for a SPARSE tensor";
    return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  const uint32_t k = sp->hybridCoo.numSpecifiedElements, s = sp->hybridCoo.numSparseDimensions;
  if (s == 0 || s > v.rank()) {
    *why = "sparseParams.hybridCoo.numSparseDimensions is " + std::to_string(s) + ", expected 1 to the rank " +
           std::to_string(v.rank());
    return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  if (k == 0) {
    *why = "sparseParams.hybridCoo.numSpecifiedElements is 0 (a sparse tensor with no entries is not supported)";
    return QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM;
  }
  uint64_t positions = 1;
  for (uint32_t d = 0; d < s; ++d) {
    const uint32_t n = v.dims() != nullptr ? v.dims()[d] : 0;
    positions = n != 0 && positions > UINT64_MAX / n ? UINT64_MAX : positions * n;
  }
  if (k > positions) {
    *why = "sparseParams.hybridCoo.numSpecifiedElements is " + std::to_string(k) + ", more than the " +
           std::to_string(positions) + " positions of the " + std::to_string(s) + " sparse dims";
    return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  *out = ops::Sparsity{true, k, s};
  return QNN_SUCCESS;
}

void set_tensor_id(Qnn_Tensor_t* t, uint32_t id) { t->v1.id = id; }
void set_client_buf_size(Qnn_Tensor_t* t, uint32_t size) { t->v1.clientBuf.dataSize = size; }

}  // namespace openhtp::qnn
