// The ONNX model as the importer works on it: nodes in topological order,
// every constant (initializers, Constant nodes, folded values) as a plain
// Tensor, and the type and static shape of every value (from ONNX shape
// inference, re-run after each pass that creates constants).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace openhtp::onnx_import {

// onnx::TensorProto_DataType values used by name in the importer.
namespace onnx_type {
inline constexpr int32_t kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7,
                         kString = 8, kBool = 9, kFloat16 = 10, kDouble = 11, kUint32 = 12, kUint64 = 13,
                         kBfloat16 = 16;
// Bytes per element in a Tensor's `data` (bool is one byte); 0 for types the
// importer cannot hold (string, complex).
size_t element_size(int32_t elem_type);
const char* name(int32_t elem_type);
}  // namespace onnx_type

// QNN tensors count elements in 32 bits, and openhtp's backend refuses a
// tensor of more than 2^31: every graph value and initializer is held to it
// at import, before anything is allocated for it.
inline constexpr uint64_t kMaxTensorElements = uint64_t{1} << 31;
// Bytes of one constant the importer computes itself (a folded value, a
// static tensor the lowering makes up). Its data ends up in the context
// binary and in the HTP's 32-bit address space; a few hundred bytes of
// model (Expand or ConstantOfShape to a huge shape) must not grow into
// gigabytes of memory and weights.
inline constexpr uint64_t kMaxComputedConstantBytes = uint64_t{1} << 30;

// Elements of `dims`, or UINT64_MAX when the product passes 2^63 (dims of
// 2^62 must not wrap to a small count) or a dimension is negative.
uint64_t checked_element_count(const std::vector<int64_t>& dims);
// "" when dims fit kMaxTensorElements and (max_bytes != 0) their bytes of
// `element_size` fit max_bytes; else why not ("shape 1000000x1000000 has
// 1000000000000 elements, more than 2^31 ...").
std::string tensor_size_problem(const std::vector<int64_t>& dims, size_t element_size, uint64_t max_bytes);

// Thrown by Tensor::zeros for a value over the limits above, before
// allocating: the passes that compute constants catch it and refuse the node.
struct TensorTooLarge : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A dense tensor value; `data` holds the elements little-endian and packed.
struct Tensor {
  int32_t elem_type = 0;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;

  size_t count() const;
  // Element i converted; float16 is widened, integer types sign/zero-extended.
  double get(size_t i) const;
  int64_t get_int(size_t i) const;
  void set(size_t i, double v);  // converts to elem_type (ints truncate, bool != 0)
  std::vector<double> to_doubles() const;
  std::vector<int64_t> to_ints() const;
  std::vector<float> to_floats() const;

  // Throws TensorTooLarge past kMaxTensorElements / kMaxComputedConstantBytes.
  static Tensor zeros(int32_t elem_type, std::vector<int64_t> dims);
  static Tensor from_floats(std::vector<int64_t> dims, const std::vector<float>& values);
  static Tensor from_ints(int32_t elem_type, std::vector<int64_t> dims, const std::vector<int64_t>& values);
};

// TensorProto -> Tensor, from raw_data or the typed repeated fields.
// False + *error for external data, strings and unknown types.
bool tensor_from_proto(const onnx::TensorProto& proto, Tensor* out, std::string* error);
void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* out);
// Reads a serialized TensorProto file (test_data_set_*/input_K.pb).
bool read_tensor_file(const std::string& path, Tensor* out, std::string* name, std::string* error);

// Type and shape of one value; dims are -1 where unknown.
struct ValueInfo {
  int32_t elem_type = 0;
  std::vector<int64_t> dims;
  bool has_shape = false;
  bool is_static() const;
};

struct Model {
  std::string graph_name;
  int64_t opset = 0;                          // of the default ("" / ai.onnx) domain
  std::map<std::string, int64_t> other_opsets;  // the other domains the model imports (shape inference needs them)
  std::vector<onnx::NodeProto> nodes;         // topological order
  std::map<std::string, Tensor> constants;
  std::map<std::string, ValueInfo> values;    // every known value, constants included
  std::vector<std::string> inputs;            // graph inputs that are not initializers, in order
  std::vector<std::string> outputs;
  // Quantized conversion with QDQ folding: QuantizeLinear/DequantizeLinear
  // left after folding are refused (check_node), not lowered.
  bool qdq_folded = false;
  // Graph inputs/outputs of rank > 5 given to QNN as their rank-5 row-major
  // view (rank_collapse.h): name -> the ONNX dims. The converter says so.
  std::map<std::string, std::vector<int64_t>> io_views;
  // Graph outputs with a 0 in their static shape, in ONNX order: not QNN
  // graph outputs (empty_values.h); `values` keeps their type and shape.
  std::vector<std::string> empty_outputs;
  // Nodes an import-time rewrite (control-flow unrolling, static sequences,
  // training ops) had to leave, by node name (or first output), with the
  // reason: check_node reports it rather than "op type X is not supported".
  std::map<std::string, std::string> rewrite_refusals;

  bool is_constant(const std::string& name) const { return constants.count(name) != 0; }
  const Tensor* constant(const std::string& name) const;
  const ValueInfo* info(const std::string& name) const;
};

bool load_model_file(const std::string& path, onnx::ModelProto* out, std::string* error);

// ModelProto -> Model: opset, initializers, graph I/O, nodes; then shape
// inference. `input_dims` overrides graph input shapes (converter -d).
bool model_from_proto(const onnx::ModelProto& proto, Model* out, std::string* error,
                      const std::map<std::string, std::vector<int64_t>>& input_dims = {});

// The first graph input whose shape is not static (a symbolic or unset
// dimension, or no shape) that -d did not give, described with the fix
// ("graph input 'x' has symbolic dimension 'batch' at axis 0: give its shape
// with -d x 1,3,224,224 (--input_dim)"); "" when every input is static.
std::string unset_input_shape(const onnx::ModelProto& proto, const Model& model);

// Runs ONNX shape inference (with data propagation) over the model as it is
// now and refreshes `values`. Constants keep the shape of their data.
bool infer_shapes(Model* model, std::string* error);

// The first value whose static shape passes kMaxTensorElements (checked
// without overflow: dims of 2^62 are not a small count), as the refusal
// line; "" when none does. Shapes that large would wrap when given to QNN.
std::string oversized_value(const Model& model);

// "1x3x224x224" for messages.
std::string dims_to_string(const std::vector<int64_t>& dims);

}  // namespace openhtp::onnx_import
