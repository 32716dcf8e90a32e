// Shared rules of the type-generic data-movement ops (Transpose, Concat,
// Split, StridedSlice, Gather, Pad, Reshape) and the type-conversion ops
// (Quantize, Dequantize, Convert, Cast). The encoding decision they share is
// explained at the top of data_movement.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
// in[0] and out[0] of a one-input data-movement op (in[0] labelled with
// `in_role`): check_generic_tensor on both, then check_movable between them.
Status check_moved_io(const NodeDesc& node, std::string_view in_role, bool* requantize);
// from's elements at src -> to's type and encoding at dst; scratch holds
// from.num_elements() floats. Between 8-bit encodings, large tensors go
// through a table of the float route's 256 answers (the same codes).
void requantize(const TensorDesc& from, const TensorDesc& to, const void* src, void* dst, float* scratch);
// A description with shape_of's dims and type_of's type and encoding.
TensorDesc retyped(const TensorDesc& shape_of, const TensorDesc& type_of);

// The output side of a kernel that moves source elements into out: with
// `requant` false (check_movable said bit for bit) the elements go straight
// into out; otherwise they are staged in the source's type (out's dims) and
// finish() requantizes the whole staged tensor into out's type and encoding.
// Owns the staging buffers, sized once at prepare.
class RequantizedOutput {
 public:
  RequantizedOutput(bool requant, const TensorDesc& source, const TensorDesc& out);

  // Where the moved bytes go for output buffer `out`.
  uint8_t* target(void* out) { return requant_ ? bytes_.data() : static_cast<uint8_t*>(out); }
  // After the move: requantizes the staged bytes into `out` (nothing when
  // the move was bit for bit).
  void finish(void* out) {
    if (requant_) requantize(moved_, out_, bytes_.data(), out, floats_.data());
  }

 private:
  bool requant_;
  TensorDesc moved_, out_;  // out's dims in the source's type; out itself
  std::vector<uint8_t> bytes_;
  std::vector<float> floats_;
};

}  // namespace openhtp::ops::detail
