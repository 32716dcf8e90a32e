// QDQ folding (quantized conversion only): a QuantizeLinear -> DequantizeLinear
// pair with the same constant per-tensor scale and zero point says "this
// tensor is quantized with this encoding". The pair is removed, consumers
// of the DequantizeLinear output read the QuantizeLinear input, and the
// encoding (scale, offset = -zero_point, 8-bit signed or unsigned) is kept
// as an override for that tensor. Weight-side DequantizeLinear of int8/uint8
// constants is still folded to float by constant folding, but
// collect_qdq_weights records the integers and encoding first, so
// quantization can give the weights exactly those (QdqWeight).
#pragma once

#include <map>
#include <string>

#include "onnx/model.h"
#include "onnx/qnn_graph.h"
#include "onnx/quantization.h"

namespace openhtp::onnx_import {

// Returns the number of pairs folded; encodings go to *overrides keyed by
// ONNX tensor name. Graph outputs keep their ONNX names: a graph output that
// was a folded DequantizeLinear's output becomes the output of the node that
// made the QuantizeLinear input (renamed), or of an Identity from it when
// that value is a graph input, a constant or another output.
size_t fold_qdq_pairs(Model* model, std::map<std::string, Encoding>* overrides);

// Removes pass-through nodes on the way from a QuantizeLinear to its
// DequantizeLinear (and elsewhere): Identity, and Cast to the type its input
// already has. Their readers read the input instead; a node whose output is
// a graph output is kept (the name stays). Returns the number removed.
size_t drop_pass_through(Model* model);

// Why a QuantizeLinear/DequantizeLinear left after QDQ folding cannot be
// taken by the quantized conversion ("" for other op types). The lowering
// refuses every such node when the model was QDQ-folded (Model::qdq_folded).
std::string qdq_leftover_reason(const onnx::NodeProto& node, const Model& model);

// Every DequantizeLinear whose input is an int8/uint8 constant with a
// constant float scale and zero point (per tensor, or per axis with one per
// index of that axis; no block_size) goes to *weights keyed by its output
// name. Returns the number recorded.
size_t collect_qdq_weights(const Model& model, std::map<std::string, QdqWeight>* weights);

}  // namespace openhtp::onnx_import
