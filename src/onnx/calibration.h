// Calibration: the float graph is built once more with every FLOAT_32
// activation exposed as a graph output (APP_READ), run on each calibration
// input in a context of its own, and the min/max of every tensor recorded.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "onnx/progress.h"
#include "onnx/qnn_graph.h"
#include "onnx/quantization.h"

namespace openhtp::onnx_import {

// `samples[k][i]`: bytes of graph input i for inference k (float32, the
// graph input's QNN dims).
bool calibrate(const QNN_INTERFACE_VER_TYPE& api, Qnn_BackendHandle_t backend, const QnnGraphDesc& float_graph,
               const std::vector<std::vector<std::vector<uint8_t>>>& samples,
               std::map<std::string, TensorRange>* ranges, std::string* error, const ProgressFn& progress = {});

}  // namespace openhtp::onnx_import
