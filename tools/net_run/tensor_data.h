// Graph input/output tensors as qnn-net-run sees them: a deep copy of the
// Qnn_Tensor_t the model library or libQnnSystem described (so it outlives
// them), and the conversions between the float32 files QNN's tools use by
// default and the tensor's native type:
//   fixed point (SCALE_OFFSET / BW_SCALE_OFFSET): real = (q + offset) * scale,
//     q = round(real / scale) - offset, saturated to the type's range;
//   FLOAT_16 / FLOAT_64: IEEE conversion; integer and BOOL_8 types: a cast
//     (rounded, saturated; BOOL_8 = value != 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "QnnTypes.h"

namespace openhtp::netrun {

struct TensorDesc {
  uint32_t id = 0;
  std::string name;
  Qnn_TensorType_t type = QNN_TENSOR_TYPE_UNDEFINED;
  Qnn_TensorDataFormat_t data_format = 0;
  Qnn_DataType_t data_type = QNN_DATATYPE_UNDEFINED;
  bool has_scale_offset = false;  // a per-tensor encoding the float conversion can use
  float scale = 1.0f;
  int32_t offset = 0;
  std::vector<uint32_t> dims;

  size_t element_count() const;
  size_t element_size() const;  // 0: a type without a byte size (sub-byte, string)
  size_t bytes() const { return element_count() * element_size(); }
  // "UFIXED_POINT_8 [1,3,32,32]".
  std::string describe() const;
};

// Copies what qnn-net-run needs from a v1 or v2 tensor (v2 begins with v1's fields).
TensorDesc describe_tensor(const Qnn_Tensor_t& t);

// "QNN_DATATYPE_FLOAT_32" without the prefix.
std::string data_type_name(Qnn_DataType_t t);

// A v1 tensor for graphExecute: id, name, type and shape of `d`, memType RAW
// with `data`/`size`, or MEMHANDLE with `mem` when mem != NULL. `d` must
// outlive the result (name and dims point into it).
Qnn_Tensor_t make_exec_tensor(const TensorDesc& d, void* data, uint32_t size, Qnn_MemHandle_t mem);

// float32 -> native, n elements. False + *error when the type has no float
// conversion here (sub-byte types, per-axis encodings: use native files).
bool float_to_native(const TensorDesc& d, const float* in, size_t n, void* out, std::string* error);

// native -> float32, n elements; false for the same types as above.
bool native_to_float(const TensorDesc& d, const void* in, size_t n, float* out, std::string* error);

}  // namespace openhtp::netrun
