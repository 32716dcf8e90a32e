#include "onnx/empty_values.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace openhtp::onnx_import {

bool is_empty_value(const ValueInfo& v) {
  return v.is_static() && std::find(v.dims.begin(), v.dims.end(), 0) != v.dims.end();
}

namespace {

bool is_empty(const Model& m, const std::string& name) {
  const ValueInfo* v = m.info(name);
  return v != nullptr && is_empty_value(*v);
}

// Drops a Concat's empty inputs while a non-empty one remains (the output
// is then the same). Returns the number of nodes changed.
size_t drop_empty_concat_inputs(Model* m) {
  size_t changed = 0;
  for (auto& n : m->nodes) {
    if (n.op_type() != "Concat" || !n.domain().empty()) continue;
    std::vector<std::string> kept;
    for (const auto& in : n.input()) {
      if (!is_empty(*m, in)) kept.push_back(in);
    }
    if (kept.empty() || static_cast<int>(kept.size()) == n.input_size()) continue;
    n.clear_input();
    for (const auto& in : kept) n.add_input(in);
    ++changed;
  }
  return changed;
}

// Removes nodes whose outputs nothing reads; returns how many.
size_t remove_dead_nodes(Model* m) {
  std::set<std::string> live(m->outputs.begin(), m->outputs.end());
  std::vector<bool> keep(m->nodes.size(), false);
  for (size_t i = m->nodes.size(); i-- > 0;) {
    const auto& n = m->nodes[i];
    for (const auto& o : n.output()) keep[i] = keep[i] || (!o.empty() && live.count(o) != 0);
    if (!keep[i]) continue;
    for (const auto& in : n.input()) {
      if (!in.empty()) live.insert(in);
    }
  }
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < m->nodes.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(m->nodes[i]));
  }
  const size_t removed = m->nodes.size() - kept.size();
  m->nodes = std::move(kept);
  return removed;
}

}  // namespace

size_t set_aside_empty_values(Model* model) {
  std::vector<std::string> outputs;
  for (const std::string& o : model->outputs) {
    if (is_empty(*model, o)) {
      model->empty_outputs.push_back(o);
    } else {
      outputs.push_back(o);
    }
  }
  const bool any_empty_output = outputs.size() != model->outputs.size();
  model->outputs = std::move(outputs);
  size_t changed = drop_empty_concat_inputs(model);
  // Only a model that lost an output or a Concat input can have new dead
  // nodes; other models keep every node as the client wrote it.
  if (any_empty_output || changed != 0) changed += remove_dead_nodes(model);
  return changed;
}

}  // namespace openhtp::onnx_import
