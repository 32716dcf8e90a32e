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
  // Both versions have dataFormat; only V2 has sparseParams (nullptr for V1).
  Qnn_TensorDataFormat_t data_format() const { return v1().dataFormat; }
  const Qnn_SparseParams_t* sparse_params() const {
    return t_->version == QNN_TENSOR_VERSION_2 ? &t_->v2.sparseParams : nullptr;
  }

  std::string display_name() const;
  // Bytes of dense data, or 0 if the type or a dimension is invalid.
  size_t num_bytes() const;
  // Why num_bytes() is 0: "unknown data type", "dimensions is NULL", "a zero
  // dimension" or "the byte count overflows"; "" when it is not.
  const char* size_problem() const;
  // The dims as "[2, 3, 4]" (the first 8, then "..."), or "NULL".
  std::string dims_text() const;

 private:
  // num_bytes(), and in *problem size_problem()'s answer.
  size_t sized(const char** problem) const;
  // Qnn_TensorV2_t begins with exactly Qnn_TensorV1_t's fields.
  const Qnn_TensorV1_t& v1() const { return t_->v1; }
  const Qnn_Tensor_t* t_;
};

// Reads a tensor's dataFormat (and sparseParams for SPARSE) into *out:
//   DENSE (0): dense, as always.
//   SPARSE (1): only a NATIVE tensor (an intermediate between the sparse
//     ops; graph inputs, outputs and static tensors are refused: their
//     client-visible layout would be this emulator's private one), a V2
//     struct (V1 has no sparseParams), layout HYBRID_COO, 1 <=
//     numSparseDimensions <= rank, 1 <= numSpecifiedElements <= the product
//     of the sparse dims.
//   Any other format is refused.
// On a refusal returns QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM when the tensor
// is malformed (a value QNN does not define, a layout that does not fit the
// tensor) or QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM when it is valid QNN
// this backend does not take (a defined non-dense format other than SPARSE,
// a sparse non-NATIVE tensor, zero specified elements), with *why saying
// which rule and value (no tensor name: the caller adds it).
Qnn_ErrorHandle_t read_sparsity(const TensorView& v, ops::Sparsity* out, std::string* why);

void set_tensor_id(Qnn_Tensor_t* t, uint32_t id);
void set_client_buf_size(Qnn_Tensor_t* t, uint32_t size);

}  // namespace openhtp::qnn
