// Constant folding: Constant nodes become constants; Shape and Size of
// static shapes become constants; Identity/Dropout (inference) are dropped
// when their input is constant; every node whose inputs are all constants
// and whose op the folder can evaluate (shape ops, Cast, Gather, Slice,
// Concat, arithmetic with Mod/Min/Max, comparisons and Not/And/Or,
// Ceil/Floor/Relu/Abs, ConstantOfShape, Range, Transpose, Where, ReduceProd,
// DequantizeLinear)
// is evaluated. So Reshape's shape input, Unsqueeze's axes etc. computed by
// small subgraphs end up as constants and the node that used them is left
// with static operands. Folding and shape inference alternate until nothing
// more folds.
#pragma once

#include <string>

#include "onnx/model.h"

namespace openhtp::onnx_import {

// Returns false only on a malformed model (e.g. a Constant without value).
// `folded` (optional) receives the number of nodes removed.
// `keep_dequantize`: DequantizeLinear of constants is left as it is (the
// quantized import records their integers first, collect_qdq_weights).
bool fold_constants(Model* model, std::string* error, size_t* folded = nullptr, bool keep_dequantize = false);

}  // namespace openhtp::onnx_import
