// quant::to_float / from_float over the graph's pool: one contiguous share
// per thread from kShareMinElems elements (threads/shares.h), the way the
// kernels before and after a conversion split their work, so each thread
// converts what its own core's cache holds. The type adapter converts its
// inputs and outputs so; the Convert/Dequantize fast path
// (kernels/convert_shares.h) is the same two calls.
#pragma once

#include <pthreadpool.h>

#include "ops/op.h"

namespace openhtp::ops::quant {

void to_float_in_shares(const TensorDesc& t, const void* src, float* dst, pthreadpool_t pool);
void from_float_in_shares(const TensorDesc& t, const float* src, void* dst, pthreadpool_t pool);

}  // namespace openhtp::ops::quant
