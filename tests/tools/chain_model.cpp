// A 150-node model library for the memory-map tests (QnnModel_* entry
// points, graph "chain150"), built through the QNN API like tiny_model.cpp.
//
//   op 0        t0 = Relu(input[1,32])                      (lives to op 146)
//   29 blocks of 5 ops, widths cycling 128, 256, 64, 800, 32:
//     a = FullyConnected(x, W[n,m], b[n])   [1,n]
//     r = Relu(a)
//     s = ElementWiseAdd(r, shift[1,n])     (a STATIC operand: weights lane)
//     u = Relu(s)
//     x' = ElementWiseAdd(u, r)             (r lives three ops)
//   op 146      v = ElementWiseAdd(x, t0)   (the last block ends at width 32)
//   ops 147-149 Relu, Relu, Relu -> output[1,32]
//
// The graph asks for a VTCM budget of kVtcmBudget (VTCM_SIZE_IN_BYTES), so
// that the plan spills: 800-float tensors (3200 B) are bigger than the
// budget, and the others compete with the long-lived t0.
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "HTP/QnnHtpGraph.h"
#include "QnnOpDef.h"
#include "model_library.h"

#define CHAIN_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr const char* kGraphName = "chain150";
constexpr uint32_t kVtcmBudget = 2048;
constexpr uint32_t kWidths[] = {128, 256, 64, 800, 32};
constexpr int kBlocks = 29;

// Everything a Qnn_Tensor_t points at must outlive graphFinalize: kept here
// (deques never move their elements) for as long as the library is loaded.
std::deque<std::string> g_names;
std::deque<std::vector<uint32_t>> g_dims;
std::deque<std::vector<float>> g_data;

struct Builder {
  QNN_INTERFACE_VER_TYPE api;
  Qnn_GraphHandle_t graph;
  bool ok = true;

  Qnn_Tensor_t tensor(const std::string& name, Qnn_TensorType_t type, std::vector<uint32_t> dims,
                      bool with_data = false) {
    g_names.push_back(name);
    g_dims.push_back(std::move(dims));
    Qnn_Tensor_t t = QNN_TENSOR_INIT;
    t.v1.name = g_names.back().c_str();
    t.v1.type = type;
    t.v1.dataFormat = QNN_TENSOR_DATA_FORMAT_FLAT_BUFFER;
    t.v1.dataType = QNN_DATATYPE_FLOAT_32;
    t.v1.rank = static_cast<uint32_t>(g_dims.back().size());
    t.v1.dimensions = g_dims.back().data();
    t.v1.memType = QNN_TENSORMEMTYPE_RAW;
    if (with_data) {
      size_t n = 1;
      for (uint32_t d : g_dims.back()) n *= d;
      g_data.emplace_back(n);
      for (size_t i = 0; i < n; ++i) g_data.back()[i] = 0.01f * static_cast<float>(static_cast<int>(i % 7) - 3);
      t.v1.clientBuf.data = g_data.back().data();
      t.v1.clientBuf.dataSize = static_cast<uint32_t>(n * sizeof(float));
    }
    if (api.tensorCreateGraphTensor(graph, &t) != QNN_SUCCESS) ok = false;
    return t;
  }

  Qnn_Tensor_t native(const std::string& name, uint32_t width) {
    return tensor(name, QNN_TENSOR_TYPE_NATIVE, {1, width});
  }

  void node(const std::string& name, const char* type, std::vector<Qnn_Tensor_t> inputs, Qnn_Tensor_t output) {
    g_names.push_back(name);
    Qnn_OpConfig_t o = QNN_OPCONFIG_INIT;
    o.v1.name = g_names.back().c_str();
    o.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    o.v1.typeName = type;
    o.v1.numOfInputs = static_cast<uint32_t>(inputs.size());
    o.v1.inputTensors = inputs.data();
    o.v1.numOfOutputs = 1;
    o.v1.outputTensors = &output;
    if (ok && api.graphAddNode(graph, o) != QNN_SUCCESS) ok = false;
  }
};

}  // namespace

