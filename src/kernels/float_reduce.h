// fp32 ReduceMean over one contiguous block of axes (reduce_layout.h): the
// squeeze-and-excite global average pools of EfficientNet-style models and
// the means of a decomposed LayerNorm, which ran on the single-threaded
// reference (4.3 of EfficientNet-B0's 23 ms fp32). Sums in float, vectorized
// along the inner axis; split over the graph's pool by outer slices or inner
// columns. Within float rounding of the reference's double sums.
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::f32 {

bool prepare_reduce_mean(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::f32
