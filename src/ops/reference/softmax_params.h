// What Softmax and LogSoftmax take alike: one FLOAT_32 input (after the type
// adapter) of rank 1 to 5, an output of its shape, `axis` (< rank) and
// `beta` (FLOAT_32, default 1). Softmax's axis defaults to the last one;
// LogSoftmax's is mandatory.
#pragma once

#include <cstddef>

#include "ops/op.h"

namespace openhtp::ops::detail {

// The input seen as [outer, len, inner]: the softmax runs over `len`
// elements `inner` apart, scaled by beta.
struct SoftmaxShape {
  size_t outer = 0, len = 0, inner = 0;
  float beta = 1.0f;
};

// The node's tensors and parameters checked and read; the first broken rule.
Status read_softmax_node(const NodeDesc& node, bool axis_defaults_to_last, SoftmaxShape* out);

}  // namespace openhtp::ops::detail
