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
    if (uses[q.output(0)] == 1) drop.insert(p->second);
  }
  if (drop.empty()) return 0;
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    if (drop.count(i) != 0) continue;
    onnx::NodeProto n = m.nodes[i];
    for (int k = 0; k < n.input_size(); ++k) {
      if (auto it = rename.find(n.input(k)); it != rename.end()) n.set_input(k, it->second);
    }
    kept.push_back(std::move(n));
  }
  m.nodes = std::move(kept);
  // A graph output that was a DQ output now is the Q input.
  for (auto& o : m.outputs) {
    if (auto it = rename.find(o); it != rename.end()) {
      m.values[it->second] = m.values[o];
      o = it->second;
    }
  }
  return rename.size();
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
