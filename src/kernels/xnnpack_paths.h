// The XNNPACK fast paths other than convolution (fast_paths.cpp lists them).
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::xnn {

bool prepare_fully_connected(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);      // qu8, qc8
bool prepare_fully_connected_f32(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);  // bench only
bool prepare_pool_max2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_pool_avg2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// Binary element-wise ops (xnnpack_binary.cpp): f32 (f16 for add and
// multiply, qu8 for add), numpy broadcasting.
bool prepare_add(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_multiply(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_subtract(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_divide(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_squared_difference(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// Dense f32 only: the reference's NaN-propagating expression, vectorized.
bool prepare_maximum(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_minimum(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_elementwise_binary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// FLOAT_32 activations and unary ops (xnnpack_unary.cpp), any of the op
// types fast_paths.cpp lists for it, and FLOAT_16 ones for the exact loops
// (the clamps, Abs, Neg, Sign, Reciprocal, hard sigmoid); declines the
// operations it lacks.
bool prepare_unary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// f32 Power with a static scalar exponent: 2 (a decomposed LayerNorm's
// variance) as x * x, the correctly rounded square; other whole exponents up
// to kMaxWholePower and +-0.5 as float_transcendental.h says. Each within an
// ulp of the reference's powf, which is not always correctly rounded.
bool prepare_power_f32(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// f32 Softmax along the last axis, beta 1 (xnnpack_softmax.cpp).
bool prepare_softmax_f32(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// Transpose of 1/2/4/8-byte elements without requantization
// (xnnpack_transpose.cpp).
bool prepare_transpose(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::xnn
