#include "onnx/graph_rewrite.h"

namespace openhtp::onnx_import {

void collect_graph_names(const onnx::GraphProto& g, std::set<std::string>* out) {
  for (const auto& v : g.input()) out->insert(v.name());
  for (const auto& v : g.output()) out->insert(v.name());
  for (const auto& v : g.initializer()) out->insert(v.name());
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) out->insert(i);
    for (const auto& o : n.output()) out->insert(o);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_graph_names(a.g(), out);
      for (const auto& sg : a.graphs()) collect_graph_names(sg, out);
    }
  }
}

NameGen::NameGen(const Model& model) {
  for (const auto& [name, v] : model.values) used_.insert(name);
  for (const auto& [name, t] : model.constants) used_.insert(name);
  for (const auto& n : model.nodes) {
    for (const auto& i : n.input()) used_.insert(i);
    for (const auto& o : n.output()) used_.insert(o);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_graph_names(a.g(), &used_);
      for (const auto& sg : a.graphs()) collect_graph_names(sg, &used_);
    }
  }
}

std::string NameGen::fresh(const std::string& base) {
  std::string name = base;
  for (int k = 1; used_.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

std::string add_constant(Model* m, NameGen& names, const std::string& base, Tensor t) {
  const std::string name = names.fresh(base);
  m->values[name] = ValueInfo{t.elem_type, t.dims, true};
  m->constants[name] = std::move(t);
  return name;
}

std::string add_int64s(Model* m, NameGen& names, const std::string& base, std::vector<int64_t> dims,
                       const std::vector<int64_t>& v) {
  return add_constant(m, names, base, Tensor::from_ints(onnx_type::kInt64, std::move(dims), v));
}

std::string add_scalar(Model* m, NameGen& names, const std::string& base, int32_t elem_type, double v) {
  Tensor t = Tensor::zeros(elem_type, {});
  t.set(0, v);
  return add_constant(m, names, base, std::move(t));
}

onnx::NodeProto make_node(const std::string& type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto n;
  n.set_op_type(type);
  n.set_name(name);
  for (const auto& i : inputs) n.add_input(i);
  for (const auto& o : outputs) n.add_output(o);
  return n;
}

void set_attr_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_attr_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void set_attr_float(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

onnx::NodeProto reshape_node(Model* m, NameGen& names, const std::string& in, const std::vector<int64_t>& dims,
                             const std::string& out, const std::string& name) {
  const std::string shape = add_int64s(m, names, out + "_shape", {static_cast<int64_t>(dims.size())}, dims);
  return make_node("Reshape", {in, shape}, {out}, name);
}

onnx::NodeProto axes_node(Model* m, NameGen& names, const std::string& type, const std::string& in,
                          const std::vector<int64_t>& axes, const std::string& out, const std::string& name) {
  if (m->opset >= 13) {
    const std::string a = add_int64s(m, names, out + "_axes", {static_cast<int64_t>(axes.size())}, axes);
    return make_node(type, {in, a}, {out}, name);
  }
  onnx::NodeProto n = make_node(type, {in}, {out}, name);
  set_attr_ints(&n, "axes", axes);
  return n;
}

onnx::NodeProto concat_node(const std::vector<std::string>& ins, int64_t axis, const std::string& out,
                            const std::string& name) {
  onnx::NodeProto n = make_node("Concat", ins, {out}, name);
  set_attr_int(&n, "axis", axis);
  return n;
}

std::string node_base(const onnx::NodeProto& n) {
  if (!n.name().empty()) return n.name();
  for (const auto& o : n.output()) {
    if (!o.empty()) return o;
  }
  return n.op_type();
}

}  // namespace openhtp::onnx_import
