// Cast: numeric conversion between INT/UINT 8..64, FLOAT_16/32/64, BFLOAT_16
// and BOOL_8,
// ignoring quantization parameters (a fixed-point tensor is read and written
// as the plain integer of its width and signedness: UFIXED_POINT_8 as UINT_8).
//   float -> integer  truncates toward zero (C / ONNX Cast). Out-of-range
//                     values are undefined in C and ONNX; here they saturate
//                     to the type's range, and NaN becomes 0, so run() has a
//                     defined result for every input.
//   integer -> integer wraps modulo 2^bits (two's complement), as C, numpy
//                     and ONNX do for narrowing integer casts.
//   any -> BOOL_8     1 when the value is non-zero (NaN counts as non-zero).
//   BOOL_8 -> any     0 or 1.
//   -> FLOAT_16/32/64, BFLOAT_16
//                     nearest representable value (round half to even; NaN
//                     stays NaN, as ONNX Cast and numpy do).
#include <cmath>
#include <cstring>

#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

enum class Kind { kSigned, kUnsigned, kFloat16, kBfloat16, kFloat32, kFloat64, kBool };

struct TypeInfo {
  Kind kind;
  size_t bytes;
};

// The plain numeric type a QNN data type is cast as; false if none.
bool numeric_type(uint32_t dt, TypeInfo* info) {
  switch (dt) {
    case dtype::kInt8: case dtype::kSfixed8: *info = {Kind::kSigned, 1}; return true;
    case dtype::kInt16: case dtype::kSfixed16: *info = {Kind::kSigned, 2}; return true;
    case dtype::kInt32: case dtype::kSfixed32: *info = {Kind::kSigned, 4}; return true;
    case dtype::kInt64: *info = {Kind::kSigned, 8}; return true;
    case dtype::kUint8: case dtype::kUfixed8: *info = {Kind::kUnsigned, 1}; return true;
    case dtype::kUint16: case dtype::kUfixed16: *info = {Kind::kUnsigned, 2}; return true;
    case dtype::kUint32: case 0x0432 /* UFIXED_POINT_32 */: *info = {Kind::kUnsigned, 4}; return true;
    case dtype::kUint64: *info = {Kind::kUnsigned, 8}; return true;
    case dtype::kFloat16: *info = {Kind::kFloat16, 2}; return true;
    case dtype::kFloat32: *info = {Kind::kFloat32, 4}; return true;
    case dtype::kFloat64: *info = {Kind::kFloat64, 8}; return true;
    case dtype::kBfloat16: *info = {Kind::kBfloat16, 2}; return true;
    case dtype::kBool8: *info = {Kind::kBool, 1}; return true;
    default: return false;
  }
}

// One element's value: integers exactly (int64 and uint64 both fit an
// __int128), floats as double.
struct Value {
  bool is_float = false;
  double f = 0.0;
  __int128 i = 0;
  bool nonzero() const { return is_float ? f != 0.0 : i != 0; }
};

// double -> float rounding toward zero with the lowest bit set when bits
// were dropped ("round to odd"): a following float -> bfloat16 rounding
// then gives the same result as one direct rounding of the double, which a
// plain double -> float -> bfloat16 chain does not (it can round twice).
float to_float_round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= 1u;
  std::memcpy(&f, &u, 4);
  return f;
}

Value load(const TypeInfo& t, const uint8_t* p) {
  Value v;
  switch (t.kind) {
    case Kind::kFloat32: {
      float f;
      std::memcpy(&f, p, 4);
      v.is_float = true;
      v.f = f;
      return v;
    }
    case Kind::kFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      v.is_float = true;
      v.f = quant::half_to_float(h);
      return v;
    }
    case Kind::kFloat64: {
      v.is_float = true;
      std::memcpy(&v.f, p, 8);
      return v;
    }
    case Kind::kBfloat16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      v.is_float = true;
      v.f = quant::bfloat16_to_float(b);
      return v;
    }
    case Kind::kBool: v.i = *p != 0; return v;
    case Kind::kUnsigned: {
      uint64_t u = 0;
      std::memcpy(&u, p, t.bytes);  // little-endian: the low bytes
      v.i = u;
      return v;
    }
    case Kind::kSigned: {
      uint64_t u = 0;
      std::memcpy(&u, p, t.bytes);
      const unsigned shift = 64 - 8 * static_cast<unsigned>(t.bytes);
      v.i = static_cast<int64_t>(u << shift) >> shift;  // sign-extend
      return v;
    }
  }
  return v;
}

void store(const TypeInfo& t, const Value& v, uint8_t* p) {
  switch (t.kind) {
    case Kind::kFloat32: {
      const float f = v.is_float ? static_cast<float>(v.f) : static_cast<float>(v.i);
      std::memcpy(p, &f, 4);
      return;
    }
    case Kind::kFloat16: {
      const float f = v.is_float ? static_cast<float>(v.f) : static_cast<float>(v.i);
      const uint16_t h = quant::float_to_half(f);
      std::memcpy(p, &h, 2);
      return;
    }
    case Kind::kFloat64: {
      const double d = v.is_float ? v.f : static_cast<double>(v.i);
      std::memcpy(p, &d, 8);
      return;
    }
    case Kind::kBfloat16: {
      const double d = v.is_float ? v.f : static_cast<double>(v.i);
      const uint16_t b = quant::float_to_bfloat16(to_float_round_to_odd(d));
      std::memcpy(p, &b, 2);
      return;
    }
    case Kind::kBool: *p = v.nonzero() ? 1 : 0; return;
    case Kind::kSigned:
    case Kind::kUnsigned: {
      const unsigned bits = 8 * static_cast<unsigned>(t.bytes);
      __int128 i;
      if (v.is_float) {
        const __int128 lo = t.kind == Kind::kSigned ? -(__int128{1} << (bits - 1)) : 0;
        const __int128 hi = t.kind == Kind::kSigned ? (__int128{1} << (bits - 1)) - 1 : (__int128{1} << bits) - 1;
        const double tr = std::trunc(v.f);
        if (std::isnan(tr)) {
          i = 0;
        } else if (tr <= static_cast<double>(lo)) {
          i = lo;
        } else if (tr >= static_cast<double>(hi)) {
          i = hi;
        } else {
          i = static_cast<__int128>(tr);
        }
      } else {
        i = v.i;  // the low `bits` bits are stored: modulo 2^bits
      }
      const uint64_t u = static_cast<uint64_t>(i);
      std::memcpy(p, &u, t.bytes);
      return;
    }
  }
}

class CastKernel final : public OpKernel {
 public:
  CastKernel(TypeInfo from, TypeInfo to, size_t n) : from_(from), to_(to), n_(n) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    auto* dst = static_cast<uint8_t*>(out[0]);
    if (from_.bytes == to_.bytes && from_.kind == to_.kind) {
      std::memmove(dst, src, n_ * from_.bytes);
      return;
    }
    for (size_t i = 0; i < n_; ++i) store(to_, load(from_, src + i * from_.bytes), dst + i * to_.bytes);
  }

 private:
  TypeInfo from_, to_;
  size_t n_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  TypeInfo from, to;
  if (!numeric_type(x.dtype, &from)) {
    return unsupported(node, "in[0] data type ", dtype::name(x.dtype), " cannot be cast");
  }
  if (!numeric_type(y.dtype, &to)) {
    return unsupported(node, "out[0] data type ", dtype::name(y.dtype), " cannot be cast to");
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<CastKernel>(from, to, x.num_elements());
  return Status::Ok();
}

}  // namespace

OpDef cast_def() { return {"Cast", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
