#include "onnx/layer_norm_fusion.h"

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "onnx/attributes.h"

namespace openhtp::onnx_import {
namespace {

class Matcher {
 public:
  Matcher(const Model& model, const std::vector<onnx::NodeProto>& nodes)
      : model_(model), nodes_(nodes), outputs_(model.outputs.begin(), model.outputs.end()) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (const auto& in : nodes[i].input()) {
        std::vector<size_t>& c = consumers_[in];
        if (c.empty() || c.back() != i) c.push_back(i);  // Mul(d, d) consumes d once
      }
    }
  }

  // Matches the pattern starting at ReduceMean node `r`: the fused node and
  // the indices of the nodes it replaces (the last one is where it goes).
  bool match(size_t r, onnx::NodeProto* fused, std::set<size_t>* covered, size_t* last) const {
    const onnx::NodeProto& mean = nodes_[r];
    if (!is_last_axis_mean(mean)) return false;
    const std::string x = mean.input(0);
    const ValueInfo* xi = model_.info(x);
    if (xi == nullptr || xi->elem_type != onnx_type::kFloat || xi->dims.empty()) return false;
    const int64_t channels = xi->dims.back();
    size_t sub_i = 0;
    const onnx::NodeProto* sub = only_consumer(mean.output(0), &sub_i);
    if (sub == nullptr || !binary(*sub, "Sub") || sub->input(0) != x || sub->input(1) != mean.output(0)) return false;
    const std::string d = sub->output(0);
    // d feeds the square and the Div, nothing else.
    auto it = consumers_.find(d);
    if (outputs_.count(d) != 0 || it == consumers_.end() || it->second.size() != 2) return false;
    size_t sq_i = SIZE_MAX, div_i = SIZE_MAX;
    for (size_t c : it->second) {
      const onnx::NodeProto& n = nodes_[c];
      if ((binary(n, "Pow") && n.input(0) == d && is_scalar(n.input(1), 2.0)) ||
          (binary(n, "Mul") && n.input(0) == d && n.input(1) == d)) {
        sq_i = c;
      } else if (binary(n, "Div") && n.input(0) == d) {
        div_i = c;
      }
    }
    if (sq_i == SIZE_MAX || div_i == SIZE_MAX) return false;
    size_t var_i = 0, add_i = 0, sqrt_i = 0;
    const onnx::NodeProto* var = only_consumer(nodes_[sq_i].output(0), &var_i);
    if (var == nullptr || !is_last_axis_mean(*var)) return false;
    const onnx::NodeProto* add = only_consumer(var->output(0), &add_i);
    if (add == nullptr || !binary(*add, "Add")) return false;
    const std::string eps_name = other(*add, var->output(0));
    const Tensor* eps = model_.constant(eps_name);
    if (eps == nullptr || eps->count() != 1) return false;
    const onnx::NodeProto* sq = only_consumer(add->output(0), &sqrt_i);
    if (sq == nullptr || sq->op_type() != "Sqrt" || sq->output_size() != 1) return false;
    size_t tmp = 0;
    if (only_consumer(sq->output(0), &tmp) == nullptr || tmp != div_i || nodes_[div_i].input(1) != sq->output(0)) {
      return false;
    }
    size_t mul_i = 0;
    const onnx::NodeProto* mul = only_consumer(nodes_[div_i].output(0), &mul_i);
    if (mul == nullptr || !binary(*mul, "Mul")) return false;
    const std::string gamma = other(*mul, nodes_[div_i].output(0));
    if (!is_vector_of(gamma, channels)) return false;
    covered->insert({r, sub_i, sq_i, var_i, add_i, sqrt_i, div_i, mul_i});
    *last = mul_i;
    std::string beta, out = mul->output(0);
    size_t bias_i = 0;
    if (const onnx::NodeProto* bias = only_consumer(out, &bias_i); bias != nullptr && binary(*bias, "Add")) {
      const std::string b = other(*bias, out);
      if (is_vector_of(b, channels)) {
        beta = b;
        out = bias->output(0);
        covered->insert(bias_i);
        *last = bias_i;
      }
    }
    fused->set_op_type("LayerNormalization");
    fused->set_name(nodes_[*last].name());
    fused->add_input(x);
    fused->add_input(gamma);
    if (!beta.empty()) fused->add_input(beta);
    fused->add_output(out);
    onnx::AttributeProto* axis = fused->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(-1);
    onnx::AttributeProto* epsilon = fused->add_attribute();
    epsilon->set_name("epsilon");
    epsilon->set_type(onnx::AttributeProto::FLOAT);
    epsilon->set_f(static_cast<float>(eps->get(0)));
    return true;
  }

