#include "onnx/lowering.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "onnx/attributes.h"
#include "onnx/graph_rewrite.h"
#include "onnx/layer_norm_fusion.h"

namespace openhtp::onnx_import {

namespace {

const std::map<std::string, OpLowering>& table() {
  static const std::map<std::string, OpLowering> t = [] {
    std::map<std::string, OpLowering> m;
    for (auto family : {conv_pool_lowerings, norm_lowerings, resize_lowerings, elementwise_lowerings, shape_op_lowerings,
                        misc_lowerings, indexing_lowerings, vision_lowerings, composite_lowerings,
                        loss_lowerings, static_lowerings, einsum_lowerings,
                        rnn_lowerings, integer_lowerings, dft_lowerings}) {
      for (const OpLowering& l : family()) m[l.op_type] = l;
    }
    return m;
  }();
  return t;
}

// ---- GELU fusion ----
//
// The exact-GELU pattern of exporters (PyTorch's nn.GELU, BERT):
//   d = Div(x, sqrt 2) | Mul(x, 1/sqrt 2);  e = Erf(d);  a = Add(e, 1);
//   then  Mul(Mul(x, a), 0.5)  |  Mul(Mul(x, 0.5), a)  |  Mul(x, Mul(a, 0.5))
// (operands of Add/Mul in either order) becomes one ONNX-style "Gelu" node
// (opset 20's Gelu, approximate 'none'), lowered to QNN Gelu. Every
// intermediate must have that single consumer and not be a graph output.
struct GeluMatcher {
  const Model& model;
  std::map<std::string, std::vector<size_t>> consumers;
  std::map<std::string, size_t> producer;
  std::set<std::string> outputs;

