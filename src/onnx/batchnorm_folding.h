// BatchNormalization folding: an inference BatchNormalization with constant
// statistics whose input comes from a Conv, ConvTranspose or Gemm with
// constant weights (and constant or absent bias) that has no other consumer
// is merged into that node: per output channel c,
//   w[c] = scale[c] / sqrt(var[c] + eps),  b[c] = B[c] - mean[c] * w[c]
//   W'[c, ...] = W[c, ...] * w[c],  bias'[c] = bias[c] * w[c] + b[c]
// (Gemm: columns of B; ConvTranspose: the output-channel dim of IOHW).
#pragma once

#include <string>

#include "onnx/model.h"

namespace openhtp::onnx_import {

// Returns the number of BatchNormalization nodes folded.
size_t fold_batchnorms(Model* model);

}  // namespace openhtp::onnx_import
