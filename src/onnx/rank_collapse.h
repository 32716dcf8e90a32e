// Values of rank > 5 as lower-rank views: QNN HTP tensors have rank <= 5,
// but many ONNX computations on rank-6/7 values act on a few leading axes
// only (losses over [N, C, d1..dk], element-wise arithmetic, a gather along
// axis 1) and are the same computation on a view in which the trailing axes
// they do not act on are merged into one. The rewrite, at import:
//
//   graph I/O   a graph input or output of rank r > 5 is given to QNN as
//               its row-major view of rank 5 (axes 0..3 kept, axes 4..r-1
//               merged): the same elements in the same order, so a client
//               passes and reads the same bytes (the view's dims are the
//               QNN tensor's dims). Inside, a Reshape restores the ONNX shape.
//   reshapes    Reshape/Flatten/Squeeze/Unsqueeze/Identity touching a rank
//               > 5 value become Reshape to their static output shape, and
//               Reshape(Reshape(x)) whose middle value has rank > 5 reads x
//               directly: the rank > 5 value disappears once nothing else
//               reads it.
//   ops         a node with a rank > 5 value whose op leaves the trailing m
//               axes of every such value alone (element-wise ops with
//               broadcasting that keeps those axes whole; GatherElements,
//               Slice, Softmax and reductions over leading axes; Gather
//               along the data's last axis; NegativeLogLikelihoodLoss and
//               SoftmaxCrossEntropyLoss over [N, C, ...]) runs on views
//               with those m axes merged, Reshapes in and out around it
//               (which the previous rule then folds away).
//   Transpose   axes of size 1 are left out (they carry no order), and axes
//               that stay adjacent and in order under the permutation are
//               merged.
//
// Whatever still has rank > 5 afterwards is refused by check_node as before.
#pragma once

#include "onnx/model.h"

namespace openhtp::onnx_import {

// Returns the number of nodes rewritten or added; shape inference has run.
bool collapse_high_ranks(Model* model, size_t* rewritten, std::string* error);

}  // namespace openhtp::onnx_import
