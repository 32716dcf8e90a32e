// QnnSystemTensor_getMemoryFootprint: bytes a client buffer for the tensor
// must hold (dense layout: elements x element size).
#include "System/QnnSystemTensor.h"
#include "ops/op.h"
#include "system/api_guard.h"
#include "system/system_log.h"

extern "C" QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemTensor_getMemoryFootprint(Qnn_Tensor_t tensor,
                                                                              uint64_t* footprint) try {
  if (footprint == nullptr) {
    SYS_LOG_ERROR("systemTensorGetMemoryFootprint: footprint is NULL");
    return QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT;
  }
  // v1 and v2 share the fields read here, at the same offsets.
  if (tensor.version != QNN_TENSOR_VERSION_1 && tensor.version != QNN_TENSOR_VERSION_2) {
    SYS_LOG_ERROR("systemTensorGetMemoryFootprint: tensor version %d is not supported", static_cast<int>(tensor.version));
    return QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT;
  }
  const Qnn_TensorV1_t& t = tensor.v1;
  if (t.dataFormat != QNN_TENSOR_DATA_FORMAT_DENSE) {
    SYS_LOG_ERROR("systemTensorGetMemoryFootprint: only dense tensors are supported (dataFormat %u)",
                  static_cast<unsigned>(t.dataFormat));
    return QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE;
  }
  const uint64_t elem = openhtp::ops::dtype::element_size(static_cast<uint32_t>(t.dataType));
  if (elem == 0 || (t.rank > 0 && t.dimensions == nullptr)) {
    SYS_LOG_ERROR("systemTensorGetMemoryFootprint: data type 0x%04x with rank %u has no fixed size",
                  static_cast<unsigned>(t.dataType), t.rank);
    return QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT;
  }
  uint64_t bytes = elem;
  for (uint32_t i = 0; i < t.rank; ++i) {
    const uint64_t d = t.dimensions[i];
    if (d != 0 && bytes > UINT64_MAX / d) {
      SYS_LOG_ERROR("systemTensorGetMemoryFootprint: size of tensor overflows 64 bits");
      return QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT;
    }
    bytes *= d;
  }
  *footprint = bytes;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::system::api_exception("systemTensorGetMemoryFootprint");
}
