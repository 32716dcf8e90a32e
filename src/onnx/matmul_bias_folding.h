// A float graph's MatMul followed by the Add of a static row — a Linear
// layer on a 3-D input, which PyTorch exports as MatMul + Add — becomes one
// MatMul with QNN's optional bias input (in[2], [N], added to every row), as
// the Qualcomm converter folds it:
//
//   a ──► MatMul(a, b) ──t──► ElementWiseAdd(t, c) ──► y
//   becomes  MatMul(a, b, bias = c as [N]) ──► y
//
// Why: the Add was a step of its own, a pass over the product; folded, the
// kernels add the bias in the product's output stage, and a Relu after it
// then fuses into the MatMul at prepare (htp/fusion.h: same dims, no
// broadcast). The transformer encoder's two feed-forward Linears at two
// threads: four Adds and two Relus, ~0.17 ms of ~2.1 (docs/performance.md,
// session 14).
//
// Rules (each keeps the graph's meaning):
//   - everything FLOAT_32 (quantized graphs keep the Add: their MatMul bias
//     would need a 32-bit encoding the quantizer gives weighted ops only);
//   - t is NATIVE and read by exactly one input of one node, the Add, so
//     nothing else sees that it is gone;
//   - c is STATIC, its dims [N] or [1, ..., 1, N] with N = t's last dim, so
//     the Add broadcasts it along the rows only, and y has t's dims;
//   - the MatMul has no bias yet.
// The sum is rounded once where the nodes rounded twice (product, then
// sum): the result is within float rounding of the nodes', not bit-exact.
#pragma once

#include <cstddef>

#include "onnx/qnn_graph.h"

namespace openhtp::onnx_import {

// Folds every such pair; returns how many.
size_t fold_matmul_biases(QnnGraphDesc* graph);

}  // namespace openhtp::onnx_import
