#include "onnx/qdq_folding.h"

#include <algorithm>
#include <set>

#include "onnx/attributes.h"

namespace openhtp::onnx_import {

namespace {

// Constant per-tensor (scale, zero point) of a Q or DQ node.
bool per_tensor_params(const Model& m, const onnx::NodeProto& n, double* scale, int64_t* zp, int32_t* type) {
  const Tensor* s = m.constant(input_name(n, 1));
  if (s == nullptr || s->count() != 1) return false;
  *scale = s->get(0);
  *zp = 0;
  *type = onnx_type::kUint8;
  if (const std::string z = input_name(n, 2); !z.empty()) {
    const Tensor* zt = m.constant(z);
    if (zt == nullptr || zt->count() != 1) return false;
    *zp = zt->get_int(0);
    *type = zt->elem_type;
  }
  return true;
}

}  // namespace

size_t fold_qdq_pairs(Model* model, std::map<std::string, Encoding>* overrides) {
  Model& m = *model;
  std::map<std::string, size_t> producer;
  std::map<std::string, size_t> uses;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    for (const auto& o : m.nodes[i].output()) producer[o] = i;
    for (const auto& in : m.nodes[i].input()) ++uses[in];
  }
  std::set<size_t> drop;
  std::map<std::string, std::string> rename;
  size_t pairs = 0;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const onnx::NodeProto& dq = m.nodes[i];
    if (dq.op_type() != "DequantizeLinear") continue;
    auto p = producer.find(dq.input(0));
    if (p == producer.end()) continue;
    const onnx::NodeProto& q = m.nodes[p->second];
    if (q.op_type() != "QuantizeLinear") continue;
    double s1, s2;
    int64_t z1, z2;
    int32_t t1, t2;
    if (!per_tensor_params(m, q, &s1, &z1, &t1) || !per_tensor_params(m, dq, &s2, &z2, &t2)) continue;
    if (s1 != s2 || z1 != z2) continue;
    if (std::count(m.outputs.begin(), m.outputs.end(), q.output(0)) != 0) continue;
    const std::string x = q.input(0);
    Encoding e;
    e.kind = Encoding::Kind::kPerTensor;
    e.scale = static_cast<float>(s1);
    // Signed 8-bit encodings are expressed on QNN's unsigned 8-bit activation
    // type by shifting the zero point by 128 (same real values).
    e.offset = static_cast<int32_t>(t1 == onnx_type::kInt8 ? -(z1 + 128) : -z1);
    (*overrides)[x] = e;
    rename[dq.output(0)] = x;
    drop.insert(i);
    ++pairs;
    // The QuantizeLinear goes once every reader of its output is a folded DQ.
    if (--uses[q.output(0)] == 0) drop.insert(p->second);
  }
  if (drop.empty()) return 0;
  // A graph output that was a folded DQ's output keeps its ONNX name: the
  // value it now is (the QuantizeLinear input x) is renamed to the output's
  // name when x is an ordinary intermediate (made by one node, not a graph
  // input, output or constant, not taken by another output); otherwise an
  // Identity x -> output stands in for the pair (the lowering copies it out
  // under the ONNX name).
  std::map<std::string, std::string> retarget;  // x -> graph output name
  std::vector<onnx::NodeProto> identities;
  std::set<std::string> taken;
  for (const std::string& o : m.outputs) {
    auto it = rename.find(o);
    if (it == rename.end()) continue;
    const std::string& x = it->second;
    const bool plain = producer.count(x) != 0 && drop.count(producer[x]) == 0 && !m.is_constant(x) &&
                       std::count(m.inputs.begin(), m.inputs.end(), x) == 0 &&
                       std::count(m.outputs.begin(), m.outputs.end(), x) == 0 && taken.count(x) == 0;
    taken.insert(x);
    if (plain) {
      retarget[x] = o;
      rename.erase(it);  // readers of the output read it under its own name
    } else {
      // Readers of the output keep reading x (the Identity comes last).
      onnx::NodeProto id;
      id.set_op_type("Identity");
      id.set_name(o + "_qdq_folded");
      id.add_input(x);
      id.add_output(o);
      identities.push_back(std::move(id));
    }
  }
  auto resolve = [&](const std::string& n) {
    std::string r = n;
    // Back-to-back pairs (Q -> DQ -> Q -> DQ) rename through several steps.
    for (size_t step = 0; step <= rename.size(); ++step) {
      auto it = rename.find(r);
      if (it == rename.end()) break;
      r = it->second;
    }
    if (auto it = retarget.find(r); it != retarget.end()) r = it->second;
    return r;
  };
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    if (drop.count(i) != 0) continue;
    onnx::NodeProto n = m.nodes[i];
    for (int k = 0; k < n.input_size(); ++k) {
      if (!n.input(k).empty()) n.set_input(k, resolve(n.input(k)));
    }
    for (int k = 0; k < n.output_size(); ++k) {
      if (auto it = retarget.find(n.output(k)); it != retarget.end()) n.set_output(k, it->second);
    }
    kept.push_back(std::move(n));
  }
  for (auto& id : identities) {
    id.set_input(0, resolve(id.input(0)));
    kept.push_back(std::move(id));
  }
  m.nodes = std::move(kept);
  for (const auto& [x, o] : retarget) {
    if (auto v = m.values.find(x); v != m.values.end()) {
      m.values[o] = v->second;
      m.values.erase(x);
    }
    if (auto e = overrides->find(x); e != overrides->end()) {
      (*overrides)[o] = e->second;
      overrides->erase(e);
    }
  }
  return pairs;
}

