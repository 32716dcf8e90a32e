// Uniform, read-mostly access to a client's Qnn_Tensor_t whatever its version.
// V1 and V2 share the fields we use at the same offsets, but we still branch
// on the version so an unknown version is refused, never misread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "QnnTypes.h"
#include "ops/op.h"

namespace openhtp::qnn {

class TensorView {
 public:
  explicit TensorView(const Qnn_Tensor_t* t) : t_(t) {}
  bool version_known() const {
    return t_ != nullptr && (t_->version == QNN_TENSOR_VERSION_1 || t_->version == QNN_TENSOR_VERSION_2);
  }
  uint32_t id() const { return v1().id; }
  const char* name() const { return v1().name; }
  Qnn_TensorType_t type() const { return v1().type; }
  Qnn_DataType_t data_type() const { return v1().dataType; }
  const Qnn_QuantizeParams_t& quant() const { return v1().quantizeParams; }
  uint32_t rank() const { return v1().rank; }
  const uint32_t* dims() const { return v1().dimensions; }
  Qnn_TensorMemType_t mem_type() const { return v1().memType; }
  const Qnn_ClientBuffer_t& client_buf() const { return v1().clientBuf; }
  Qnn_MemHandle_t mem_handle() const { return v1().memHandle; }

  std::string display_name() const;
  // Bytes of dense data, or 0 if the type or a dimension is invalid.
  size_t num_bytes() const;

 private:
  // Qnn_TensorV2_t begins with exactly Qnn_TensorV1_t's fields.
  const Qnn_TensorV1_t& v1() const { return t_->v1; }
  const Qnn_Tensor_t* t_;
};

void set_tensor_id(Qnn_Tensor_t* t, uint32_t id);
void set_client_buf_size(Qnn_Tensor_t* t, uint32_t size);

}  // namespace openhtp::qnn