CHAIN_EXPORT ModelError_t QnnModel_composeGraphs(Qnn_BackendHandle_t backend, QNN_INTERFACE_VER_TYPE api,
                                                 Qnn_ContextHandle_t context, const GraphConfigInfo_t** /*configs*/,
                                                 const uint32_t /*num_configs*/, GraphInfo_t*** graphs_out,
                                                 uint32_t* num_graphs_out, bool /*debug*/, QnnLog_Callback_t /*log*/,
                                                 QnnLog_Level_t /*log_level*/) {
  if (backend == nullptr || context == nullptr || graphs_out == nullptr || num_graphs_out == nullptr) {
    return MODEL_INVALID_ARGUMENT_ERROR;
  }
  static QnnHtpGraph_CustomConfig_t htp = QNN_HTP_GRAPH_CUSTOM_CONFIG_INIT;
  htp.option = QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES;
  htp.vtcmSizeInBytes = kVtcmBudget;
  static QnnGraph_Config_t config = QNN_GRAPH_CONFIG_INIT;
  config.option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
  config.customConfig = &htp;
  static const QnnGraph_Config_t* configs[] = {&config, nullptr};

  Builder b{api, nullptr};
  if (api.graphCreate(context, kGraphName, configs, &b.graph) != QNN_SUCCESS) return MODEL_GRAPH_ERROR;

  uint32_t width = 32;
  static Qnn_Tensor_t input, output;
  input = b.tensor("input", QNN_TENSOR_TYPE_APP_WRITE, {1, width});
  Qnn_Tensor_t t0 = b.native("t0", width);
  b.node("relu_in", QNN_OP_RELU, {input}, t0);
  Qnn_Tensor_t x = t0;
  for (int k = 0; k < kBlocks; ++k) {
    const std::string p = "b" + std::to_string(k) + "_";
    const uint32_t n = k == kBlocks - 1 ? 32 : kWidths[k % 5];
    Qnn_Tensor_t w = b.tensor(p + "w", QNN_TENSOR_TYPE_STATIC, {n, width}, true);
    Qnn_Tensor_t bias = b.tensor(p + "bias", QNN_TENSOR_TYPE_STATIC, {n}, true);
    Qnn_Tensor_t shift = b.tensor(p + "shift", QNN_TENSOR_TYPE_STATIC, {1, n}, true);
    Qnn_Tensor_t a = b.native(p + "fc", n), r = b.native(p + "relu", n), s = b.native(p + "add", n),
                 u = b.native(p + "relu2", n), next = b.native(p + "out", n);
    b.node(p + "fc", QNN_OP_FULLY_CONNECTED, {x, w, bias}, a);
    b.node(p + "relu", QNN_OP_RELU, {a}, r);
    b.node(p + "add", QNN_OP_ELEMENT_WISE_ADD, {r, shift}, s);
    b.node(p + "relu2", QNN_OP_RELU, {s}, u);
    b.node(p + "skip", QNN_OP_ELEMENT_WISE_ADD, {u, r}, next);
    x = next;
    width = n;
  }
  Qnn_Tensor_t v = b.native("joined", width);
  b.node("join", QNN_OP_ELEMENT_WISE_ADD, {x, t0}, v);
  Qnn_Tensor_t h1 = b.native("tail1", width), h2 = b.native("tail2", width);
  output = b.tensor("output", QNN_TENSOR_TYPE_APP_READ, {1, width});
  b.node("tail1", QNN_OP_RELU, {v}, h1);
  b.node("tail2", QNN_OP_RELU, {h1}, h2);
  b.node("tail3", QNN_OP_RELU, {h2}, output);
  if (!b.ok) return MODEL_NODES_ERROR;

  auto* info = new GraphInfo_t{};
  info->graph = b.graph;
  info->graphName = strdup(kGraphName);
  info->inputTensors = new Qnn_Tensor_t[1]{input};
  info->numInputTensors = 1;
  info->outputTensors = new Qnn_Tensor_t[1]{output};
  info->numOutputTensors = 1;
  *graphs_out = new GraphInfo_t*[1]{info};
  *num_graphs_out = 1;
  return MODEL_NO_ERROR;
}

CHAIN_EXPORT ModelError_t QnnModel_freeGraphsInfo(GraphInfo_t*** graphs, uint32_t num_graphs) {
  if (graphs == nullptr || *graphs == nullptr) return MODEL_INVALID_ARGUMENT_ERROR;
  for (uint32_t i = 0; i < num_graphs; ++i) {
    GraphInfo_t* info = (*graphs)[i];
    if (info == nullptr) continue;
    free(info->graphName);
    delete[] info->inputTensors;
    delete[] info->outputTensors;
    delete info;
  }
  delete[] *graphs;
  *graphs = nullptr;
  return MODEL_NO_ERROR;
}
