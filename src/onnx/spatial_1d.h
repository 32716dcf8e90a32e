// 1-D convolutions and pools ([N, C, L]) as 2-D ones: QNN HTP has Conv2d,
// TransposeConv2d, PoolMax2d and PoolAvg2d. Each such node becomes
//   Unsqueeze(x, axis 2) -> [N, C, 1, L] -> the 2-D node -> Squeeze(axis 2)
// with its attributes given a leading 1 (kernel 1 x k, stride 1 x s, pads
// [0, b, 0, e], ...) and constant weights [O, I, k] reshaped to [O, I, 1, k]
// (an Unsqueeze node for weights given at run time).
#pragma once

#include "onnx/model.h"

namespace openhtp::onnx_import {

// Returns the number of nodes rewritten; shape inference must run after.
size_t lift_1d_spatial_ops(Model* model);

}  // namespace openhtp::onnx_import
