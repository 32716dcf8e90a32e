#include "onnx/spatial_1d.h"

#include "onnx/attributes.h"

namespace openhtp::onnx_import {

namespace {

std::string fresh(const Model& m, const std::string& base) {
  std::string name = base;
  for (int k = 1; m.values.count(name) != 0 || m.constants.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
  return name;
}

// Prepends `lead` to an INTS attribute of 1-D meaning; pads [b, e] become
// [0, b, 0, e].
void widen(onnx::NodeProto& n, const std::string& name, int64_t lead, bool is_pads) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.name() != name) continue;
    std::vector<int64_t> v(a.ints().begin(), a.ints().end());
    std::vector<int64_t> w = is_pads && v.size() == 2 ? std::vector<int64_t>{0, v[0], 0, v[1]} : v;
    if (!is_pads) w.insert(w.begin(), lead);
    a.clear_ints();
    for (int64_t x : w) a.add_ints(x);
  }
}

onnx::NodeProto axis_node(const std::string& type, const std::string& in, const std::string& axes,
                          const std::string& out, const std::string& name) {
  onnx::NodeProto n;
  n.set_op_type(type);
  n.set_name(name);
  n.add_input(in);
  n.add_input(axes);
  n.add_output(out);
  return n;
}

}  // namespace

size_t lift_1d_spatial_ops(Model* model) {
  Model& m = *model;
  size_t lifted = 0;
  std::vector<onnx::NodeProto> out;
  // Squeeze/Unsqueeze take axes as an input from opset 13, as an attribute before.
  const bool axes_input = m.opset >= 13;
  std::string axes2;
  auto with_axes = [&](onnx::NodeProto n) {
    if (!axes_input) {
      n.mutable_input()->RemoveLast();
      auto* a = n.add_attribute();
      a->set_name("axes");
      a->set_type(onnx::AttributeProto::INTS);
      a->add_ints(2);
    }
    return n;
  };
  for (const auto& node : m.nodes) {
    const std::string& t = node.op_type();
    const bool spatial = t == "Conv" || t == "ConvTranspose" || t == "MaxPool" || t == "AveragePool";
    const ValueInfo* x = node.input_size() > 0 ? m.info(node.input(0)) : nullptr;
    if (!spatial || x == nullptr || x->dims.size() != 3 || node.output_size() != 1) {
      out.push_back(node);
      continue;
    }
    if (axes2.empty()) {
      axes2 = fresh(m, "lift1d_axis2");
      m.constants[axes2] = Tensor::from_ints(onnx_type::kInt64, {1}, {2});
      m.values[axes2] = ValueInfo{onnx_type::kInt64, {1}, true};
    }
    const std::string base = node.name().empty() ? node.output(0) : node.name();
    onnx::NodeProto n2 = node;
    const std::string x4 = fresh(m, node.input(0) + "_2d");
    m.values[x4] = ValueInfo{x->elem_type, {x->dims[0], x->dims[1], 1, x->dims[2]}, true};
    out.push_back(with_axes(axis_node("Unsqueeze", node.input(0), axes2, x4, base + "_to_2d")));
    n2.set_input(0, x4);
    if (t == "Conv" || t == "ConvTranspose") {
      const std::string& w = node.input(1);
      if (const Tensor* c = m.constant(w)) {
        Tensor w4 = *c;
        w4.dims = {c->dims[0], c->dims[1], 1, c->dims[2]};
        const std::string w4n = fresh(m, w + "_2d");
        m.constants[w4n] = w4;
        m.values[w4n] = ValueInfo{w4.elem_type, w4.dims, true};
        n2.set_input(1, w4n);
      } else {
        const std::string w4n = fresh(m, w + "_2d");
        out.push_back(with_axes(axis_node("Unsqueeze", w, axes2, w4n, base + "_weight_2d")));
        n2.set_input(1, w4n);
      }
    }
    for (const char* a : {"kernel_shape", "strides", "dilations", "output_padding", "output_shape"}) {
      widen(n2, a, std::string(a) == "output_shape" ? 1 : (std::string(a) == "output_padding" ? 0 : 1), false);
    }
    widen(n2, "pads", 0, true);
    const std::string y4 = fresh(m, node.output(0) + "_2d");
    m.values[y4] = ValueInfo{};
    n2.set_output(0, y4);
    out.push_back(n2);
    out.push_back(with_axes(axis_node("Squeeze", y4, axes2, node.output(0), base + "_from_2d")));
    ++lifted;
  }
  m.nodes = std::move(out);
  return lifted;
}

}  // namespace openhtp::onnx_import
