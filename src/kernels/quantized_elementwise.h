// 8-bit fast paths for the ops EfficientNet-B0 and transformer encoders
// spend their quantized time in (docs/performance.md, "8-bit binary ops,
// ReduceMean, Softmax, MatMul"). Without them these nodes ran the float reference or
// float XNNPACK behind the type adapter: a dequantize of every input, the
// float op, a quantize of the output, per element, single threaded.
//
//   binary ops  both inputs and the output 8-bit per-tensor, numpy
//               broadcasting. Add / Subtract / Multiply / Divide (also as
//               ElementWiseBinary): the reference's own dequantize, float
//               op and quantize as a vectorized loop, with a fallback to
//               quantize_one's division for near-ties: bit-exact. Maximum /
//               Minimum / Power / SquaredDifference / FloorDiv / Fmod / Mod
//               and ElementWiseBinary's other arithmetic: a 65536-entry table
//               of the reference's answer for every pair of input codes,
//               made at prepare by running the reference on all pairs;
//               bit-exact by construction, like the unary lookup tables
//               (lookup_table.h).
//   ReduceMean  8-bit per-tensor in and out, reduced axes contiguous after
//               dropping size-1 axes (global average pool over H, W; the
//               last axis of a LayerNorm): integer sums of the codes, one
//               rescale and one quantize per output. Within one step of the
//               reference (its float rounding of each dequantized input).
//   Softmax     8-bit per-tensor in and out, last axis: exp() of the code
//               differences from a 256-entry table per node (the row's
//               exponents are beta*scale*(q - q_max)), sum in double, one
//               quantize per output. Within one step of the reference.
//   LayerNorm   8-bit per-tensor in and out, any block of trailing axes:
//               the reference's double-precision two-pass arithmetic on the
//               codes' table values, gamma/beta as floats from prepare;
//               bit-exact, rows split over the pool.
//               As the step of an ElementWiseAdd -> LayerNorm fusion
//               (htp/fusion.h, ops::kAddLayerNorm): the same arithmetic on
//               the float sum of the Add's two dequantized inputs, so the
//               sum is never rounded to 8 bits.
//   Quantize    FLOAT_32 to 8-bit per-tensor: the reference's arithmetic
//               vectorized (quantize_block), split over the pool.
//   MatMul      8-bit per-tensor in and out, no bias: what the type adapter
//               did (dequantize, oneDNN fp32 matmul, quantize) with a
//               256-entry dequantize table and a vectorized exact quantize
//               in place of its per-element conversions; static in[1]
//               dequantized once. Within one step of the reference (float
//               summation order), as the adapted oneDNN path was.
// The binary ops, ReduceMean and Softmax split over the graph's pool the
// way the unary tables do (tiles / rows / blocks of 256 columns for a
// ReduceMean over outer axes, only when there is enough work); MatMul's
// conversions run on the caller's thread (oneDNN threads the matmul itself).
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::q8 {

bool prepare_binary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_reduce_mean(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_softmax(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_matmul(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_layer_norm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// An ops::kAddLayerNorm node: inputs a, b (8-bit per-tensor, one shape),
// gamma, beta (static or absent); the LayerNorm's parameters and output.
bool prepare_add_layer_norm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// Quantize FLOAT_32 -> 8-bit per-tensor, bit-exact, on the graph's pool.
bool prepare_quantize(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::q8
