// ONNX op -> QNN op(s): a table with one entry per ONNX op type. Each entry
// has a check (can this node be lowered? answered from the model alone, no
// backend needed) and a lower function writing QNN tensors and nodes through
// the LoweringContext. The functions live in one file per op family:
//   lower_conv_pool.cpp    Conv, ConvTranspose, pools, ConvInteger, QLinearConv
//   lower_norm.cpp         BatchNormalization, InstanceNormalization
//   lower_resize.cpp       Resize, Upsample
//   lower_elementwise.cpp  binary, unary, activations, Clip, PRelu
//   lower_shape_ops.cpp    Reshape/Flatten/Squeeze/Unsqueeze, Transpose, Concat,
//                          Split, Slice, Gather, Pad
//   lower_misc.cpp         Gemm, MatMul, Softmax/LogSoftmax, LayerNormalization,
//                          reductions, ArgMax/ArgMin, TopK, Cast, Q/DQ, Identity
//   lower_indexing.cpp     Where, GatherElements, GatherND, ScatterElements,
//                          ScatterND, Tile, CumSum, OneHot, IsInf, IsNaN,
//                          BitShift, Compress, ReverseSequence, MaxUnpool
//   lower_vision.cpp       DepthToSpace, SpaceToDepth, LRN, GridSample, RoiAlign
//   lower_composite.cpp    Erf (and the GELU pattern), activations,
//                          reductions, MeanVarianceNormalization and Det
//                          composed of element-wise QNN ops
//   lower_loss.cpp         NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
//   lower_static.cpp       EyeLike, Hann/Hamming/BlackmanWindow (static outputs)
//   lower_einsum.cpp       Einsum (Transpose, Reshape, Multiply, ReduceSum)
//   lower_rnn.cpp          GRU, LSTM (QNN Gru, Lstm), RNN (unrolled)
//   lower_integer.cpp      MatMulInteger, QLinearMatMul, DynamicQuantizeLinear (in float)
//   lower_dft.cpp          DFT (MatMuls with static cosine / sine matrices)
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "onnx/lowering_context.h"
#include "onnx/model.h"
#include "onnx/progress.h"
#include "onnx/qnn_graph.h"

namespace openhtp::onnx_import {

struct OpLowering {
  const char* op_type;
  // "" when the node can be lowered, else the reason (without node prefix).
  std::string (*check)(const onnx::NodeProto& node, const Model& model);
  void (*lower)(const onnx::NodeProto& node, LoweringContext& ctx);
};

// The families' tables.
std::vector<OpLowering> conv_pool_lowerings();
std::vector<OpLowering> norm_lowerings();
std::vector<OpLowering> resize_lowerings();
std::vector<OpLowering> elementwise_lowerings();
std::vector<OpLowering> shape_op_lowerings();
std::vector<OpLowering> misc_lowerings();
std::vector<OpLowering> indexing_lowerings();   // lower_indexing.cpp
std::vector<OpLowering> vision_lowerings();     // lower_vision.cpp
std::vector<OpLowering> composite_lowerings();  // lower_composite.cpp
std::vector<OpLowering> loss_lowerings();       // lower_loss.cpp
std::vector<OpLowering> static_lowerings();     // lower_static.cpp
std::vector<OpLowering> einsum_lowerings();     // lower_einsum.cpp
std::vector<OpLowering> rnn_lowerings();        // lower_rnn.cpp
std::vector<OpLowering> integer_lowerings();    // lower_integer.cpp
std::vector<OpLowering> dft_lowerings();        // lower_dft.cpp

const OpLowering* find_lowering(const std::string& op_type);
std::vector<std::string> supported_op_types();

// Why `node` cannot be lowered ("" when it can): unknown domain or op type,
// element types QNN lacks (string, complex; bfloat16 outside Cast), non-static shapes, then
// the op's own check.
std::string check_node(const onnx::NodeProto& node, const Model& model);

struct LoweringOptions {
  std::set<std::string> channel_last_inputs;  // --input_layout NAME NHWC
};

// Lowers every node of `model` (which must pass check_node) into `graph`.
bool lower_model(const Model& model, const LoweringOptions& options, QnnGraphDesc* graph, std::string* error,
                 const ProgressFn& progress = {});

// Helpers shared by the family files.
int64_t normalize_axis(int64_t axis, size_t rank);
// The check of an op every form of which lowers.
inline std::string check_any(const onnx::NodeProto&, const Model&) { return ""; }
std::string check_constant_inputs(const onnx::NodeProto& node, const Model& model, std::vector<int> which);
std::string check_no_extra_outputs(const onnx::NodeProto& node, int allowed);

}  // namespace openhtp::onnx_import
