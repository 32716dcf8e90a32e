#include "onnx/calibration.h"

#include <algorithm>
#include <cstring>

#include "onnx/graph_submit.h"

namespace openhtp::onnx_import {

bool calibrate(const QNN_INTERFACE_VER_TYPE& api, Qnn_BackendHandle_t backend, const QnnGraphDesc& float_graph,
               const std::vector<std::vector<std::vector<uint8_t>>>& samples,
               std::map<std::string, TensorRange>* ranges, std::string* error, const ProgressFn& progress) {
  QnnGraphDesc g = float_graph;
  g.name = float_graph.name + "_calibration";
  for (QTensor& t : g.tensors) {
    if (t.type == QNN_TENSOR_TYPE_NATIVE && t.dtype == QNN_DATATYPE_FLOAT_32) {
      t.type = QNN_TENSOR_TYPE_APP_READ;
      g.outputs.push_back(t.name);
    }
  }
  Qnn_ContextHandle_t context = nullptr;
  if (Qnn_ErrorHandle_t e = api.contextCreate(backend, nullptr, nullptr, &context); e != QNN_SUCCESS) {
    *error = "calibration contextCreate: " + describe_qnn_error(api, e);
    return false;
  }
  bool ok = true;
  SubmittedGraph sg;
  if (!submit_graph(api, context, g, &sg, error)) {
    *error = "calibration graph: " + *error;
    ok = false;
  }
  std::vector<std::string> names = g.inputs;
  names.insert(names.end(), g.outputs.begin(), g.outputs.end());
  for (size_t k = 0; ok && k < samples.size(); ++k) {
    std::vector<std::vector<uint8_t>> outputs;
    if (!execute_graph(api, sg, samples[k], &outputs, error)) {
      *error = "calibration inference " + std::to_string(k + 1) + ": " + *error;
      ok = false;
      break;
    }
    std::vector<const std::vector<uint8_t>*> all;
    for (const auto& b : samples[k]) all.push_back(&b);
    for (const auto& b : outputs) all.push_back(&b);
    for (size_t i = 0; i < names.size(); ++i) {
      const QTensor* t = g.find(names[i]);
      if (t == nullptr || t->dtype != QNN_DATATYPE_FLOAT_32) continue;
      const size_t n = all[i]->size() / 4;
      if (n == 0) continue;
      std::vector<float> v(n);
      std::memcpy(v.data(), all[i]->data(), n * 4);
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      auto it = ranges->find(names[i]);
      if (it == ranges->end()) {
        (*ranges)[names[i]] = TensorRange{*lo, *hi};
      } else {
        it->second.min = std::min(it->second.min, *lo);
        it->second.max = std::max(it->second.max, *hi);
      }
    }
    report_progress(progress, "calibrating", k + 1, samples.size());
  }
  api.contextFree(context, nullptr);
  return ok;
}

}  // namespace openhtp::onnx_import
