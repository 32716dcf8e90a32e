#include "onnx/training_ops.h"

#include "onnx/attributes.h"
#include "onnx/graph_rewrite.h"

namespace openhtp::onnx_import {

namespace {

struct Writer {
  Model* m;
  NameGen& names;
  std::vector<onnx::NodeProto>* out;
  std::string base;
  int32_t type;  // element type of the arithmetic (X's)

  std::string op(const std::string& t, const std::vector<std::string>& in, const std::string& result = "") {
    const std::string o = result.empty() ? names.fresh(base + "_" + t) : result;
    out->push_back(make_node(t, in, {o}, names.fresh(base + "_" + t + "_node")));
    return o;
  }
  std::string k(double v) { return add_scalar(m, names, base + "_k", type, v); }
  std::string cast(const std::string& x) {
    const std::string o = names.fresh(base + "_cast");
    onnx::NodeProto n = make_node("Cast", {x}, {o}, names.fresh(base + "_cast_node"));
    set_attr_int(&n, "to", type);
    out->push_back(n);
    return o;
  }
  // norm * X + G, or G alone when norm is 0.
  std::string regularized(const std::string& x, const std::string& g, float norm) {
    return norm == 0.0f ? g : op("Add", {op("Mul", {k(norm), x}), g});
  }
  // Where(T > 0, a, b), T an integer scalar.
  std::string if_started(const std::string& t, const std::string& a, const std::string& b) {
    return op("Where", {op("Greater", {cast(t), k(0.0)}), a, b});
  }
};

}  // namespace

size_t lower_training_ops(Model* model, std::map<std::string, std::string>* refused) {
  Model& m = *model;
  NameGen names(m);
  std::vector<onnx::NodeProto> out;
  size_t rewritten = 0;
  for (const auto& node : m.nodes) {
    const std::string& t = node.op_type();
    const bool ours = node.domain() == kTrainingDomain && (t == "Adagrad" || t == "Momentum" || t == "Adam");
    if (!ours) {
      out.push_back(node);
      continue;
    }
    const int groups = t == "Adam" ? 4 : 3;  // X, G, then V and/or H
    const int tensors = node.input_size() - 2;
    const int n = tensors > 0 && tensors % groups == 0 ? tensors / groups : 0;
    const int outs = t == "Adam" ? 3 : 2;
    std::string why;
    if (n == 0) {
      why = "inputs must be R, T, then " + std::to_string(groups) + " groups of equally many tensors";
    } else if (node.output_size() > outs * n) {
      why = "has " + std::to_string(node.output_size()) + " outputs for " + std::to_string(n) + " tensors";
    }
    const std::string mode = attr_string(node, "mode", "standard");
    if (t == "Momentum" && mode != "standard" && mode != "nesterov") why = "mode '" + mode + "' is not an ONNX mode";
    const ValueInfo* xi = n > 0 ? m.info(node.input(2)) : nullptr;
    if (why.empty() && (xi == nullptr || xi->elem_type == 0)) why = "the type of X ('" + node.input(2) + "') is unknown";
    if (!why.empty()) {
      (*refused)[node_base(node)] = why;
      out.push_back(node);
      continue;
    }
    Writer w{&m, names, &out, node_base(node), xi->elem_type};
    const std::string r = node.input(0), step = node.input(1);
    auto x_of = [&](int i) { return node.input(2 + i); };
    auto g_of = [&](int i) { return node.input(2 + n + i); };
    auto acc_of = [&](int group, int i) { return node.input(2 + group * n + i); };
    auto out_of = [&](int group, int i) { return output_name(node, group * n + i); };
    auto result = [&](int group, int i) {
      const std::string o = out_of(group, i);
      return o.empty() ? names.fresh(w.base + "_unused") : o;
    };
    if (t == "Adagrad") {
      const float decay = attr_float(node, "decay_factor", 0.0f), eps = attr_float(node, "epsilon", 1e-6f);
      const float norm = attr_float(node, "norm_coefficient", 0.0f);
      const std::string rate =
          decay == 0.0f ? r : w.op("Div", {r, w.op("Add", {w.k(1.0), w.op("Mul", {w.cast(step), w.k(decay)})})});
      for (int i = 0; i < n; ++i) {
        const std::string g = w.regularized(x_of(i), g_of(i), norm);
        const std::string h = w.op("Add", {acc_of(2, i), w.op("Mul", {g, g})}, result(1, i));
        const std::string hs = w.op("Add", {w.op("Sqrt", {h}), w.k(eps)});
        w.op("Sub", {x_of(i), w.op("Div", {w.op("Mul", {rate, g}), hs})}, result(0, i));
      }
    } else if (t == "Momentum") {
      const float alpha = attr_float(node, "alpha", 0.0f), beta = attr_float(node, "beta", 0.0f);
      const float norm = attr_float(node, "norm_coefficient", 0.0f);
      const std::string b = w.if_started(step, w.k(beta), w.k(1.0));
      for (int i = 0; i < n; ++i) {
        const std::string g = w.regularized(x_of(i), g_of(i), norm);
        const std::string v =
            w.op("Add", {w.op("Mul", {w.k(alpha), acc_of(2, i)}), w.op("Mul", {b, g})}, result(1, i));
        const std::string dir = mode == "nesterov" ? w.op("Add", {g, w.op("Mul", {w.k(alpha), v})}) : v;
        w.op("Sub", {x_of(i), w.op("Mul", {r, dir})}, result(0, i));
      }
    } else {  // Adam
      const float alpha = attr_float(node, "alpha", 0.9f), beta = attr_float(node, "beta", 0.999f);
      const float eps = attr_float(node, "epsilon", 1e-6f), norm = attr_float(node, "norm_coefficient", 0.0f);
      const float post = attr_float(node, "norm_coefficient_post", 0.0f);
      const std::string tf = w.cast(step);
      const std::string corrected =
          w.op("Div", {w.op("Mul", {r, w.op("Sqrt", {w.op("Sub", {w.k(1.0), w.op("Pow", {w.k(beta), tf})})})}),
                       w.op("Sub", {w.k(1.0), w.op("Pow", {w.k(alpha), tf})})});
      const std::string rate = w.if_started(step, corrected, r);
      for (int i = 0; i < n; ++i) {
        const std::string g = w.regularized(x_of(i), g_of(i), norm);
        const std::string v = w.op(
            "Add", {w.op("Mul", {w.k(alpha), acc_of(2, i)}), w.op("Mul", {w.k(1.0 - alpha), g})}, result(1, i));
        const std::string h = w.op(
            "Add", {w.op("Mul", {w.k(beta), acc_of(3, i)}), w.op("Mul", {w.k(1.0 - beta), w.op("Mul", {g, g})})},
            result(2, i));
        const std::string hs = w.op("Add", {w.op("Sqrt", {h}), w.k(eps)});
        const std::string step_x = w.op("Mul", {rate, w.op("Div", {v, hs})});
        if (post == 0.0f) {
          w.op("Sub", {x_of(i), step_x}, result(0, i));
        } else {
          w.op("Mul", {w.k(1.0 - post), w.op("Sub", {x_of(i), step_x})}, result(0, i));
        }
      }
    }
    ++rewritten;
  }
  m.nodes = std::move(out);
  return rewritten;
}

}  // namespace openhtp::onnx_import
