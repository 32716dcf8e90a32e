// The ONNX importer's entry point.
//
//   prepare_model   ModelProto -> Model: shape inference, constant folding,
//                   (quantized: QDQ folding), BatchNormalization folding.
//   find_unsupported  every node the lowering cannot handle, by name and op
//                   type, answered without any backend.
//   build_graph_desc  Model -> QnnGraphDesc (float, NHWC, QNN op names).
//   import_model    the above + (quantized: calibrate, quantize) + QNN API
//                   calls on the caller's function table and context.
//
// Graph inputs and outputs keep their ONNX names and ONNX (NCHW) layout,
// except inputs named in channel_last_inputs. INT64 ONNX tensors become
// INT_32 QNN tensors: QNN HTP has no 64-bit integer tensors, and indices,
// shapes and axes fit in 32 bits; clients pass and read int32 data.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "onnx/calibration.h"
#include "onnx/graph_submit.h"
#include "onnx/model.h"
#include "onnx/progress.h"
#include "onnx/qnn_graph.h"
#include "onnx/quantization.h"

namespace openhtp::onnx_import {

struct ImportOptions {
  std::map<std::string, std::vector<int64_t>> input_dims;  // -d NAME DIMS
  std::set<std::string> channel_last_inputs;               // --input_layout NAME NHWC
  bool fold_batchnorm = true;                              // off: --disable_batchnorm_folding
  // Quantized conversion: on when calibration samples are given.
  bool quantize = false;
  QuantOptions quant;
  // --act_quantizer_calibration / --percentile_calibration_value (the
  // bitwidth an MSE range is chosen for is quant.act_bitwidth).
  CalibrationOptions calibration_options;
  // samples[k][i]: float32 bytes of graph input i for inference k.
  std::vector<std::vector<std::vector<uint8_t>>> calibration;
  bool keep_quant_nodes = false;  // quantized: keep QuantizeLinear/DequantizeLinear as ops
  // Quantized: graph inputs/outputs stay FLOAT_32 (--preserve_io datatype;
  // preserve_io.h): all of them when `preserve_io_names` is empty.
  bool preserve_io = false;
  std::set<std::string> preserve_io_names;
  uint32_t num_hvx_threads = 0;   // stored as the graph's NUM_HVX_THREADS config; 0 = not set
  ProgressFn progress;
};

struct UnsupportedNode {
  std::string name;  // node name (or its first output when unnamed)
  std::string op_type;
  std::string reason;
};

struct PreparedModel {
  Model model;
  std::map<std::string, Encoding> encoding_overrides;  // from QDQ pairs
  std::map<std::string, QdqWeight> qdq_weights;         // DequantizeLinear of int8/uint8 constants
  size_t folded_constants = 0;
  size_t folded_batchnorms = 0;
  size_t folded_qdq_pairs = 0;
};

bool prepare_model(const onnx::ModelProto& proto, const ImportOptions& options, PreparedModel* out,
                   std::string* error);

std::vector<UnsupportedNode> find_unsupported(const Model& model);
// "2 unsupported node(s): Foo 'n1' (op type Foo): op type Foo is not supported; ..."
std::string describe_unsupported(const std::vector<UnsupportedNode>& nodes);

bool build_graph_desc(const PreparedModel& prepared, const ImportOptions& options, QnnGraphDesc* out,
                      std::string* error);

// Full import into `context` (finalized). `desc_out` (optional) receives the
// graph as submitted (quantized types and encodings included).
bool import_model(const PreparedModel& prepared, const ImportOptions& options, const QNN_INTERFACE_VER_TYPE& api,
                  Qnn_BackendHandle_t backend, Qnn_ContextHandle_t context, SubmittedGraph* out,
                  QnnGraphDesc* desc_out, std::string* error);

}  // namespace openhtp::onnx_import
