// Post-training quantization of a lowered QnnGraphDesc.
//
// Encodings (QNN convention real = (q + offset) * scale, offset = -zero_point):
//  * activations (every non-static FLOAT_32 tensor, graph inputs and outputs
//    included, as qnn-onnx-converter does): asymmetric UFIXED_POINT_8/16 from
//    the calibrated [min, max], range widened to contain 0 so zero is exactly
//    representable: scale = (max - min) / (2^bw - 1), offset =
//    round(min / scale) (i.e. -zero_point), at least 1e-4 wide;
//  * weights (input 1 of Conv2d, DepthWiseConv2d, TransposeConv2d,
//    FullyConnected): SFIXED_POINT_8 symmetric, scale = max|w| / 127, offset
//    0; per output channel (AXIS_SCALE_OFFSET on the output-channel axis)
//    with per_channel, else per tensor;
//  * with per_channel, a static input 1 of MatMul (not behind a
//    DequantizeLinear) is a weight too: SFIXED_POINT_8 symmetric per output
//    column (axis rank-1, rank-2 with transpose_in1), no bias;
//  * non-finite values: nan and ±inf never enter a scale. A static tensor's
//    range is that of its finite values; where it holds -inf (+inf) the
//    range is extended on that side to 2 x the largest finite magnitude of
//    the tensor and of every calibrated activation (at least 1), so -inf
//    becomes the lowest code and saturates whatever it is added to (a
//    causal mask of 0 / -inf stays a mask). A calibrated range that saw ±inf
//    is the finite range, ±inf saturating to its ends. Each gets a note;
//  * bias (input 2 of those ops): SFIXED_POINT_32, scale = in_scale *
//    w_scale (per channel when the weights are), offset 0;
//  * other static float tensors (element-wise constants, norm gammas):
//    asymmetric 8-bit from their own min/max;
//  * data-movement ops (Reshape, Transpose, StridedSlice, Gather, Split,
//    PoolMax2d, Concat inputs excluded) give their output the input's encoding, so no
//    requantization happens where none is needed;
//  * `overrides` (from QDQ pairs in the model) win over calibration;
//  * options.activation_overrides set a tensor's bit width (and range) in
//    place of act_bitwidth (and the calibrated range); a data-movement op's
//    output that has one does not inherit its input's encoding;
//  * weights that were DequantizeLinear(int8/uint8 constant) in the model
//    (`qdq_weights`, keyed by the DequantizeLinear output) keep those
//    integers and that encoding (SFIXED/UFIXED_POINT_8, offset = -zero
//    point, per-axis axis mapped into the QNN layout) instead of being
//    requantized, when the encoding is one the kernels take; otherwise they
//    are requantized as above and a note says why.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "onnx/qnn_graph.h"

namespace openhtp::onnx_import {

// A calibrated range (finite; ±inf seen during calibration is flagged, the
// encoding then saturates it to the end of the range).
struct TensorRange {
  float min = 0.0f;
  float max = 0.0f;
  bool neg_inf = false;
  bool pos_inf = false;
  bool finite_seen = true;  // false: only non-finite values were seen
};

// A weight as the QDQ model stores it: DequantizeLinear(values, scales,
// zero_points[, axis]) with int8/uint8 constant values (ONNX layout).
struct QdqWeight {
  bool is_signed = true;           // int8 (else uint8)
  std::vector<int64_t> dims;       // ONNX dims of the values
  std::vector<int32_t> values;     // row-major, ONNX layout
  int64_t axis = -1;               // ONNX axis of per-axis scales; -1 = per tensor
  std::vector<float> scales;       // 1 (per tensor) or dims[axis]
  std::vector<int32_t> zero_points;  // same count as scales
};

// A user's choice for one activation (qnn-onnx-converter
// --quantization_overrides, an AIMET-style "activation_encodings" entry):
// its bit width and, optionally, its range in place of the calibrated one.
// The usual use is mixed precision: a few sensitive tensors of an 8-bit
// graph (a transformer's LayerNorm inputs) at 16 bits.
struct ActivationOverride {
  int bitwidth = 8;     // 8 or 16
  bool has_range = false;
  float min = 0.0f, max = 0.0f;  // when has_range (min <= max)
};

struct QuantOptions {
  int act_bitwidth = 8;       // 8 or 16
  int weights_bitwidth = 8;   // 8 only
  int bias_bitwidth = 32;     // 32 only
  bool per_channel = false;
  // By ONNX tensor name. Each must name an activation of the converted graph
  // (not folded or fused away): an override that matches nothing is refused,
  // so a misspelt name is not silently ignored. An encoding from the model's
  // own QDQ pairs wins over it.
  std::map<std::string, ActivationOverride> activation_overrides;
  // False when the overrides serve several graphs (one name may belong to
  // one of them): an override this graph lacks is then a note, not an error.
  bool every_override_here = true;
};

// Asymmetric encoding for [min, max] with `bitwidth` unsigned steps.
Encoding asymmetric_encoding(float min, float max, int bitwidth);
// Symmetric signed 8-bit: scale = max|v| / 127 (1e-8 floor), offset 0.
Encoding symmetric_encoding(const std::vector<float>& values);
// Per-axis symmetric: one scale per index of `axis` of a tensor with `dims`.
Encoding symmetric_per_axis_encoding(const std::vector<float>& values, const std::vector<uint32_t>& dims,
                                     int32_t axis);
// Quantizes `values` (a tensor with `dims`) to `dtype` with `enc`
// (q = clamp(round_half_even(v / scale) - offset)).
std::vector<uint8_t> quantize_values(const std::vector<float>& values, const std::vector<uint32_t>& dims,
                                     const Encoding& enc, Qnn_DataType_t dtype);

// `notes` (optional) receives one line per QDQ weight whose encoding could
// not be kept (it was requantized instead).
bool quantize_graph(QnnGraphDesc* graph, const std::map<std::string, TensorRange>& ranges,
                    const std::map<std::string, Encoding>& overrides, const QuantOptions& options,
                    std::string* error, const std::map<std::string, QdqWeight>& qdq_weights = {},
                    std::vector<std::string>* notes = nullptr);

}  // namespace openhtp::onnx_import
