// Building blocks for the import-time graph rewrites (control-flow
// unrolling, static sequences, training ops, rank collapse): unique value
// names, constants, and plain ONNX nodes written so that every opset the
// importer reads accepts them (Squeeze/Unsqueeze axes as an attribute
// before opset 13, as an input from 13; static reshapes as Reshape with a
// constant shape).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "onnx/model.h"

namespace openhtp::onnx_import {

// Hands out value names no other value of the model (or of any subgraph of
// its nodes) has, and reserves them.
class NameGen {
 public:
  explicit NameGen(const Model& model);
  std::string fresh(const std::string& base);
  void reserve(const std::string& name) { used_.insert(name); }

 private:
  std::set<std::string> used_;
};

// Every name a graph defines or references, nested subgraphs included.
void collect_graph_names(const onnx::GraphProto& g, std::set<std::string>* out);

// Adds `t` as a constant under a fresh name and returns the name.
std::string add_constant(Model* m, NameGen& names, const std::string& base, Tensor t);
std::string add_int64s(Model* m, NameGen& names, const std::string& base, std::vector<int64_t> dims,
                       const std::vector<int64_t>& v);
std::string add_scalar(Model* m, NameGen& names, const std::string& base, int32_t elem_type, double v);

onnx::NodeProto make_node(const std::string& type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name);
void set_attr_int(onnx::NodeProto* n, const std::string& name, int64_t v);
void set_attr_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v);
void set_attr_float(onnx::NodeProto* n, const std::string& name, float v);

// out = Reshape(in, dims) with a constant shape.
onnx::NodeProto reshape_node(Model* m, NameGen& names, const std::string& in, const std::vector<int64_t>& dims,
                             const std::string& out, const std::string& name);
// Unsqueeze / Squeeze with `axes`, in the form the model's opset takes.
onnx::NodeProto axes_node(Model* m, NameGen& names, const std::string& type, const std::string& in,
                          const std::vector<int64_t>& axes, const std::string& out, const std::string& name);
// out = Concat(ins, axis).
onnx::NodeProto concat_node(const std::vector<std::string>& ins, int64_t axis, const std::string& out,
                            const std::string& name);

// The node's name for new node and value names: its name, else its first output.
std::string node_base(const onnx::NodeProto& n);

}  // namespace openhtp::onnx_import
