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

}  // namespace openhtp::onnx_import
