// The XNNPACK fast paths other than convolution (fast_paths.cpp lists them).
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::xnn {

bool prepare_fully_connected(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);      // qu8, qc8
bool prepare_fully_connected_f32(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);  // bench only
bool prepare_pool_max2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_pool_avg2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_add(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::xnn
