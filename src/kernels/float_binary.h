// The FLOAT_32 element-wise binary operations no library takes — FloorDiv,
// Fmod, Mod, Power (other than its vectorized exponents), the six
// comparisons (BOOL_8 out), And/Or/Xor (FLOAT_32 or BOOL_8 in), and Maximum/
// Minimum under a broadcast the dense loops do not cover — as plain loops
// over the broadcast's runs, split over the graph's pool.
//
// Each element is the reference's own function of its two inputs
// (ops/reference/binary_fns.h, or the same one-operator expression), so the
// result is the reference's bit for bit; what changes is the walk: the
// reference steps an odometer per row of its innermost output axis and
// calls its function through strided reads, on one thread. Here the
// broadcast is collapsed to the fewest, longest runs (broadcast_runs.h:
// [1,H,W,C] against [1,1,1,C] is one row of C down H*W rows), each run is a
// loop specialised on its strides (both dense, one side one value), which
// GCC vectorizes for the one-operator expressions, and the output is cut
// into tiles over the pool (cheap expressions from kCheapMin elements,
// libm-bound ones — fmod, pow — from kCostlyMin).
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::f32 {

// ElementWiseBinary (by its `operation`), the standalone forms
// (ElementWiseFloorDiv, ElementWiseEqual, ...) and ElementWiseMaximum/
// Minimum. Declines integer types and anything the reference refuses.
bool prepare_binary_loop(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::f32
