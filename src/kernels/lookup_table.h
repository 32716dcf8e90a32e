// Pointwise ops on 8-bit quantized tensors as a 256-entry lookup table.
//
// A unary pointwise op (Relu, ReluMinMax, Sigmoid, Tanh, Gelu, HardSwish,
// ElementWiseNeuron, ElementWiseUnary, Convert, Dequantize) whose input is
// UFIXED/SFIXED_POINT_8 with a per-tensor encoding has only 256 possible
// inputs. At prepare, the reference kernel (through the type adapter) is run
// once on all of them and its outputs kept; run() is then one load per
// element. The table *is* the reference's answer, so the fast path matches the
// golden model bit for bit by construction.
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::kernels::lut {

bool prepare_unary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::lut
