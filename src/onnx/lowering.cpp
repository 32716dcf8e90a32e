#include "onnx/lowering.h"

#include <algorithm>

#include "onnx/attributes.h"

namespace openhtp::onnx_import {

namespace {

const std::map<std::string, OpLowering>& table() {
  static const std::map<std::string, OpLowering> t = [] {
    std::map<std::string, OpLowering> m;
    for (auto family : {conv_pool_lowerings, norm_lowerings, resize_lowerings, elementwise_lowerings, shape_op_lowerings,
                        misc_lowerings}) {
      for (const OpLowering& l : family()) m[l.op_type] = l;
    }
    return m;
  }();
  return t;
}

bool type_supported(int32_t elem_type) {
  Qnn_DataType_t dt;
  return qnn_dtype_for(elem_type, &dt);
}

}  // namespace

const OpLowering* find_lowering(const std::string& op_type) {
  auto it = table().find(op_type);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> supported_op_types() {
  std::vector<std::string> v;
  for (const auto& [name, l] : table()) v.push_back(name);
  return v;
}

int64_t normalize_axis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

std::string check_constant_inputs(const onnx::NodeProto& node, const Model& model, std::vector<int> which) {
  for (int i : which) {
    const std::string name = input_name(node, i);
    if (!name.empty() && !model.is_constant(name)) {
      return "input " + std::to_string(i) + " ('" + name + "') must be a constant (initializer or foldable)";
    }
  }
  return "";
}

std::string check_no_extra_outputs(const onnx::NodeProto& node, int allowed) {
  for (int i = allowed; i < node.output_size(); ++i) {
    if (!node.output(i).empty()) {
      return "output " + std::to_string(i) + " ('" + node.output(i) + "') is not supported";
    }
  }
  return "";
}

std::string check_node(const onnx::NodeProto& node, const Model& model) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") return "domain '" + node.domain() + "' is not supported";
  const OpLowering* l = find_lowering(node.op_type());
  if (l == nullptr) return "op type " + node.op_type() + " is not supported";
  auto check_value = [&](const std::string& name) -> std::string {
    if (name.empty()) return "";
    const ValueInfo* v = model.info(name);
    if (v == nullptr || v->elem_type == 0) return "value '" + name + "' has no known type";
    if (!type_supported(v->elem_type)) {
      return "value '" + name + "' has element type " + std::string(onnx_type::name(v->elem_type)) +
             ", which QNN has no type for";
    }
    if (v->elem_type == onnx_type::kBfloat16 && node.op_type() != "Cast" && node.op_type() != "CastLike") {
      return "value '" + name + "' is BFLOAT16, which only Cast takes (convert to FLOAT or FLOAT16 first)";
    }
    if (!v->is_static()) return "value '" + name + "' has no static shape";
    if (v->dims.size() > 5) {
      return "value '" + name + "' has rank " + std::to_string(v->dims.size()) + " (QNN HTP tensors have rank <= 5)";
    }
    for (int64_t d : v->dims) {
      // Empty constants are fine: they are read at import (e.g. no axes).
      if (d == 0 && !model.is_constant(name)) return "value '" + name + "' is empty (shape " + dims_to_string(v->dims) + ")";
    }
    return "";
  };
  for (const auto& i : node.input()) {
    if (std::string why = check_value(i); !why.empty()) return why;
  }
  for (const auto& o : node.output()) {
    if (std::string why = check_value(o); !why.empty()) return why;
  }
  return l->check != nullptr ? l->check(node, model) : "";
}

bool lower_model(const Model& model, const LoweringOptions& options, QnnGraphDesc* graph, std::string* error,
                 const ProgressFn& progress) {
  // Every unsupported node is reported at once, by name and op type.
  std::string report;
  size_t bad = 0;
  for (const auto& n : model.nodes) {
    if (std::string why = check_node(n, model); !why.empty()) {
      report += "\n  " + describe_node(n) + ": " + why;
      ++bad;
    }
  }
  if (bad != 0) {
    *error = std::to_string(bad) + " unsupported node(s):" + report;
    return false;
  }
  for (const std::string& in : model.inputs) {
    const ValueInfo* v = model.info(in);
    Qnn_DataType_t dt;
    if (v == nullptr || !v->is_static() || !qnn_dtype_for(v->elem_type, &dt)) {
      *error = "graph input '" + in + "' needs a static shape and a QNN-representable type";
      return false;
    }
  }
  LoweringContext ctx(model, graph, options.channel_last_inputs);
  size_t done = 0;
  for (const auto& n : model.nodes) {
    ctx.set_current_node(&n);
    try {
      find_lowering(n.op_type())->lower(n, ctx);
    } catch (const LoweringError& e) {
      *error = describe_node(n) + ": " + e.what();
      return false;
    }
    report_progress(progress, "lowering", ++done, model.nodes.size());
  }
  try {
    ctx.finish_outputs();
  } catch (const LoweringError& e) {
    *error = std::string("graph outputs: ") + e.what();
    return false;
  }
  return true;
}

}  // namespace openhtp::onnx_import
