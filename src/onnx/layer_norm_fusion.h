// LayerNorm fusion: exporters below opset 17 (PyTorch's F.layer_norm, every
// torch.nn.Transformer*, ViT, ConvNeXt) write LayerNorm as nine nodes
//
//   m = ReduceMean(x, last axis, keepdims)   d = Sub(x, m)
//   v = ReduceMean(Pow(d, 2) | Mul(d, d))    s = Sqrt(Add(v, eps))
//   y = Mul(Div(d, s), gamma)                z = Add(y, beta)   (beta optional)
//
// (operands of the commutative ops in either order), which this pass turns
// into one ONNX LayerNormalization(x, gamma[, beta]; axis -1, epsilon eps),
// lowered to QNN's LayerNorm. Why: the result is the same in float (to
// rounding), but a quantized graph then quantizes only x and z, where the
// nine-node form quantized (x - mean) and its square at 8 bits too — the
// variance of a row with one outlier came out as a few codes, and a 12-block
// ViT-B/16 at 8-bit activations lost its output entirely. QNN's own
// converter fuses this pattern the same way.
//
// Only a pattern whose every intermediate has its single consumer inside the
// pattern (d: the square and the Div) and is not a graph output is fused;
// gamma and beta must be constants of shape [C] (C = x's last dimension) and
// eps a constant scalar.
#pragma once

#include <vector>

#include "onnx/model.h"

namespace openhtp::onnx_import {

std::vector<onnx::NodeProto> fuse_layer_norm(const Model& model, std::vector<onnx::NodeProto> nodes);

}  // namespace openhtp::onnx_import
