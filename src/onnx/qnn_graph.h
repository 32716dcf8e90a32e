// A QNN graph as plain data: tensors (with QNN data types, NHWC dims and
// encodings) and nodes (QNN op type names, params, tensor names). Lowering
// writes it, quantization rewrites its types, graph_submit.h turns it into
// QNN API calls. Keeping it separate from the API lets calibration submit the
// same graph twice (float with every activation exposed, then quantized) and
// lets unit tests inspect the result of lowering without a backend.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "QnnTypes.h"

namespace openhtp::onnx_import {

// QNN convention: real = (q + offset) * scale, offset = -zero_point.
struct Encoding {
  enum class Kind { kNone, kPerTensor, kPerAxis } kind = Kind::kNone;
  float scale = 0.0f;
  int32_t offset = 0;
  int32_t axis = -1;
  std::vector<float> scales;
  std::vector<int32_t> offsets;
};

struct QTensor {
  std::string name;
  Qnn_TensorType_t type = QNN_TENSOR_TYPE_NATIVE;
  Qnn_DataType_t dtype = QNN_DATATYPE_FLOAT_32;
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;  // STATIC only, elements of dtype
  Encoding encoding;
  // STATIC tensors converted from an ONNX constant (conv/FC weights): that
  // constant's name and the permutation applied to it (output dim i = ONNX
  // dim source_perm[i]), so quantization can find the constant's original
  // QDQ integers and encoding and carry them over in the QNN layout.
  std::string source_constant;
  std::vector<uint32_t> source_perm;
};

struct QParam {
  std::string name;
  bool is_tensor = false;
  Qnn_Scalar_t scalar = QNN_SCALAR_INIT;
  // Tensor params: a small STATIC tensor.
  Qnn_DataType_t dtype = QNN_DATATYPE_UINT_32;
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;
};

QParam param_u32(const char* name, uint32_t v);
QParam param_i32(const char* name, int32_t v);
QParam param_f32(const char* name, float v);
QParam param_bool(const char* name, bool v);
QParam param_u32_tensor(const char* name, std::vector<uint32_t> dims, const std::vector<uint32_t>& values);
QParam param_i32_tensor(const char* name, std::vector<uint32_t> dims, const std::vector<int32_t>& values);

struct QNode {
  std::string name;
  std::string type;  // QNN op type in package qti.aisw
  std::vector<std::string> inputs;   // "" = omitted optional input
  std::vector<std::string> outputs;
  std::vector<QParam> params;
  std::string onnx_node;  // the ONNX node it came from, for messages
};

struct QnnGraphDesc {
  std::string name;
  std::vector<QTensor> tensors;
  std::map<std::string, size_t> index;  // tensor name -> position in tensors
  std::vector<QNode> nodes;
  std::vector<std::string> inputs;   // APP_WRITE tensors, in ONNX graph input order
  std::vector<std::string> outputs;  // APP_READ tensors, in ONNX graph output order
  uint32_t num_hvx_threads = 0;      // graph config NUM_HVX_THREADS at graphCreate; 0 = none given

  QTensor* find(const std::string& name);
  const QTensor* find(const std::string& name) const;
  QTensor& add(QTensor t);  // name must be new
};

size_t qnn_element_size(Qnn_DataType_t dt);
const char* qnn_dtype_name(Qnn_DataType_t dt);

}  // namespace openhtp::onnx_import
