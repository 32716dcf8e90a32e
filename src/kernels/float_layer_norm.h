// fp32 LayerNorm and RmsNorm over a block of trailing axes (a transformer's
// norms; the converter emits them channel-last): the reference's arithmetic
// (ops/trailing_norm.h), vectorized and split over the graph's pool by rows,
// bit-exact with the reference. The transformer encoder's four LayerNorms
// (128 x 256) ran on the single-threaded reference at ~0.05 ms each, 8 % of
// the graph at one thread (docs/performance.md, session 14).
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::f32 {

bool prepare_layer_norm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_rms_norm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::f32
