// ONNX control flow (If, Loop, Scan) as straight-line ONNX nodes, at
// import: a QNN graph is one static data flow with no branches or loops, so
// a control-flow node can only be imported when its structure is fixed at
// conversion time. The rules:
//
//   If    a constant condition (after folding, or a bound input): the taken
//         branch is inlined. A run-time condition: both branches are
//         inlined and each output is Where(cond, then, else), which is only
//         the If when both branches give the same element type and the same
//         static shape (an If's output shape is the taken branch's).
//   Scan  the scan length is the (static) size of the scan inputs along
//         their axes: the body is inlined once per step, each scan input
//         sliced at the step (Gather with a scalar index, from the end for
//         reverse directions), the state passed on, each scan output's
//         slices stacked (Unsqueeze + Concat at its scan_output_axes,
//         reversed for reverse directions). Opset 8's batched form is
//         unrolled per batch element and the results stacked on axis 0.
//   Loop  the trip count M and the condition must be constants; the body is
//         inlined per iteration with iteration_num as a constant, the
//         loop-carried values passed on and the scan outputs stacked on
//         axis 0. After each iteration the condition the body computed must
//         fold to a constant (the model is folded to find it); a condition
//         that depends on run-time values is refused, naming the node.
//
// Every inlined value gets a fresh name per iteration (subgraph_inlining.h);
// references to outer-scope values stay. A node that cannot be unrolled is
// left as it is with its reason in Model::rewrite_refusals.
#pragma once

#include <string>

#include "onnx/model.h"

namespace openhtp::onnx_import {

// Returns the number of control-flow nodes unrolled (shape inference has run
// over the result), or false + *error on a malformed model.
bool unroll_control_flow(Model* model, size_t* unrolled, std::string* error, bool keep_dequantize = false);

// Unrolling stops at this many Loop iterations (the model is refused).
inline constexpr int64_t kMaxUnrolledIterations = 1024;

}  // namespace openhtp::onnx_import
