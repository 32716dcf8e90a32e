// Empty values (a 0 in a static shape) at the graph's edge. QNN tensors have
// no zero dimension (tensorCreateGraphTensor refuses one), yet ONNX models
// produce empty values routinely: a Slice that starts past the end, a Split
// with zero-size pieces, a ConstantOfShape of shape [0], a triangle of an
// empty matrix. An empty value's content is fully given by its shape, so
// nothing needs computing for it. The rewrite, at import:
//
//   outputs   an empty graph output is not a QNN graph output: it moves to
//             Model::empty_outputs with its type and shape (the converter
//             prints a note; a client knows its shape from the model and
//             has no bytes to read).
//   Concat    an empty input adds nothing along the axis and is dropped
//             (ONNX allows empty Concat inputs; QNN does not).
//   dead code nodes none of whose outputs is read by a node or is a graph
//             output are removed, so a node that only made empty outputs
//             disappears with them.
//
// Empty graph inputs are constants already (fold_constants). An empty value
// still read by a node after this is refused by check_node, naming it.
#pragma once

#include <cstddef>

#include "onnx/model.h"

namespace openhtp::onnx_import {

// True when `v` has a static shape with a zero dimension.
bool is_empty_value(const ValueInfo& v);

// Returns the number of nodes removed or rewritten.
size_t set_aside_empty_values(Model* model);

}  // namespace openhtp::onnx_import
