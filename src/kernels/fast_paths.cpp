#include "kernels/fast_paths.h"

#include <algorithm>

#include "kernels/float_layer_norm.h"
#include "kernels/convert_shares.h"
#include "kernels/float_binary.h"
#include "kernels/float_reduce.h"
#include "kernels/lookup_table.h"
#include "kernels/onednn_paths.h"
#include "kernels/quantized_elementwise.h"
#include "kernels/select_runs.h"
#include "kernels/xnnpack_convolution.h"
#include "kernels/xnnpack_paths.h"

namespace openhtp::kernels {

std::span<const ops::FastPath> fast_paths() {
  // fp32 conv/GEMM: oneDNN; quantized, fp16, pooling, add: XNNPACK; 8-bit
  // pointwise ops: lookup tables. Each declines what it does not cover, so
  // order only matters where two cover the same case: 8-bit convolutions
  // with symmetric int8 weights go to oneDNN where the CPU has VNNI (it
  // scales with threads; XNNPACK barely does), otherwise to XNNPACK.
  static constexpr ops::FastPath kPaths[] = {
      {"Conv2d", "onednn-winograd", &onednn::prepare_conv2d_winograd},  // fp32 3x3 stride 1
      {"Conv2d", "onednn", &onednn::prepare_conv2d, nullptr, /*takes_input_scale=*/true, /*takes_channel_mean=*/true},
      {"Conv2d", "onednn-int8", &onednn::prepare_conv2d_int8, nullptr, false, false, /*takes_output_table=*/true},
      {"Conv2d", "xnnpack", &xnn::prepare_conv2d},
      {"DepthWiseConv2d", "onednn", &onednn::prepare_conv2d, nullptr, false, /*takes_channel_mean=*/true},
      {"DepthWiseConv2d", "onednn-int8", &onednn::prepare_conv2d_int8, nullptr, false, false,
       /*takes_output_table=*/true},
      {"DepthWiseConv2d", "xnnpack", &xnn::prepare_conv2d},
      {"TransposeConv2d", "onednn", &onednn::prepare_transpose_conv2d},
      {"FullyConnected", "onednn", &onednn::prepare_fully_connected},
      {"FullyConnected", "onednn-int8", &onednn::prepare_fully_connected_int8},
      {"FullyConnected", "xnnpack", &xnn::prepare_fully_connected},
      {"MatMul", "onednn", &onednn::prepare_matmul},
      {"MatMul", "onednn-int8", &onednn::prepare_matmul_int8},  // 8-bit, int32 sums (VNNI)
      {"MatMul", "onednn-q8", &q8::prepare_matmul},  // 8-bit: dequantize, fp32 oneDNN, quantize
      {"LayerNorm", "int8", &q8::prepare_layer_norm},
      {"LayerNorm", "vectorized", &f32::prepare_layer_norm},
      {"RmsNorm", "vectorized", &f32::prepare_rms_norm},
      {ops::kAddLayerNorm, "int8", &q8::prepare_add_layer_norm},  // htp/fusion.h: one rounding, not two
      {"ElementWiseAdd", "xnnpack", &xnn::prepare_add},
      {"PoolMax2d", "xnnpack", &xnn::prepare_pool_max2d},
      {"PoolAvg2d", "xnnpack", &xnn::prepare_pool_avg2d},
      // fp32 activations and unary ops: exact loops, XNNPACK's unary
      // operators, or the reference on slices in parallel; fp16 ones the
      // exact loops only (xnnpack_unary.cpp). Before the tables: an fp16
      // clamp is faster as a loop than as a 65536-entry table.
      {"Relu", "xnnpack", &xnn::prepare_unary},
      {"ReluMinMax", "xnnpack", &xnn::prepare_unary},
      {"Relu1", "xnnpack", &xnn::prepare_unary},
      {"Relu6", "xnnpack", &xnn::prepare_unary},
      {"Sigmoid", "xnnpack", &xnn::prepare_unary},
      {"Tanh", "xnnpack", &xnn::prepare_unary},
      {"Gelu", "xnnpack", &xnn::prepare_unary},
      {"Logit", "xnnpack", &xnn::prepare_unary},
      {"HardSwish", "xnnpack", &xnn::prepare_unary},
      {"Elu", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseSoftplus", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseNeuron", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseUnary", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseAbs", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseAsin", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseAtan", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseCeil", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseCos", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseExp", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseFloor", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseLog", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseNeg", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseNot", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseRound", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseRsqrt", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseSign", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseSin", "xnnpack", &xnn::prepare_unary},
      {"ElementWiseSquareRoot", "xnnpack", &xnn::prepare_unary},
      // 8-bit pointwise ops: a table of the reference's 256 answers; 16-bit
      // (FLOAT_16, 16-bit fixed point) ones of its 65536 (lookup_table.h).
      {"Relu", "lookup-table", &lut::prepare_unary},
      {"ReluMinMax", "lookup-table", &lut::prepare_unary},
      {"Sigmoid", "lookup-table", &lut::prepare_unary},
      {"Tanh", "lookup-table", &lut::prepare_unary},
      {"Gelu", "lookup-table", &lut::prepare_unary},
      {"HardSwish", "lookup-table", &lut::prepare_unary},
      {"ElementWiseNeuron", "lookup-table", &lut::prepare_unary},
      {"ElementWiseUnary", "lookup-table", &lut::prepare_unary},
      // ... and the same operations under their own names (QnnOpDef.h).
      {"ElementWiseAbs", "lookup-table", &lut::prepare_unary},
      {"ElementWiseAsin", "lookup-table", &lut::prepare_unary},
      {"ElementWiseAtan", "lookup-table", &lut::prepare_unary},
      {"ElementWiseCeil", "lookup-table", &lut::prepare_unary},
      {"ElementWiseCos", "lookup-table", &lut::prepare_unary},
      {"ElementWiseExp", "lookup-table", &lut::prepare_unary},
      {"ElementWiseFloor", "lookup-table", &lut::prepare_unary},
      {"ElementWiseLog", "lookup-table", &lut::prepare_unary},
      {"ElementWiseNeg", "lookup-table", &lut::prepare_unary},
      {"ElementWiseRound", "lookup-table", &lut::prepare_unary},
      {"ElementWiseRsqrt", "lookup-table", &lut::prepare_unary},
      {"ElementWiseSign", "lookup-table", &lut::prepare_unary},
      {"ElementWiseSin", "lookup-table", &lut::prepare_unary},
      {"ElementWiseSquareRoot", "lookup-table", &lut::prepare_unary},
      {"ElementWiseSoftplus", "lookup-table", &lut::prepare_unary},
      {"Relu1", "lookup-table", &lut::prepare_unary},
      {"Relu6", "lookup-table", &lut::prepare_unary},
      {"Elu", "lookup-table", &lut::prepare_unary},
      {"Logit", "lookup-table", &lut::prepare_unary},
      {"Convert", "lookup-table", &lut::prepare_unary},
      {"Dequantize", "lookup-table", &lut::prepare_unary},
      // A fused pointwise chain on an 8-bit tensor (htp/fusion.h) as one table.
      {ops::kPointwiseChain, "lookup-table", nullptr, &lut::prepare_chain, false, false, false, &lut::chain_table},
      // Element-wise fp32 (fp16 add/multiply) binary ops through XNNPACK.
      {"ElementWiseMultiply", "xnnpack", &xnn::prepare_multiply},
      {"ElementWiseSubtract", "xnnpack", &xnn::prepare_subtract},
      {"ElementWiseDivide", "xnnpack", &xnn::prepare_divide},
      {"ElementWiseSquaredDifference", "xnnpack", &xnn::prepare_squared_difference},
      {"ElementWiseMaximum", "xnnpack", &xnn::prepare_maximum},
      {"ElementWiseMinimum", "xnnpack", &xnn::prepare_minimum},
      {"ElementWiseBinary", "xnnpack", &xnn::prepare_elementwise_binary},
      // 8-bit binary ops (both inputs and the output 8-bit per-tensor, any
      // broadcast): add/sub/mul/div as an exact vectorized loop, the rest as
      // a table of the reference's answer for all 65536 code pairs
      // (quantized_elementwise.h). After XNNPACK's qu8 add, which stays
      // first for the adds it takes; the rest fell to the type adapter.
      {"ElementWiseAdd", "lookup-table", &q8::prepare_binary},
      {"ElementWiseSubtract", "lookup-table", &q8::prepare_binary},
      {"ElementWiseMultiply", "lookup-table", &q8::prepare_binary},
      {"ElementWiseDivide", "lookup-table", &q8::prepare_binary},
      {"ElementWiseMaximum", "lookup-table", &q8::prepare_binary},
      {"ElementWiseMinimum", "lookup-table", &q8::prepare_binary},
      {"ElementWiseSquaredDifference", "lookup-table", &q8::prepare_binary},
      {"ElementWisePower", "lookup-table", &q8::prepare_binary},
      {"ElementWiseFloorDiv", "lookup-table", &q8::prepare_binary},
      {"ElementWiseFmod", "lookup-table", &q8::prepare_binary},
      {"ElementWiseMod", "lookup-table", &q8::prepare_binary},
      {"ElementWiseBinary", "lookup-table", &q8::prepare_binary},
      // 8-bit ReduceMean (contiguous reduced axes) and Softmax (last axis):
      // integer sums / an exp table per node (quantized_elementwise.h).
      {"ReduceMean", "int8", &q8::prepare_reduce_mean},
      // fp32 ReduceMean over one block of axes (float_reduce.h).
      {"ReduceMean", "vectorized", &f32::prepare_reduce_mean},
      {"Softmax", "xnnpack", &xnn::prepare_softmax_f32},
      {"ElementWisePower", "vectorized", &xnn::prepare_power_f32},
      {"Softmax", "int8", &q8::prepare_softmax},
      // fp32 binary ops no library takes (and Maximum/Minimum under other
      // broadcasts): the reference's function in loops over the broadcast's
      // runs, on the graph's pool (float_binary.h). Last for each type.
      {"ElementWiseMaximum", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseMinimum", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseBinary", "vectorized", &f32::prepare_binary_loop},
      {"ElementWisePower", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseFloorDiv", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseFmod", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseMod", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseEqual", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseNotEqual", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseGreater", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseGreaterEqual", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseLess", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseLessEqual", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseAnd", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseOr", "vectorized", &f32::prepare_binary_loop},
      {"ElementWiseXor", "vectorized", &f32::prepare_binary_loop},
      // Where: the values' bytes moved by typed loops over the three-way
      // broadcast's runs (select_runs.h), when none needs requantizing.
      {"ElementWiseSelect", "vectorized", &prepare_select},
      // Convert / Dequantize the tables above decline (FLOAT_32, FLOAT_16,
      // 16-bit or per-channel sides): the reference's conversions in one
      // share per thread (convert_shares.h).
      {"Convert", "vectorized", &prepare_convert},
      {"Dequantize", "vectorized", &prepare_convert},
      {"Quantize", "int8", &q8::prepare_quantize},
      // Transpose: a blocked copy on the graph's pool (no XNNPACK transpose
      // in this version).
      {"Transpose", "xnnpack", &xnn::prepare_transpose},
  };
  return kPaths;
}

bool select_fast_paths(std::string_view selection, std::vector<ops::FastPath>* out, std::string* why) {
  const std::span<const ops::FastPath> all = fast_paths();
  out->clear();
  if (selection == "reference") return true;
  if (selection.empty() || selection == "fast") {
    out->assign(all.begin(), all.end());
    return true;
  }
  std::vector<std::string_view> left_out;
  for (size_t at = 0; at <= selection.size();) {
    const size_t comma = std::min(selection.find(',', at), selection.size());
    const std::string_view item = selection.substr(at, comma - at);
    const bool known = item.size() > 1 && item[0] == '-' &&
                       std::any_of(all.begin(), all.end(), [&](const ops::FastPath& fp) { return fp.library == item.substr(1); });
    if (!known) {
      *why = "kernel selection '" + std::string(selection) + "': '" + std::string(item) +
             "' is not fast, reference or -<library> of a fast path this build has";
      return false;
    }
    left_out.push_back(item.substr(1));
    at = comma + 1;
  }
  for (const ops::FastPath& fp : all) {
    if (std::find(left_out.begin(), left_out.end(), fp.library) == left_out.end()) out->push_back(fp);
  }
  return true;
}

}  // namespace openhtp::kernels