  explicit GeluMatcher(const Model& m) : model(m), outputs(m.outputs.begin(), m.outputs.end()) {
    for (size_t i = 0; i < m.nodes.size(); ++i) {
      for (const auto& in : m.nodes[i].input()) consumers[in].push_back(i);
      for (const auto& o : m.nodes[i].output()) producer[o] = i;
    }
  }
  bool is_scalar(const std::string& name, double v, double tol) const {
    const Tensor* c = model.constant(name);
    return c != nullptr && c->count() == 1 && std::fabs(c->get(0) - v) <= tol;
  }
  // The single node consuming `value` (an internal value), else nullptr.
  const onnx::NodeProto* only_consumer(const std::string& value, size_t* index) const {
    if (outputs.count(value) != 0) return nullptr;
    auto it = consumers.find(value);
    if (it == consumers.end() || it->second.size() != 1) return nullptr;
    *index = it->second[0];
    return &model.nodes[*index];
  }
  const onnx::NodeProto* produced_by(const std::string& value, size_t* index) const {
    auto it = producer.find(value);
    if (it == producer.end()) return nullptr;
    *index = it->second;
    return &model.nodes[*index];
  }
  static bool binary(const onnx::NodeProto& n, const char* type) {
    return n.op_type() == type && n.input_size() == 2 && n.output_size() == 1;
  }
  // For a binary node with `known` as one operand, the other operand ("" if not an operand).
  static std::string other(const onnx::NodeProto& n, const std::string& known) {
    if (n.input(0) == known) return n.input(1);
    if (n.input(1) == known) return n.input(0);
    return "";
  }
  // Matches the pattern around Erf node `e`; on success the nodes it covers
  // (*covered) and the final node's index (*last).
  bool match(size_t e, std::string* x, std::set<size_t>* covered, size_t* last) const {
    const onnx::NodeProto& erf = model.nodes[e];
    if (erf.input_size() != 1 || erf.output_size() != 1) return false;
    size_t di = 0;
    const onnx::NodeProto* d = produced_by(erf.input(0), &di);
    if (d == nullptr || outputs.count(erf.input(0)) != 0) return false;
    size_t tmp = 0;
    if (only_consumer(erf.input(0), &tmp) == nullptr) return false;
    if (binary(*d, "Div") && is_scalar(d->input(1), std::sqrt(2.0), 1e-4)) {
      *x = d->input(0);
    } else if (binary(*d, "Mul") && is_scalar(d->input(1), std::sqrt(0.5), 1e-4)) {
      *x = d->input(0);
    } else if (binary(*d, "Mul") && is_scalar(d->input(0), std::sqrt(0.5), 1e-4)) {
      *x = d->input(1);
    } else {
      return false;
    }
    size_t ai = 0;
    const onnx::NodeProto* a = only_consumer(erf.output(0), &ai);
    if (a == nullptr || !binary(*a, "Add") || !is_scalar(other(*a, erf.output(0)), 1.0, 1e-6)) return false;
    size_t m1i = 0;
    const onnx::NodeProto* m1 = only_consumer(a->output(0), &m1i);
    if (m1 == nullptr || !binary(*m1, "Mul")) return false;
    const std::string m1_other = other(*m1, a->output(0));
    covered->insert({di, e, ai, m1i});
    if (m1_other == *x) {  // Mul(Mul(x, a), 0.5)
      size_t m2i = 0;
      const onnx::NodeProto* m2 = only_consumer(m1->output(0), &m2i);
      if (m2 == nullptr || !binary(*m2, "Mul") || !is_scalar(other(*m2, m1->output(0)), 0.5, 1e-6)) return false;
      covered->insert(m2i);
      *last = m2i;
      return true;
    }
    if (is_scalar(m1_other, 0.5, 1e-6)) {  // Mul(x, Mul(a, 0.5))
      size_t m2i = 0;
      const onnx::NodeProto* m2 = only_consumer(m1->output(0), &m2i);
      if (m2 == nullptr || !binary(*m2, "Mul") || other(*m2, m1->output(0)) != *x) return false;
      covered->insert(m2i);
      *last = m2i;
      return true;
    }
    // Mul(Mul(x, 0.5), a)
    size_t hi = 0;
    const onnx::NodeProto* h = produced_by(m1_other, &hi);
    if (h == nullptr || !binary(*h, "Mul") || only_consumer(m1_other, &tmp) == nullptr) return false;
    if (other(*h, *x).empty() || !is_scalar(other(*h, *x), 0.5, 1e-6)) return false;
    covered->insert(hi);
    *last = m1i;
    return true;
  }
};

// The nodes to lower: `model.nodes` with each GELU pattern replaced by one
// Gelu node at its last node's place.
std::vector<onnx::NodeProto> fuse_gelu(const Model& model) {
  GeluMatcher m(model);
  std::set<size_t> removed;
  std::map<size_t, onnx::NodeProto> replaced;
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const onnx::NodeProto& n = model.nodes[i];
    if (n.op_type() != "Erf" || (!n.domain().empty() && n.domain() != "ai.onnx")) continue;
    std::string x;
    std::set<size_t> covered;
    size_t last = 0;
    if (!m.match(i, &x, &covered, &last)) continue;
    bool overlap = false;
    for (size_t c : covered) overlap = overlap || removed.count(c) != 0;
    if (overlap) continue;
    const ValueInfo* xi = model.info(x);
    if (xi == nullptr || xi->elem_type != onnx_type::kFloat) continue;
    onnx::NodeProto g;
    g.set_op_type("Gelu");
    g.set_name(model.nodes[last].name());
    g.add_input(x);
    g.add_output(model.nodes[last].output(0));
    removed.insert(covered.begin(), covered.end());
    replaced[last] = std::move(g);
  }
  std::vector<onnx::NodeProto> out;
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    if (auto it = replaced.find(i); it != replaced.end()) out.push_back(it->second);
    else if (removed.count(i) == 0) out.push_back(model.nodes[i]);
  }
  return out;
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

namespace {

// Axes, shapes and indices ONNX bounds, checked as the model gives them: a
// negative axis out of range must be named as written (-7), not as the
// wrapped unsigned the backend would see (4294967289), and a wrong value
// must not be normalised into a different wrong one (index -100 on an axis
// of 4 is not -96).
std::string axis_problem(const onnx::NodeProto& node, const Model& model) {
  const std::string& t = node.op_type();
  auto rank_of = [&](const std::string& name) -> int64_t {
    const ValueInfo* v = model.info(name);
    return v != nullptr && v->has_shape ? static_cast<int64_t>(v->dims.size()) : -1;
  };
  auto in_range = [](const std::string& what, int64_t a, int64_t lo, int64_t hi) -> std::string {
    if (a >= lo && a <= hi) return "";
    return what + " is " + std::to_string(a) + ", outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  };
  // A constant input (opset 13's axes) or the attribute of that name.
  auto ints_of = [&](int input, const std::string& attr, std::vector<int64_t>* out) {
    const std::string in = input < 0 ? std::string() : input_name(node, input);
    if (!in.empty()) {
      const Tensor* c = model.constant(in);
      if (c == nullptr) return false;
      *out = c->to_ints();
      return true;
    }
    if (!has_attr(node, attr)) return false;
    *out = attr_ints(node, attr);
    return true;
  };
  if (node.input_size() == 0) return "";
  const int64_t r = rank_of(node.input(0));
  if (r < 0) return "";
  static const std::set<std::string> kOneAxis = {"Concat", "Softmax", "LogSoftmax", "Hardmax", "Gather",
                                                 "GatherElements", "ScatterElements", "Split", "ArgMax", "ArgMin",
                                                 "LpNormalization", "CumSum", "Compress"};
  if (kOneAxis.count(t) != 0 && has_attr(node, "axis")) {
    const int64_t axis = attr_int(node, "axis", 0);
    if (std::string why = in_range("attribute 'axis'", axis, -std::max<int64_t>(r, 1), std::max<int64_t>(r, 1) - 1);
        !why.empty()) {
      return why + " for rank " + std::to_string(r);
    }
    if (t == "Gather" && node.input_size() > 1) {
      const ValueInfo* x = model.info(node.input(0));
      const Tensor* idx = model.constant(node.input(1));
      if (idx != nullptr && x->is_static() && r > 0) {
        const int64_t n = x->dims[static_cast<size_t>(axis < 0 ? axis + r : axis)];
        for (int64_t i : idx->to_ints()) {
          if (std::string why = in_range("index", i, -n, n - 1); !why.empty()) {
            return why + " for axis " + std::to_string(axis) + " of size " + std::to_string(n);
          }
        }
      }
    }
  }
  if (t == "Flatten" && has_attr(node, "axis")) {
    if (std::string why = in_range("attribute 'axis'", attr_int(node, "axis", 1), -r, r); !why.empty()) {
      return why + " for rank " + std::to_string(r);
    }
  }
  std::vector<int64_t> axes;
  const bool reduce = t.rfind("Reduce", 0) == 0;
  const bool axes_input = (t == "ReduceSum" && model.opset >= 13) || ((t == "Squeeze" || t == "Unsqueeze") && model.opset >= 13);
  if ((reduce || t == "Squeeze" || t == "Unsqueeze") && ints_of(axes_input ? 1 : -1, "axes", &axes)) {
    // Unsqueeze's axes index the output, of rank r + their count.
    const int64_t out_rank = t == "Unsqueeze" ? r + static_cast<int64_t>(axes.size()) : r;
    std::set<int64_t> seen;
    for (int64_t a : axes) {
      if (std::string why = in_range("axis", a, -out_rank, out_rank - 1); !why.empty()) {
        return why + " for " + (t == "Unsqueeze" ? "output " : "") + "rank " + std::to_string(out_rank);
      }
      if (!seen.insert(a < 0 ? a + out_rank : a).second) return "axis " + std::to_string(a) + " is listed twice";
    }
  }
  if (t == "Reshape" && node.input_size() > 1) {
    if (const Tensor* shape = model.constant(node.input(1)); shape != nullptr) {
      int inferred = 0;
      for (int64_t d : shape->to_ints()) {
        if (d < -1) return "shape value " + std::to_string(d) + " is negative (only -1, once, is allowed)";
        if (d == -1 && ++inferred > 1) return "shape " + dims_to_string(shape->to_ints()) + " has more than one -1";
      }
    }
  }
  return "";
}

}  // namespace

std::string check_node(const onnx::NodeProto& node, const Model& model) {
  if (auto it = model.rewrite_refusals.find(node_base(node)); it != model.rewrite_refusals.end()) return it->second;
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
  if (std::string why = axis_problem(node, model); !why.empty()) return why;
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
  const std::vector<onnx::NodeProto> nodes = fuse_layer_norm(model, fuse_gelu(model));
  for (const auto& n : nodes) {
    ctx.set_current_node(&n);
    try {
      find_lowering(n.op_type())->lower(n, ctx);
    } catch (const LoweringError& e) {
      *error = describe_node(n) + ": " + e.what();
      return false;
    } catch (const TensorTooLarge& e) {
      *error = describe_node(n) + ": a constant it needs cannot be made: " + e.what();
      return false;
    }
    report_progress(progress, "lowering", ++done, nodes.size());
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
