// What an op's lowering function works with: the model (types, shapes,
// constants), the QNN graph being written, and the map from each ONNX tensor
// to its QNN tensors in ONNX layout and/or channel-last layout (layout.h).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "onnx/layout.h"
#include "onnx/model.h"
#include "onnx/qnn_graph.h"

namespace openhtp::onnx_import {

// Thrown by lowering functions; the message names the rule and the value.
struct LoweringError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ONNX element type -> QNN data type. INT64 becomes INT_32 (QNN HTP has no
// 64-bit integer tensors; indices and shapes fit). UINT64 becomes UINT_32.
// DOUBLE becomes FLOAT_32 (HTP computes in at most 32-bit float; clients
// pass and read float32 data). BFLOAT16 is QNN's BFLOAT_16, which only Cast
// takes (check_node refuses it elsewhere). STRING and complex have no QNN
// type: returns false.
bool qnn_dtype_for(int32_t onnx_elem_type, Qnn_DataType_t* out);
// Converts a constant's elements to `dt` bytes (int64 values checked to fit int32).
std::vector<uint8_t> to_qnn_bytes(const Tensor& t, Qnn_DataType_t dt);

class LoweringContext {
 public:
  // `channel_last_inputs`: graph inputs the client supplies already in NHWC
  // (converter --input_layout NAME NHWC).
  LoweringContext(const Model& model, QnnGraphDesc* graph, std::set<std::string> channel_last_inputs = {});

  const Model& model() const { return model_; }
  QnnGraphDesc& graph() { return *graph_; }
  void set_current_node(const onnx::NodeProto* node) { node_ = node; }
  const onnx::NodeProto& node() const { return *node_; }
  [[noreturn]] void fail(const std::string& why) const;

  // Type/shape of an ONNX value (static shape required).
  const ValueInfo& info(const std::string& onnx_name) const;
  std::vector<uint32_t> dims_u32(const std::string& onnx_name) const;
  size_t rank(const std::string& onnx_name) const { return info(onnx_name).dims.size(); }
  const Tensor* constant(const std::string& onnx_name) const { return model_.constant(onnx_name); }

  // The QNN tensor holding ONNX tensor `onnx_name` in ONNX layout / channel-last.
  // Creates a STATIC tensor for constants and a Transpose when only the other
  // layout exists.
  std::string as_is(const std::string& onnx_name);
  std::string channel_last(const std::string& onnx_name);
  bool has_as_is(const std::string& onnx_name) const;
  bool has_channel_last(const std::string& onnx_name) const;
  // True when the value exists only channel-last (so layout-agnostic ops
  // should keep working channel-last).
  bool prefers_channel_last(const std::string& onnx_name) const;

  // Declares the QNN tensor an op writes for ONNX output `onnx_name` in
  // `layout` (dims permuted for channel-last). In ONNX layout the QNN tensor
  // takes the ONNX name, so graph outputs keep their names. `dtype` overrides
  // the type derived from the ONNX type.
  std::string output(const std::string& onnx_name, Layout layout = Layout::kOnnx,
                     std::optional<Qnn_DataType_t> dtype = std::nullopt);
  // `onnx_name` is the same value as `source` (Identity, Dropout, folded Q/DQ).
  void alias(const std::string& onnx_name, const std::string& source);

  // QNN-only tensors.
  std::string native(const std::string& hint, Qnn_DataType_t dt, std::vector<uint32_t> dims);
  std::string static_tensor(const std::string& hint, Qnn_DataType_t dt, std::vector<uint32_t> dims,
                            std::vector<uint8_t> data);
  std::string static_f32(const std::string& hint, std::vector<uint32_t> dims, const std::vector<float>& values);
  std::string static_from(const std::string& hint, const Tensor& value);  // dtype from the ONNX type

  // Adds a node named after the current ONNX node (+ suffix when it takes
  // several QNN nodes).
  void add_node(const std::string& type, std::vector<std::string> inputs, std::vector<std::string> outputs,
                std::vector<QParam> params = {});
  // Convenience nodes returning their (new NATIVE) output tensor.
  std::string transpose(const std::string& qnn_in, const std::vector<uint32_t>& perm);
  std::string reshape(const std::string& qnn_in, const std::vector<uint32_t>& dims);

  const QTensor& qtensor(const std::string& qnn_name) const;
  // Records that STATIC tensor `qnn_name` is ONNX constant `onnx_constant`
  // permuted by `perm` (see QTensor::source_constant).
  void set_source(const std::string& qnn_name, const std::string& onnx_constant, std::vector<uint32_t> perm);
  std::string unique_name(const std::string& hint);

  // Graph outputs: every ONNX output in ONNX layout as an APP_READ tensor
  // named like the ONNX output (a copy is added when the value is a graph
  // input, a constant or another output).
  void finish_outputs();

 private:
  struct Forms {
    std::string onnx_layout;    // QNN tensor name, "" when not created
    std::string channel_last;
  };
  Qnn_DataType_t dtype_of(const std::string& onnx_name) const;
  Forms& forms(const std::string& onnx_name);

  const Model& model_;
  QnnGraphDesc* graph_;
  const onnx::NodeProto* node_ = nullptr;
  std::map<std::string, Forms> forms_;
  std::map<std::string, std::string> aliases_;
  std::set<std::string> used_names_;
  size_t node_counter_ = 0;
};

}  // namespace openhtp::onnx_import
