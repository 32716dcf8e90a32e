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
// ONNX tensor name.
size_t fold_qdq_pairs(Model* model, std::map<std::string, Encoding>* overrides);

// Every DequantizeLinear whose input is an int8/uint8 constant with a
// constant float scale and zero point (per tensor, or per axis with one per
// index of that axis; no block_size) goes to *weights keyed by its output
// name. Returns the number recorded.
size_t collect_qdq_weights(const Model& model, std::map<std::string, QdqWeight>* weights);

}  // namespace openhtp::onnx_import
