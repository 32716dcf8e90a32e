#include "onnx/matmul_bias_folding.h"

#include <algorithm>
#include <map>
#include <string>

#include "QnnOpDef.h"

namespace openhtp::onnx_import {
namespace {

// How many node inputs read each tensor.
std::map<std::string, size_t> reader_counts(const QnnGraphDesc& g) {
  std::map<std::string, size_t> n;
  for (const QNode& node : g.nodes) {
    for (const std::string& in : node.inputs) {
      if (!in.empty()) ++n[in];
    }
  }
  return n;
}

bool is_float(const QTensor* t) { return t != nullptr && t->dtype == QNN_DATATYPE_FLOAT_32; }

// c as a bias of t's rows: STATIC float of dims [N] or [1, ..., 1, N].
bool is_row_of(const QTensor* c, const QTensor& t) {
  if (!is_float(c) || c->type != QNN_TENSOR_TYPE_STATIC || c->dims.empty() || t.dims.empty()) return false;
  if (c->dims.back() != t.dims.back() || c->dims.size() > t.dims.size()) return false;
  return std::all_of(c->dims.begin(), c->dims.end() - 1, [](uint32_t d) { return d == 1; });
}

}  // namespace

size_t fold_matmul_biases(QnnGraphDesc* graph) {
  const std::map<std::string, size_t> readers = reader_counts(*graph);
  std::map<std::string, size_t> producer;  // tensor -> node index
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    for (const std::string& out : graph->nodes[i].outputs) producer[out] = i;
  }
  std::vector<bool> removed(graph->nodes.size(), false);
  std::vector<std::string> dropped;  // the products no node reads any more
  std::vector<std::string> copied;   // Add operands replaced by an [N] copy
  size_t folded = 0;
  for (size_t a = 0; a < graph->nodes.size(); ++a) {
    QNode& add = graph->nodes[a];
    if (add.type != QNN_OP_ELEMENT_WISE_ADD || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
    for (size_t k = 0; k < 2; ++k) {
      const std::string& t_name = add.inputs[k];
      auto p = producer.find(t_name);
      if (p == producer.end() || removed[p->second]) continue;
      QNode& mm = graph->nodes[p->second];
      const QTensor* t = graph->find(t_name);
      const QTensor* c = graph->find(add.inputs[1 - k]);
      const QTensor* y = graph->find(add.outputs[0]);
      const bool fits = mm.type == QNN_OP_MAT_MUL && mm.inputs.size() == 2 && mm.outputs.size() == 1 &&
                        is_float(t) && t->type == QNN_TENSOR_TYPE_NATIVE && readers.at(t_name) == 1 &&
                        is_float(graph->find(mm.inputs[0])) && is_float(graph->find(mm.inputs[1])) &&
                        is_float(y) && y->dims == t->dims && is_row_of(c, *t);
      if (!fits) continue;
      // The bias as [N]: c itself when it has that shape and nothing else
      // reads it, else a copy.
      std::string bias = add.inputs[1 - k];
      if (c->dims.size() != 1 || readers.at(bias) != 1) {
        copied.push_back(bias);
        QTensor b = *c;
        b.name = add.outputs[0] + "_bias";
        for (int n = 2; graph->find(b.name) != nullptr; ++n) b.name = add.outputs[0] + "_bias" + std::to_string(n);
        b.dims = {c->dims.back()};
        b.source_constant.clear();
        b.source_perm.clear();
        bias = graph->add(std::move(b)).name;
      }
      mm.inputs.push_back(bias);
      mm.outputs[0] = add.outputs[0];
      removed[a] = true;
      dropped.push_back(t_name);
      ++folded;
      break;
    }
  }
  if (folded == 0) return 0;
  std::vector<QNode> kept;
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(graph->nodes[i]));
  }
  graph->nodes = std::move(kept);
  // Drop the products, and the copied operands no node reads any more.
  const std::map<std::string, size_t> now = reader_counts(*graph);
  std::vector<QTensor> tensors;
  for (QTensor& t : graph->tensors) {
    const bool product = std::find(dropped.begin(), dropped.end(), t.name) != dropped.end();
    const bool orphan =
        std::find(copied.begin(), copied.end(), t.name) != copied.end() && now.count(t.name) == 0;
    if (!product && !orphan) tensors.push_back(std::move(t));
  }
  graph->tensors = std::move(tensors);
  graph->index.clear();
  for (size_t i = 0; i < graph->tensors.size(); ++i) graph->index[graph->tensors[i].name] = i;
  return folded;
}

}  // namespace openhtp::onnx_import
