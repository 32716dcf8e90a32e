// ElementWiseSelect (y = cond ? a : b, numpy broadcasting over all three)
// when no value needs requantizing — a and b in out[0]'s type and encoding,
// as ONNX Where's graphs have them — for 1-, 2-, 4- and 8-byte elements.
//
// The reference walks an odometer and copies one element's bytes per
// output; here the three-way broadcast is collapsed to the fewest runs
// (broadcast_runs.h: an attention mask [1,1,S,S] over scores [B,H,S,S] is
// B*H runs of S*S with the mask's offset held), each run a typed loop
// specialised for the common strides (everything dense; a dense condition
// with one side one value, as Where(mask, x, -inf)), and the output cut
// into tiles on the graph's pool. It only moves the bytes the reference
// moves: bit-exact.
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels {

bool prepare_select(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels
