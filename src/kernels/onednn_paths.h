// The oneDNN fast paths (fast_paths.cpp lists them). FLOAT_32, plus 8-bit
// convolutions where the CPU has VNNI: without it oneDNN's int8 kernels
// saturate, so prepare_conv2d_int8 declines unless
// onednn::int8_convolution_exact() (onednn_runtime.h) holds.
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::onednn {

bool prepare_conv2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);  // + DepthWiseConv2d
// Conv2d / DepthWiseConv2d, u8/s8 activations, symmetric s8 weights.
bool prepare_conv2d_int8(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_fully_connected(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_matmul(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::onednn
