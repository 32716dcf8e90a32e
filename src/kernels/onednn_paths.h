// The oneDNN fast paths (fast_paths.cpp lists them). All FLOAT_32 only:
// oneDNN's int8 kernels saturate on AVX2 without VNNI and are never used.
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::onednn {

bool prepare_conv2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);  // + DepthWiseConv2d
bool prepare_fully_connected(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_matmul(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::onednn
