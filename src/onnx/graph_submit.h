// QnnGraphDesc -> QNN API calls: graphCreate, tensorCreateGraphTensor for
// every tensor (params included, as QNN's generated model code does),
// graphAddNode per node, graphFinalize; and executing the result with client
// buffers.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "onnx/progress.h"
#include "onnx/qnn_graph.h"

namespace openhtp::onnx_import {

// A created graph and its I/O tensors (ids assigned by the backend), in the
// order of QnnGraphDesc::inputs / outputs. Owns the names and dims the
// Qnn_Tensor_t structs point at.
struct SubmittedGraph {
  Qnn_GraphHandle_t graph = nullptr;
  std::vector<Qnn_Tensor_t> inputs;
  std::vector<Qnn_Tensor_t> outputs;
  std::deque<std::string> names;
  std::deque<std::vector<uint32_t>> dims;
  std::deque<std::vector<Qnn_ScaleOffset_t>> scale_offsets;
};

std::string describe_qnn_error(const QNN_INTERFACE_VER_TYPE& api, Qnn_ErrorHandle_t e);

// Creates, fills and finalizes the graph in `context`. On failure *error
// names the QNN call, the tensor or node (and its ONNX node) and the error.
bool submit_graph(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context, const QnnGraphDesc& desc,
                  SubmittedGraph* out, std::string* error, const ProgressFn& progress = {});

// Runs the graph once. inputs[i] holds the bytes of graph input i (exactly
// its size); outputs are resized to each output's size and filled.
bool execute_graph(const QNN_INTERFACE_VER_TYPE& api, SubmittedGraph& graph,
                   const std::vector<std::vector<uint8_t>>& inputs, std::vector<std::vector<uint8_t>>* outputs,
                   std::string* error);

// Bytes of one tensor of `dtype` and `dims`.
size_t tensor_bytes(Qnn_DataType_t dtype, const std::vector<uint32_t>& dims);

}  // namespace openhtp::onnx_import