 private:
  static bool binary(const onnx::NodeProto& n, const char* type) {
    return n.op_type() == type && n.input_size() == 2 && n.output_size() == 1 &&
           (n.domain().empty() || n.domain() == "ai.onnx");
  }
  static std::string other(const onnx::NodeProto& n, const std::string& known) {
    if (n.input(0) == known) return n.input(1);
    if (n.input(1) == known) return n.input(0);
    return "";
  }
  bool is_scalar(const std::string& name, double v) const {
    const Tensor* c = model_.constant(name);
    return c != nullptr && c->count() == 1 && std::fabs(c->get(0) - v) <= 1e-6;
  }
  bool is_vector_of(const std::string& name, int64_t n) const {
    const Tensor* c = model_.constant(name);
    return c != nullptr && c->dims.size() == 1 && c->dims[0] == n;
  }
  // ReduceMean over the last axis only, keeping it (axes as the attribute
  // before opset 18, as a constant input from 18 on).
  bool is_last_axis_mean(const onnx::NodeProto& n) const {
    if (n.op_type() != "ReduceMean" || n.output_size() != 1 || n.input_size() < 1) return false;
    if (!n.domain().empty() && n.domain() != "ai.onnx") return false;
    if (attr_int(n, "keepdims", 1) != 1) return false;
    const ValueInfo* xi = model_.info(n.input(0));
    if (xi == nullptr || xi->dims.empty()) return false;
    const auto rank = static_cast<int64_t>(xi->dims.size());
    std::vector<int64_t> axes = attr_ints(n, "axes", {});
    if (n.input_size() > 1 && !n.input(1).empty()) {
      const Tensor* a = model_.constant(n.input(1));
      if (a == nullptr) return false;
      axes = a->to_ints();
    }
    return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
  }
  const onnx::NodeProto* only_consumer(const std::string& value, size_t* index) const {
    if (outputs_.count(value) != 0) return nullptr;
    auto it = consumers_.find(value);
    if (it == consumers_.end() || it->second.size() != 1) return nullptr;
    *index = it->second[0];
    return &nodes_[*index];
  }

  const Model& model_;
  const std::vector<onnx::NodeProto>& nodes_;
  std::set<std::string> outputs_;
  std::map<std::string, std::vector<size_t>> consumers_;
};

}  // namespace

std::vector<onnx::NodeProto> fuse_layer_norm(const Model& model, std::vector<onnx::NodeProto> nodes) {
  const Matcher m(model, nodes);
  std::set<size_t> removed;
  std::map<size_t, onnx::NodeProto> replaced;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (removed.count(i) != 0) continue;
    onnx::NodeProto fused;
    std::set<size_t> covered;
    size_t last = 0;
    if (!m.match(i, &fused, &covered, &last)) continue;
    bool overlap = false;
    for (size_t c : covered) overlap = overlap || removed.count(c) != 0;
    if (overlap) continue;
    removed.insert(covered.begin(), covered.end());
    replaced[last] = std::move(fused);
  }
  if (replaced.empty()) return nodes;
  std::vector<onnx::NodeProto> out;
  out.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (auto it = replaced.find(i); it != replaced.end()) out.push_back(std::move(it->second));
    else if (removed.count(i) == 0) out.push_back(std::move(nodes[i]));
  }
  return out;
}

}  // namespace openhtp::onnx_import
