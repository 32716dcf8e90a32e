// Shared rules of the type-generic data-movement ops (Transpose, Concat,
// Split, StridedSlice, Gather, Pad, Reshape) and the type-conversion ops
// (Quantize, Dequantize, Convert, Cast). The encoding decision they share is
// explained at the top of data_movement.cpp.
#pragma once

#include <string>

#include "ops/op.h"

namespace openhtp::ops::detail {

// A tensor of a type-conversion op: present, a known fixed-size type, no
// zero dims, within the element limit (any data type).
Status check_plain_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label);
// As check_plain_tensor, plus a usable encoding for fixed point and no
// per-channel encoding (moving elements would separate them from their scale).
Status check_generic_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label);
// Elements may move from `from` to `to`: bit for bit when type and encoding
// agree (*requantize = false), through float when both are float-like
// (*requantize = true); integer/bool types must match exactly.
Status check_movable(const NodeDesc& node, const TensorDesc& from, const std::string& from_label,
                     const TensorDesc& to, const std::string& to_label, bool* requantize);
// from's elements at src -> to's type and encoding at dst; scratch holds
// from.num_elements() floats.
void requantize(const TensorDesc& from, const TensorDesc& to, const void* src, void* dst, float* scratch);
// A description with shape_of's dims and type_of's type and encoding.
TensorDesc retyped(const TensorDesc& shape_of, const TensorDesc& type_of);

}  // namespace openhtp::ops::detail