size_t drop_pass_through(Model* model) {
  Model& m = *model;
  std::map<std::string, std::string> rename;
  std::vector<onnx::NodeProto> kept;
  auto resolve = [&](std::string n) {
    for (auto it = rename.find(n); it != rename.end(); it = rename.find(n)) n = it->second;
    return n;
  };
  size_t dropped = 0;
  for (const onnx::NodeProto& n : m.nodes) {
    bool pass = false;
    if ((n.domain().empty() || n.domain() == "ai.onnx") && n.input_size() >= 1 && n.output_size() == 1 &&
        !n.input(0).empty() && std::count(m.outputs.begin(), m.outputs.end(), n.output(0)) == 0) {
      if (n.op_type() == "Identity") {
        pass = true;
      } else if (n.op_type() == "Cast" && n.input_size() == 1) {
        const ValueInfo* v = m.info(n.input(0));
        pass = v != nullptr && v->elem_type != 0 && attr_int(n, "to", 0) == v->elem_type;
      }
    }
    if (pass) {
      rename[n.output(0)] = resolve(n.input(0));
      ++dropped;
      continue;
    }
    onnx::NodeProto k = n;
    for (int i = 0; i < k.input_size(); ++i) {
      if (!k.input(i).empty()) k.set_input(i, resolve(k.input(i)));
    }
    kept.push_back(std::move(k));
  }
  if (dropped != 0) m.nodes = std::move(kept);
  return dropped;
}

std::string qdq_leftover_reason(const onnx::NodeProto& node, const Model& m) {
  const bool is_q = node.op_type() == "QuantizeLinear";
  if (!is_q && node.op_type() != "DequantizeLinear") return "";
  const std::string pair_rule =
      "; the quantized conversion takes QuantizeLinear/DequantizeLinear only as a QuantizeLinear -> "
      "DequantizeLinear pair with the same constant per-tensor scale and zero point (folded into the tensor's "
      "encoding) or as DequantizeLinear of constant weights";
  double s = 0.0;
  int64_t z = 0;
  int32_t t = 0;
  if (!per_tensor_params(m, node, &s, &z, &t)) {
    return std::string(is_q ? "QuantizeLinear" : "DequantizeLinear") +
           " with a scale or zero point that is not one constant value (per-axis or computed at run time) is "
           "left after QDQ folding" + pair_rule;
  }
  if (is_q) {
    const std::string& y = node.output(0);
    if (std::count(m.outputs.begin(), m.outputs.end(), y) != 0) {
      return "its output '" + y + "' is a graph output (quantized integers, not a QDQ pair)" + pair_rule;
    }
    for (const onnx::NodeProto& r : m.nodes) {
      if (std::count(r.input().begin(), r.input().end(), y) == 0) continue;
      if (r.op_type() != "DequantizeLinear") {
        return "its output '" + y + "' is read by " + r.op_type() + " '" + r.name() +
               "', not by a DequantizeLinear" + pair_rule;
      }
      double s2 = 0.0;
      int64_t z2 = 0;
      int32_t t2 = 0;
      if (!per_tensor_params(m, r, &s2, &z2, &t2) || s2 != s || z2 != z) {
        return "the DequantizeLinear '" + r.name() + "' reading it has another scale or zero point" + pair_rule;
      }
    }
    return "left after QDQ folding" + pair_rule;
  }
  return "its input '" + node.input(0) + "' is not the output of a QuantizeLinear with the same scale and zero "
         "point" + pair_rule;
}

size_t collect_qdq_weights(const Model& m, std::map<std::string, QdqWeight>* weights) {
  size_t n = 0;
  for (const onnx::NodeProto& dq : m.nodes) {
    if (dq.op_type() != "DequantizeLinear" || dq.input_size() < 2) continue;
    const Tensor* x = m.constant(dq.input(0));
    const Tensor* s = m.constant(dq.input(1));
    const std::string zn = input_name(dq, 2);
    const Tensor* z = zn.empty() ? nullptr : m.constant(zn);
    if (x == nullptr || s == nullptr || (!zn.empty() && z == nullptr)) continue;
    if (x->elem_type != onnx_type::kInt8 && x->elem_type != onnx_type::kUint8) continue;
    if (s->elem_type != onnx_type::kFloat || attr_int(dq, "block_size", 0) != 0) continue;
    if (z != nullptr && (z->elem_type != x->elem_type || z->count() != s->count())) continue;
    QdqWeight w;
    w.is_signed = x->elem_type == onnx_type::kInt8;
    w.dims = x->dims;
    if (s->count() != 1) {
      const int64_t r = static_cast<int64_t>(x->dims.size());
      int64_t axis = attr_int(dq, "axis", 1);
      if (axis < 0) axis += r;
      if (axis < 0 || axis >= r || x->dims[axis] != static_cast<int64_t>(s->count())) continue;
      w.axis = axis;
    }
    for (size_t i = 0; i < x->count(); ++i) w.values.push_back(static_cast<int32_t>(x->get_int(i)));
    for (size_t i = 0; i < s->count(); ++i) {
      w.scales.push_back(static_cast<float>(s->get(i)));
      w.zero_points.push_back(z != nullptr ? static_cast<int32_t>(z->get_int(i)) : 0);
    }
    (*weights)[dq.output(0)] = std::move(w);
    ++n;
  }
  return n;
}

}  // namespace openhtp::onnx_import
