// Convert (float-like to float-like: FLOAT_32, FLOAT_16, fixed point, per
// tensor or per channel) and Dequantize (fixed point to FLOAT_32/FLOAT_16)
// with the reference's own conversions (ops/quant.h to_float/from_float),
// split over the graph's pool in one contiguous share per thread from
// kShareMinElems elements (threads/shares.h: the way the producer's threads
// wrote the input, as the type adapter splits the same conversions).
//
// The reference converts the whole tensor on one thread through a float
// copy it allocates at prepare and keeps for the graph's life; here that
// copy, when one is needed (neither side FLOAT_32), is the kernel's
// workspace, planned with the graph's other scratch. Every element goes
// through the same two functions: bit-exact. 8-bit inputs take a table of
// the reference's answers first (lookup_table.h).
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels {

bool prepare_convert(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels
