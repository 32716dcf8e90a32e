// A minimal model library, as a converter would emit one: it exports
// <prefix>_composeGraphs / <prefix>_freeGraphsInfo and builds
//   input[1,8] -> FullyConnected(weights[4,8], bias[4]) -> Relu -> output[1,4]
// through the QNN function table it is handed. Built several times with
// different compile definitions:
//   TINY_MODEL_PREFIX    symbol prefix (QnnModel by default)
//   TINY_GRAPH_NAME      the graph's name
//   TINY_WEIGHT_SCALE    scale of the weight/bias formula in tiny_model_spec.h
//   TINY_COMPOSE_FAILS   composeGraphs returns MODEL_GRAPH_ERROR after
//                        creating nothing (to test error reporting)
//   TINY_NO_NODES        the graph gets its tensors but no nodes, so the
//                        caller's graphFinalize fails
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "QnnOpDef.h"
#include "model_library.h"
#include "tiny_model_spec.h"

#ifndef TINY_MODEL_PREFIX
#define TINY_MODEL_PREFIX QnnModel
#endif
#ifndef TINY_GRAPH_NAME
#define TINY_GRAPH_NAME "tiny_fc_relu"
#endif
#ifndef TINY_WEIGHT_SCALE
#define TINY_WEIGHT_SCALE 1.0f
#endif

#define TINY_CAT2(a, b) a##b
#define TINY_CAT(a, b) TINY_CAT2(a, b)
#define TINY_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace tiny_model;

// Static tensor data and dimensions must outlive graphFinalize; they live as
// long as the library stays loaded.
uint32_t g_in_dims[] = {1, kIn};
uint32_t g_out_dims[] = {1, kOut};
uint32_t g_weight_dims[] = {kOut, kIn};
uint32_t g_bias_dims[] = {kOut};
float g_weights[kOut * kIn];
float g_bias[kOut];

void log_line(QnnLog_Callback_t cb, QnnLog_Level_t want, QnnLog_Level_t level, const char* fmt, ...) {
  if (cb == nullptr || level > want) return;
  va_list args;
  va_start(args, fmt);
  cb(fmt, level, 0, args);
  va_end(args);
}

Qnn_Tensor_t tensor(const char* name, Qnn_TensorType_t type, uint32_t* dims, uint32_t rank, void* data = nullptr,
                    uint32_t bytes = 0) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.v1.name = name;
  t.v1.type = type;
  t.v1.dataFormat = QNN_TENSOR_DATA_FORMAT_FLAT_BUFFER;
  t.v1.dataType = QNN_DATATYPE_FLOAT_32;
  t.v1.rank = rank;
  t.v1.dimensions = dims;
  t.v1.memType = QNN_TENSORMEMTYPE_RAW;
  t.v1.clientBuf.data = data;
  t.v1.clientBuf.dataSize = bytes;
  return t;
}

[[maybe_unused]] Qnn_OpConfig_t op(const char* name, const char* type, Qnn_Tensor_t* inputs, uint32_t num_inputs,
                  Qnn_Tensor_t* output) {
  Qnn_OpConfig_t o = QNN_OPCONFIG_INIT;
  o.v1.name = name;
  o.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  o.v1.typeName = type;
  o.v1.numOfInputs = num_inputs;
  o.v1.inputTensors = inputs;
  o.v1.numOfOutputs = 1;
  o.v1.outputTensors = output;
  return o;
}

}  // namespace

TINY_EXPORT ModelError_t TINY_CAT(TINY_MODEL_PREFIX, _composeGraphs)(
    Qnn_BackendHandle_t backend, QNN_INTERFACE_VER_TYPE api, Qnn_ContextHandle_t context,
    const GraphConfigInfo_t** graph_configs, const uint32_t num_graph_configs, GraphInfo_t*** graphs_out,
    uint32_t* num_graphs_out, bool /*debug*/, QnnLog_Callback_t log, QnnLog_Level_t log_level) {
  if (backend == nullptr || context == nullptr || graphs_out == nullptr || num_graphs_out == nullptr) {
    return MODEL_INVALID_ARGUMENT_ERROR;
  }
#ifdef TINY_COMPOSE_FAILS
  log_line(log, log_level, QNN_LOG_LEVEL_ERROR, "tiny_model: failing on purpose");
  return MODEL_GRAPH_ERROR;
#endif

  for (uint32_t r = 0; r < kOut; ++r) {
    for (uint32_t c = 0; c < kIn; ++c) g_weights[r * kIn + c] = weight(r, c, TINY_WEIGHT_SCALE);
    g_bias[r] = bias(r, TINY_WEIGHT_SCALE);
  }

  // Graph configs the caller passed for this graph, if any.
  const QnnGraph_Config_t** configs = nullptr;
  for (uint32_t i = 0; graph_configs != nullptr && i < num_graph_configs; ++i) {
    if (graph_configs[i] != nullptr && graph_configs[i]->graphName != nullptr &&
        std::strcmp(graph_configs[i]->graphName, TINY_GRAPH_NAME) == 0) {
      configs = graph_configs[i]->graphConfigs;
    }
  }
  Qnn_GraphHandle_t graph = nullptr;
  if (api.graphCreate(context, TINY_GRAPH_NAME, configs, &graph) != QNN_SUCCESS) return MODEL_GRAPH_ERROR;

  Qnn_Tensor_t input = tensor("input", QNN_TENSOR_TYPE_APP_WRITE, g_in_dims, 2);
  Qnn_Tensor_t weights = tensor("fc_weights", QNN_TENSOR_TYPE_STATIC, g_weight_dims, 2, g_weights, sizeof g_weights);
  Qnn_Tensor_t bias_t = tensor("fc_bias", QNN_TENSOR_TYPE_STATIC, g_bias_dims, 1, g_bias, sizeof g_bias);
  Qnn_Tensor_t fc_out = tensor("fc_out", QNN_TENSOR_TYPE_NATIVE, g_out_dims, 2);
  Qnn_Tensor_t output = tensor("output", QNN_TENSOR_TYPE_APP_READ, g_out_dims, 2);
  for (Qnn_Tensor_t* t : {&input, &weights, &bias_t, &fc_out, &output}) {
    if (api.tensorCreateGraphTensor(graph, t) != QNN_SUCCESS) return MODEL_TENSOR_ERROR;
  }
  Qnn_Tensor_t fc_inputs[] = {input, weights, bias_t};
#ifndef TINY_NO_NODES
  if (api.graphAddNode(graph, op("fc", QNN_OP_FULLY_CONNECTED, fc_inputs, 3, &fc_out)) != QNN_SUCCESS) {
    return MODEL_NODES_ERROR;
  }
  if (api.graphAddNode(graph, op("relu", QNN_OP_RELU, &fc_out, 1, &output)) != QNN_SUCCESS) return MODEL_NODES_ERROR;
#else
  (void)fc_inputs;
#endif

  auto* info = new GraphInfo_t{};
  info->graph = graph;
  info->graphName = strdup(TINY_GRAPH_NAME);
  info->inputTensors = new Qnn_Tensor_t[1]{input};
  info->numInputTensors = 1;
  info->outputTensors = new Qnn_Tensor_t[1]{output};
  info->numOutputTensors = 1;
  *graphs_out = new GraphInfo_t*[1]{info};
  *num_graphs_out = 1;
  log_line(log, log_level, QNN_LOG_LEVEL_INFO, "tiny_model: composed graph %s", TINY_GRAPH_NAME);
  return MODEL_NO_ERROR;
}

TINY_EXPORT ModelError_t TINY_CAT(TINY_MODEL_PREFIX, _freeGraphsInfo)(GraphInfo_t*** graphs, uint32_t num_graphs) {
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
