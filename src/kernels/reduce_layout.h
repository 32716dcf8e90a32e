// A reduction's input seen as [outer, reduced, inner]: what the fast
// ReduceMean paths (8-bit and fp32) take — the reduced axes, size-1 axes
// ignored, must be one contiguous block (a global average pool over H, W of
// NHWC; the last axis of a LayerNorm).
#pragma once

#include <cstddef>

#include "ops/op.h"

namespace openhtp::kernels {

struct ReduceLayout {
  size_t outer = 1, reduced = 1, inner = 1;
};

// False when the node's `axes` are missing, out of range, or not one block.
bool contiguous_reduce_layout(const ops::NodeDesc& node, ReduceLayout* layout);

}  // namespace openhtp::kernels
