// Shared rules of the type-generic data-movement ops (Transpose, Concat,
// Split, StridedSlice, Gather, Pad, Reshape); check_plain_tensor also serves
// the type-conversion ops (Quantize, Dequantize, Convert, Cast).
//
// These ops are not wrapped by the type adapter: they see the real data types
// and move elements by their byte size, so an UFIXED_POINT_8 tensor moves as
// bytes and an INT_32 one as 4-byte words, with no rounding anywhere.
//
// The decision on encodings: when a source and a destination tensor have the
// same data type and (for fixed point) the same per-tensor encoding, elements
// are copied bit for bit. When both are float-like (FLOAT_32, FLOAT_16 or
// fixed point) but differ in type or encoding, the moved values are
// requantized through float (quant::to_float then quant::from_float: round
// half to even, saturating), so the real values are preserved as closely as
// the destination encoding allows. Plain integer and bool tensors must match
// exactly: there is no encoding to translate between them (use Cast).
// Per-channel encodings are refused: moving elements would move the channel
// axis away from the channel each scale belongs to.
#include "ops/reference/data_movement.h"

#include <string>

#include "ops/op_defs.h"
#include "ops/quant.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

bool float_like(uint32_t dt) {
  return dt == dtype::kFloat32 || dt == dtype::kFloat16 || quant::is_fixed_point(dt);
}

bool same_encoding(const Quant& a, const Quant& b) {
  return a.scale == b.scale && a.offset == b.offset;
}

}  // namespace

Status check_plain_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  if (!t.present) return invalid(node, label, " is mandatory but absent (NULL tensor)");
  if (dtype::element_size(t.dtype) == 0) {
    return invalid(node, label, " has unknown data type 0x", std::hex, t.dtype);
  }
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (t.dims[i] == 0) {
      return invalid(node, label, " dim ", i, " is 0, expected >= 1 (empty or dynamic dims are not allowed)");
    }
  }
  uint64_t n = 0;
  if (!checked_num_elements(t.dims, &n) || n > kMaxElements) {
    return unsupported(node, label, " dims ", dims_str(t.dims), " hold more than ", kMaxElements, " elements");
  }
  return Status::Ok();
}

Status check_generic_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  if (Status s = check_plain_tensor(node, t, label); !s.ok()) return s;
  if (quant::is_fixed_point(t.dtype)) {
    if (std::string why = quant::check_encoding(t); !why.empty()) return invalid(node, label, " ", why);
    if (t.quant.per_channel()) {
      return unsupported(node, label, " has a per-channel encoding (axis ", t.quant.axis,
                         "); data movement supports per-tensor encodings only");
    }
  }
  return Status::Ok();
}

Status check_movable(const NodeDesc& node, const TensorDesc& from, const std::string& from_label,
                     const TensorDesc& to, const std::string& to_label, bool* requantize) {
  *requantize = false;
  if (from.dtype == to.dtype) {
    *requantize = quant::is_fixed_point(from.dtype) && !same_encoding(from.quant, to.quant);
    return Status::Ok();
  }
  if (float_like(from.dtype) && float_like(to.dtype)) {
    *requantize = true;
    return Status::Ok();
  }
  return invalid(node, to_label, " data type is ", dtype::name(to.dtype), ", expected ",
                 dtype::name(from.dtype), " as ", from_label, " (data movement does not convert integer types)");
}

Status check_moved_io(const NodeDesc& node, std::string_view in_role, bool* requantize) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, in_role)); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  return check_movable(node, x, in_label(0, in_role), y, out_label(0), requantize);
}

void requantize(const TensorDesc& from, const TensorDesc& to, const void* src, void* dst, float* scratch) {
  const size_t n = from.num_elements();
  // 8-bit to 8-bit (per-tensor, as data movement requires): the float route
  // for each of the 256 codes, once, then one lookup an element — the same
  // codes, since the table is that route's own answers. A uint8 LLM decode
  // step's KV-cache Concats requantize this way. Below a few thousand
  // elements the table costs more than it saves.
  constexpr size_t kTableFrom = 4096;
  const bool bytes = dtype::element_size(from.dtype) == 1 && dtype::element_size(to.dtype) == 1 &&
                     quant::is_fixed_point(from.dtype) && quant::is_fixed_point(to.dtype);
  if (bytes && n >= kTableFrom) {
    uint8_t codes[256], table[256];
    float values[256];
    for (int c = 0; c < 256; ++c) codes[c] = static_cast<uint8_t>(c);
    TensorDesc from256 = from, to256 = to;
    from256.dims = to256.dims = {256};
    quant::to_float(from256, codes, values);
    quant::from_float(to256, values, table);
    const auto* in = static_cast<const uint8_t*>(src);
    auto* out = static_cast<uint8_t*>(dst);
    for (size_t i = 0; i < n; ++i) out[i] = table[in[i]];
    return;
  }
  quant::to_float(from, src, scratch);
  quant::from_float(to, scratch, dst);
}

TensorDesc retyped(const TensorDesc& shape_of, const TensorDesc& type_of) {
  TensorDesc t;
  t.dtype = type_of.dtype;
  t.quant = type_of.quant;
  t.dims = shape_of.dims;
  return t;
}

RequantizedOutput::RequantizedOutput(bool requant, const TensorDesc& source, const TensorDesc& out)
    : requant_(requant), moved_(retyped(out, source)), out_(out) {
  if (requant_) {
    bytes_.resize(moved_.num_bytes());
    floats_.resize(moved_.num_elements());
  }
}

}  // namespace openhtp::ops::detail
