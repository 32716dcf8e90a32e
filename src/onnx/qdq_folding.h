// QDQ folding (quantized conversion only): a QuantizeLinear -> DequantizeLinear
// pair with the same constant per-tensor scale and zero point says "this
// tensor is quantized with this encoding". The pair is removed, consumers
// of the DequantizeLinear output read the QuantizeLinear input, and the
// encoding (scale, offset = -zero_point, 8-bit signed or unsigned) is kept
// as an override for that tensor. Weight-side DequantizeLinear of constants
// is left to constant folding (the weights are requantized symmetrically).
#pragma once

#include <map>
#include <string>

#include "onnx/model.h"
#include "onnx/qnn_graph.h"

namespace openhtp::onnx_import {

// Returns the number of pairs folded; encodings go to *overrides keyed by
// ONNX tensor name.
size_t fold_qdq_pairs(Model* model, std::map<std::string, Encoding>* overrides);

}  // namespace openhtp::onnx_import
