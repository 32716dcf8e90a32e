// Element-wise binary ops with numpy-style broadcasting: ElementWiseAdd,
// Subtract, Multiply, Divide, Maximum, Minimum, the generic ElementWiseBinary
// (20 operations, comparisons and logic included), its standalone forms
// (ElementWiseEqual, ElementWisePower, ...: see kStandalone) and Prelu. They
// all share one broadcasting kernel; what differs is the per-element function
// and the tensor types.
//
// These are kAdaptTypes ops, so float-like tensors (FLOAT_16, fixed point)
// arrive here as FLOAT_32; BOOL_8 tensors (comparison/logical outputs,
// logical inputs) pass through the adapter unchanged and are 0/1 bytes.
//
// Plain integer tensors (INT_8/16/32, UINT_8/16/32) also pass through the
// adapter unchanged, and are computed natively rather than in float: int32
// does not fit a float's 24-bit mantissa, and integer Divide/Mod differ from
// their float forms. A node computes in integers when all its data tensors
// are one plain integer type (comparison outputs stay BOOL_8); see
// integer_binary_kernel() for the semantics.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/binary_fns.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

// is_plain_integer / common_integer_type (declared in validate.h) live here,
// beside the integer kernels they select.
bool is_plain_integer(uint32_t dt) {
  switch (dt) {
    case dtype::kInt8: case dtype::kInt16: case dtype::kInt32:
    case dtype::kUint8: case dtype::kUint16: case dtype::kUint32:
      return true;
    default:
      return false;
  }
}

namespace {

bool is_integer_code(uint32_t dt) {
  return is_plain_integer(dt) || dt == dtype::kInt64 || dt == dtype::kUint64;
}

// Float-like types all look like FLOAT_32 here (the type adapter), so name
// the family rather than a type the user may not have given.
std::string type_word(uint32_t dt) { return dt == dtype::kFloat32 ? "a float type" : dtype::name(dt); }

}  // namespace

Status common_integer_type(const NodeDesc& node, size_t n_inputs, bool with_output, uint32_t* int_type) {
  *int_type = 0;
  struct Operand {
    const TensorDesc* t;
    std::string label;
  };
  std::vector<Operand> operands;
  for (size_t i = 0; i < n_inputs && i < node.inputs.size(); ++i) operands.push_back({&node.inputs[i], in_label(i, "")});
  if (with_output && !node.outputs.empty()) operands.push_back({&node.outputs[0], out_label(0)});
  const Operand* first = nullptr;
  for (const Operand& o : operands) {
    if (o.t->present && is_plain_integer(o.t->dtype)) {
      first = &o;
      break;
    }
  }
  if (first == nullptr) return Status::Ok();
  const uint32_t want = first->t->dtype;
  for (const Operand& o : operands) {
    const TensorDesc& t = *o.t;
    // Absent tensors and unknown codes get the usual messages.
    if (!t.present || dtype::element_size(t.dtype) == 0) return check_f32_tensor(node, t, o.label);
    if (t.dtype == want) continue;
    if (is_integer_code(t.dtype)) {
      return invalid(node, o.label, " data type is ", dtype::name(t.dtype), " but ", first->label, " is ",
                     dtype::name(want), ": integer operands must all have the same type");
    }
    // Float with integer: QNN may define some such mixes, this backend does not.
    return unsupported(node, o.label, " data type is ", type_word(t.dtype), " but ", first->label, " is ",
                       dtype::name(want), ": integer operands need every data tensor of that one type");
  }
  // The remaining per-tensor rules (no zero dims, element limit) are the
  // float ones; only the type differs.
  for (const Operand& o : operands) {
    TensorDesc as_float = *o.t;
    as_float.dtype = dtype::kFloat32;
    if (Status s = check_f32_tensor(node, as_float, o.label); !s.ok()) return s;
  }
  *int_type = want;
  return Status::Ok();
}

namespace {

constexpr size_t kMaxRank = 5;       // HTP: rank 1..5
constexpr size_t kPreluMaxRank = 4;  // HTP: Prelu rank <= 4

// Where each output element reads its two inputs: the output dims and, per
// axis, each input's element stride (0 on axes it broadcasts along).
struct Broadcast {
  std::vector<uint32_t> dims;
  std::vector<size_t> a_strides, b_strides;
};

// Walks the output in row-major order. The innermost axis is a plain strided
// loop; the outer axes advance an index counter kept on the stack, so run()
// allocates nothing. A, B, Y are the element types (float, or uint8_t for
// BOOL_8).
template <typename A, typename B, typename Y, typename Fn>
class BroadcastKernel final : public OpKernel {
 public:
  BroadcastKernel(const Broadcast& bc, Fn fn) : rank_(bc.dims.size()), fn_(fn) {
    for (size_t i = 0; i < rank_; ++i) {
      dims_[i] = bc.dims[i];
      a_strides_[i] = bc.a_strides[i];
      b_strides_[i] = bc.b_strides[i];
    }
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const A* a = static_cast<const A*>(in[0]);
    const B* b = static_cast<const B*>(in[1]);
    Y* y = static_cast<Y*>(out[0]);
    const size_t last = rank_ - 1;
    const size_t inner = dims_[last];
    const size_t as = a_strides_[last];
    const size_t bs = b_strides_[last];
    size_t outer = 1;
    for (size_t i = 0; i < last; ++i) outer *= dims_[i];

    std::array<size_t, kMaxRank> idx{};
    size_t a_off = 0, b_off = 0;
    for (size_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < inner; ++k) y[k] = fn_(a[a_off + k * as], b[b_off + k * bs]);
      y += inner;
      // Odometer step over the outer axes, updating both input offsets.
      for (size_t ax = last; ax-- > 0;) {
        a_off += a_strides_[ax];
        b_off += b_strides_[ax];
        if (++idx[ax] < dims_[ax]) break;
        a_off -= a_strides_[ax] * dims_[ax];
        b_off -= b_strides_[ax] * dims_[ax];
        idx[ax] = 0;
      }
    }
  }

 private:
  size_t rank_;
  Fn fn_;
  std::array<size_t, kMaxRank> dims_{};
  std::array<size_t, kMaxRank> a_strides_{};
  std::array<size_t, kMaxRank> b_strides_{};
};

template <typename A, typename B, typename Y, typename Fn>
std::unique_ptr<OpKernel> make_kernel(const Broadcast& bc, Fn fn) {
  return std::make_unique<BroadcastKernel<A, B, Y, Fn>>(bc, fn);
}

// Rank limits, broadcast compatibility and out[0]'s dims; fills *bc.
Status plan_broadcast(const NodeDesc& node, Broadcast* bc) {
  const TensorDesc& a = node.inputs[0];
  const TensorDesc& b = node.inputs[1];
  for (size_t i = 0; i < 2; ++i) {
    if (Status s = check_rank(node, node.inputs[i], in_label(i, ""), 0, kMaxRank,
                              StatusCode::kUnsupported);
        !s.ok())
      return s;
  }
  size_t bad = 0;
  if (!broadcast_shape(a.dims, b.dims, &bc->dims, &bad)) {
    const size_t ai = bad + a.dims.size() - bc->dims.size();
    const size_t bi = bad + b.dims.size() - bc->dims.size();
    return invalid(node, "in[0] dim ", ai, " is ", a.dims[ai], " and in[1] dim ", bi, " is ",
                   b.dims[bi], ": not broadcastable (must be equal or one of them 1)");
  }
  if (bc->dims.empty()) {
    return unsupported(node, "rank-0 (scalar) operands only; output rank must be 1 to ", kMaxRank);
  }
  if (Status s = check_output_dims(node, 0, bc->dims); !s.ok()) return s;
  bc->a_strides = broadcast_strides(a.dims, bc->dims);
  bc->b_strides = broadcast_strides(b.dims, bc->dims);
  return Status::Ok();
}

// BOOL_8 tensors follow the same shape rules as float ones; only the type
// differs, so the float check runs on a copy relabelled FLOAT_32.
Status check_bool_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label,
                         std::string_view why) {
  if (t.present && t.dtype != dtype::kBool8) {
    return invalid(node, label, " data type is ", type_word(t.dtype), ", expected BOOL_8: ", why);
  }
  TensorDesc as_float = t;
  as_float.dtype = dtype::kFloat32;
  return check_f32_tensor(node, as_float, label);
}

// --- ElementWiseBinary operations (the `operation` parameter's values) ---

using binary_fns::BinaryOp;
using binary_fns::kNumBinaryOps;
constexpr std::string_view kBinaryOpNames[kNumBinaryOps] = {
    "ADD", "AND", "DIVIDE", "EQUAL", "FLOOR_DIV", "FMOD", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL",
    "MAXIMUM", "MINIMUM", "MOD", "MULTIPLY", "NOT_EQUAL", "OR", "POWER", "SQUARED_DIFFERENCE", "SUBTRACT", "XOR",
};

// Arithmetic: float -> float. Comparison: float -> BOOL_8. Logical: BOOL_8 or
// float (non-zero is true) -> BOOL_8.
enum class OpKind { kArithmetic, kComparison, kLogical };

OpKind kind_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEqual: case BinaryOp::kNotEqual: case BinaryOp::kGreater:
    case BinaryOp::kGreaterEqual: case BinaryOp::kLess: case BinaryOp::kLessEqual:
      return OpKind::kComparison;
    case BinaryOp::kAnd: case BinaryOp::kOr: case BinaryOp::kXor:
      return OpKind::kLogical;
    default:
      return OpKind::kArithmetic;
  }
}

using binary_fns::floor_div;
using binary_fns::floor_mod;
using binary_fns::nan_max;
using binary_fns::nan_min;

// --- integer operations ---
//
// Values are widened to 64 bits and the result stored with C / numpy
// wrap-around (modulo 2^bits): uint8 200 + 100 = 44, as numpy and ONNX give.
// Add, Subtract, Multiply, SquaredDifference and Power wrap in uint64 (where
// wrapping is defined) and keep the low bits, which are the same for signed
// and unsigned types. Division-like operations work in int64, which holds
// every value of the six types exactly.
//
// Division by zero (Divide, FloorDiv, Mod, Fmod) gives 0: run() cannot fail,
// and numpy's integer division by zero also gives 0 (with a warning).

// The low bits of v as T (modular since C++20 for signed T too).
template <typename T>
T wrap(uint64_t v) {
  return static_cast<T>(v);
}

// Truncates toward zero, as C and ONNX Div on integers do. int64 so that
// INT32_MIN / -1 = 2^31 is exact before it wraps back to INT32_MIN.
template <typename T>
T int_divide(T a, T b) {
  if (b == 0) return 0;
  return wrap<T>(static_cast<uint64_t>(int64_t{a} / int64_t{b}));
}

// Remainder with the sign of the dividend (C %, std::fmod, ONNX Mod fmod=1).
template <typename T>
T int_fmod(T a, T b) {
  if (b == 0) return 0;
  return static_cast<T>(int64_t{a} % int64_t{b});
}

// Remainder with the sign of the divisor (numpy mod, Python %, ONNX Mod fmod=0).
template <typename T>
T int_floor_mod(T a, T b) {
  if (b == 0) return 0;
  const int64_t y = b;
  int64_t m = int64_t{a} % y;
  if (m != 0 && ((m < 0) != (y < 0))) m += y;
  return static_cast<T>(m);
}

// Quotient rounded toward negative infinity (numpy floor_divide, Python //).
template <typename T>
T int_floor_div(T a, T b) {
  if (b == 0) return 0;
  const int64_t x = a, y = b;
  int64_t q = x / y;
  if (x % y != 0 && ((x < 0) != (y < 0))) q -= 1;
  return wrap<T>(static_cast<uint64_t>(q));
}

// Integer exponentiation by squaring, wrapping like repeated multiplication.
// A negative exponent has no integer result in general: numpy refuses it, and
// run() cannot fail, so it is defined as the true value 1 / a^|b| truncated
// toward zero: 1 for a = 1, +-1 for a = -1 (by the exponent's parity), and 0
// otherwise (including a = 0, like division by zero above).
template <typename T>
T int_power(T a, T b) {
  const int64_t x = a, y = b;
  if (y < 0) {
    if (x == 1) return 1;
    if (x == -1) return y % 2 == 0 ? 1 : wrap<T>(static_cast<uint64_t>(x));
    return 0;
  }
  uint64_t base = static_cast<uint64_t>(x);
  uint64_t e = static_cast<uint64_t>(y);
  uint64_t result = 1;
  while (e != 0) {
    if (e & 1) result *= base;
    base *= base;
    e >>= 1;
  }
  return wrap<T>(result);
}

template <typename T>
uint64_t widen(T v) {
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}

// ElementWiseBinary's arithmetic operations (and the typed ops) on T.
template <typename T>
std::unique_ptr<OpKernel> integer_arithmetic_kernel(BinaryOp op, const Broadcast& bc) {
  switch (op) {
    case BinaryOp::kAdd: return make_kernel<T, T, T>(bc, [](T a, T b) { return wrap<T>(widen(a) + widen(b)); });
    case BinaryOp::kSubtract: return make_kernel<T, T, T>(bc, [](T a, T b) { return wrap<T>(widen(a) - widen(b)); });
    case BinaryOp::kMultiply: return make_kernel<T, T, T>(bc, [](T a, T b) { return wrap<T>(widen(a) * widen(b)); });
    case BinaryOp::kDivide: return make_kernel<T, T, T>(bc, int_divide<T>);
    case BinaryOp::kMaximum: return make_kernel<T, T, T>(bc, [](T a, T b) { return a > b ? a : b; });
    case BinaryOp::kMinimum: return make_kernel<T, T, T>(bc, [](T a, T b) { return a < b ? a : b; });
    case BinaryOp::kFloorDiv: return make_kernel<T, T, T>(bc, int_floor_div<T>);
    case BinaryOp::kFmod: return make_kernel<T, T, T>(bc, int_fmod<T>);
    case BinaryOp::kMod: return make_kernel<T, T, T>(bc, int_floor_mod<T>);
    case BinaryOp::kPower: return make_kernel<T, T, T>(bc, int_power<T>);
    case BinaryOp::kSquaredDifference:
      return make_kernel<T, T, T>(bc, [](T a, T b) {
        const uint64_t d = widen(a) - widen(b);
        return wrap<T>(d * d);
      });
    default: return nullptr;
  }
}

template <typename T>
std::unique_ptr<OpKernel> integer_comparison_kernel(BinaryOp op, const Broadcast& bc) {
  using Bool = uint8_t;
  switch (op) {
    case BinaryOp::kEqual: return make_kernel<T, T, Bool>(bc, [](T a, T b) -> Bool { return a == b; });
    case BinaryOp::kNotEqual: return make_kernel<T, T, Bool>(bc, [](T a, T b) -> Bool { return a != b; });
    case BinaryOp::kGreater: return make_kernel<T, T, Bool>(bc, [](T a, T b) -> Bool { return a > b; });
    case BinaryOp::kGreaterEqual: return make_kernel<T, T, Bool>(bc, [](T a, T b) -> Bool { return a >= b; });
    case BinaryOp::kLess: return make_kernel<T, T, Bool>(bc, [](T a, T b) -> Bool { return a < b; });
    case BinaryOp::kLessEqual: return make_kernel<T, T, Bool>(bc, [](T a, T b) -> Bool { return a <= b; });
    default: return nullptr;
  }
}

template <typename In>
std::unique_ptr<OpKernel> logical_kernel(BinaryOp op, const Broadcast& bc);

// The kernel for one BinaryOp on plain integer type `int_type`.
std::unique_ptr<OpKernel> integer_binary_kernel(BinaryOp op, uint32_t int_type, const Broadcast& bc) {
  auto make = [&](auto zero) -> std::unique_ptr<OpKernel> {
    using T = decltype(zero);
    switch (kind_of(op)) {
      case OpKind::kArithmetic: return integer_arithmetic_kernel<T>(op, bc);
      case OpKind::kComparison: return integer_comparison_kernel<T>(op, bc);
      case OpKind::kLogical: return logical_kernel<T>(op, bc);
    }
    return nullptr;
  };
  switch (int_type) {
    case dtype::kInt8: return make(int8_t{});
    case dtype::kInt16: return make(int16_t{});
    case dtype::kInt32: return make(int32_t{});
    case dtype::kUint8: return make(uint8_t{});
    case dtype::kUint16: return make(uint16_t{});
    case dtype::kUint32: return make(uint32_t{});
    default: return nullptr;
  }
}

std::unique_ptr<OpKernel> arithmetic_kernel(BinaryOp op, const Broadcast& bc) {
  using F = float;
  switch (op) {
    case BinaryOp::kAdd: return make_kernel<F, F, F>(bc, [](F a, F b) { return a + b; });
    case BinaryOp::kSubtract: return make_kernel<F, F, F>(bc, [](F a, F b) { return a - b; });
    case BinaryOp::kMultiply: return make_kernel<F, F, F>(bc, [](F a, F b) { return a * b; });
    case BinaryOp::kDivide: return make_kernel<F, F, F>(bc, [](F a, F b) { return a / b; });
    case BinaryOp::kMaximum: return make_kernel<F, F, F>(bc, nan_max);
    case BinaryOp::kMinimum: return make_kernel<F, F, F>(bc, nan_min);
    case BinaryOp::kFloorDiv: return make_kernel<F, F, F>(bc, floor_div);
    case BinaryOp::kFmod: return make_kernel<F, F, F>(bc, [](F a, F b) { return std::fmod(a, b); });
    case BinaryOp::kMod: return make_kernel<F, F, F>(bc, floor_mod);
    case BinaryOp::kPower: return make_kernel<F, F, F>(bc, [](F a, F b) { return std::pow(a, b); });
    case BinaryOp::kSquaredDifference:
      return make_kernel<F, F, F>(bc, [](F a, F b) { return (a - b) * (a - b); });
    default: return nullptr;
  }
}

std::unique_ptr<OpKernel> comparison_kernel(BinaryOp op, const Broadcast& bc) {
  using F = float;
  using Bool = uint8_t;
  switch (op) {
    case BinaryOp::kEqual: return make_kernel<F, F, Bool>(bc, [](F a, F b) -> Bool { return a == b; });
    case BinaryOp::kNotEqual: return make_kernel<F, F, Bool>(bc, [](F a, F b) -> Bool { return a != b; });
    case BinaryOp::kGreater: return make_kernel<F, F, Bool>(bc, [](F a, F b) -> Bool { return a > b; });
    case BinaryOp::kGreaterEqual: return make_kernel<F, F, Bool>(bc, [](F a, F b) -> Bool { return a >= b; });
    case BinaryOp::kLess: return make_kernel<F, F, Bool>(bc, [](F a, F b) -> Bool { return a < b; });
    case BinaryOp::kLessEqual: return make_kernel<F, F, Bool>(bc, [](F a, F b) -> Bool { return a <= b; });
    default: return nullptr;
  }
}

// In is float, uint8_t (BOOL_8) or a plain integer; non-zero means true.
template <typename In>
std::unique_ptr<OpKernel> logical_kernel(BinaryOp op, const Broadcast& bc) {
  using Bool = uint8_t;
  switch (op) {
    case BinaryOp::kAnd: return make_kernel<In, In, Bool>(bc, [](In a, In b) -> Bool { return a != 0 && b != 0; });
    case BinaryOp::kOr: return make_kernel<In, In, Bool>(bc, [](In a, In b) -> Bool { return a != 0 || b != 0; });
    case BinaryOp::kXor: return make_kernel<In, In, Bool>(bc, [](In a, In b) -> Bool { return (a != 0) != (b != 0); });
    default: return nullptr;
  }
}

// The typed ops (ElementWiseAdd, ...): no parameters; float in, float out,
// or one plain integer type throughout.
template <BinaryOp Op>
Status prepare_arithmetic(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  uint32_t int_type = 0;
  if (Status s = common_integer_type(node, 2, true, &int_type); !s.ok()) return s;
  if (int_type == 0) {
    static constexpr std::string_view kRoles[] = {"", ""};
    if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  }
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  Broadcast bc;
  if (Status s = plan_broadcast(node, &bc); !s.ok()) return s;
  if (kernel) *kernel = int_type != 0 ? integer_binary_kernel(Op, int_type, bc) : arithmetic_kernel(Op, bc);
  return Status::Ok();
}

// Input/output types of ElementWiseBinary for one operation kind. Sets
// *operand_type to what the kernel computes on: FLOAT_32, BOOL_8 (logical ops
// fed booleans) or a plain integer type.
Status check_binary_types(const NodeDesc& node, BinaryOp op, uint32_t* operand_type) {
  const std::string_view op_name = kBinaryOpNames[static_cast<uint32_t>(op)];
  const OpKind kind = kind_of(op);
  bool bool_inputs = false;
  if (kind == OpKind::kLogical) {
    // Both BOOL_8, or both numbers (quantized inputs reach us as float).
    bool_inputs = node.inputs[0].dtype == dtype::kBool8;
    const bool other = node.inputs[1].dtype == dtype::kBool8;
    if (node.inputs[0].present && node.inputs[1].present && bool_inputs != other) {
      return unsupported(node, "in[0] is ", bool_inputs ? "BOOL_8" : "not BOOL_8", " but in[1] is ",
                         other ? "BOOL_8" : "not BOOL_8", ": operation ", op_name,
                         " needs both inputs BOOL_8 or both numbers");
    }
  } else {
    for (size_t i = 0; i < 2; ++i) {
      if (node.inputs[i].present && node.inputs[i].dtype == dtype::kBool8) {
        return unsupported(node, in_label(i, ""), " data type is BOOL_8; operation ", op_name,
                           " takes float inputs (only AND, OR, XOR take BOOL_8)");
      }
    }
  }
  const TensorDesc& y = node.outputs[0];
  const bool numeric_output = kind == OpKind::kArithmetic;
  if (numeric_output && y.present && y.dtype == dtype::kBool8) {
    return invalid(node, "out[0] data type is BOOL_8, expected a float type: operation ", op_name,
                   " outputs numbers");
  }
  uint32_t int_type = 0;
  if (!bool_inputs) {
    if (Status s = common_integer_type(node, 2, numeric_output, &int_type); !s.ok()) return s;
  }
  if (int_type == 0) {
    for (size_t i = 0; i < 2; ++i) {
      const Status s = bool_inputs ? check_bool_tensor(node, node.inputs[i], in_label(i, ""), "logical input")
                                   : check_f32_tensor(node, node.inputs[i], in_label(i, ""));
      if (!s.ok()) return s;
    }
  }
  *operand_type = bool_inputs ? dtype::kBool8 : int_type != 0 ? int_type : dtype::kFloat32;
  if (numeric_output) return int_type != 0 ? Status::Ok() : check_f32_tensor(node, y, out_label(0));
  return check_bool_tensor(node, y, out_label(0), cat("operation ", op_name, " outputs booleans"));
}

// The rules and kernel of one operation, once the node's inputs, outputs and
// parameters have been counted and read (by the generic op or a standalone one).
Status prepare_binary_op(const NodeDesc& node, BinaryOp op, std::unique_ptr<OpKernel>* kernel) {
  uint32_t operand_type = 0;
  if (Status s = check_binary_types(node, op, &operand_type); !s.ok()) return s;
  const bool bool_inputs = operand_type == dtype::kBool8;
  Broadcast bc;
  if (Status s = plan_broadcast(node, &bc); !s.ok()) return s;
  if (kernel && is_plain_integer(operand_type)) {
    *kernel = integer_binary_kernel(op, operand_type, bc);
  } else if (kernel) {
    switch (kind_of(op)) {
      case OpKind::kArithmetic: *kernel = arithmetic_kernel(op, bc); break;
      case OpKind::kComparison: *kernel = comparison_kernel(op, bc); break;
      case OpKind::kLogical:
        *kernel = bool_inputs ? logical_kernel<uint8_t>(op, bc) : logical_kernel<float>(op, bc);
        break;
    }
  }
  return Status::Ok();
}

// ElementWiseBinary: the operation comes from its `operation` parameter.
Status prepare_elementwise_binary(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"operation"}); !s.ok()) return s;
  uint32_t op_code = 0;
  if (Status s = params.u32_scalar("operation", std::nullopt, &op_code); !s.ok()) return s;
  if (op_code >= kNumBinaryOps) {
    return invalid(node, "parameter 'operation' is ", op_code,
                   ", not an ElementWiseBinary operation (0 ADD .. 19 XOR)");
  }
  return prepare_binary_op(node, static_cast<BinaryOp>(op_code), kernel);
}

// The standalone forms of ElementWiseBinary's operations not covered by the
// typed ops above (ElementWiseAdd .. Minimum keep prepare_arithmetic, which
// has no logical or comparison cases): QNN op type name -> the operation it
// implies.
struct Standalone {
  std::string_view type_name;
  BinaryOp op;
};
constexpr Standalone kStandalone[] = {
    {"ElementWiseAnd", BinaryOp::kAnd},
    {"ElementWiseEqual", BinaryOp::kEqual},
    {"ElementWiseFloorDiv", BinaryOp::kFloorDiv},
    {"ElementWiseFmod", BinaryOp::kFmod},
    {"ElementWiseGreater", BinaryOp::kGreater},
    {"ElementWiseGreaterEqual", BinaryOp::kGreaterEqual},
    {"ElementWiseLess", BinaryOp::kLess},
    {"ElementWiseLessEqual", BinaryOp::kLessEqual},
    {"ElementWiseMod", BinaryOp::kMod},
    {"ElementWiseNotEqual", BinaryOp::kNotEqual},
    {"ElementWiseOr", BinaryOp::kOr},
    {"ElementWisePower", BinaryOp::kPower},
    {"ElementWiseSquaredDifference", BinaryOp::kSquaredDifference},
    {"ElementWiseXor", BinaryOp::kXor},
};

// A standalone op: two inputs, one output, no parameters at all.
template <size_t I>
Status prepare_standalone(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  return prepare_binary_op(node, kStandalone[I].op, kernel);
}

template <size_t... I>
std::vector<OpDef> standalone_defs(std::index_sequence<I...>) {
  return {OpDef{kStandalone[I].type_name, &guarded_prepare<prepare_standalone<I>>, op_flags::kAdaptTypes}...};
}

// Prelu: y = x >= 0 ? x : alpha * x, with the coefficients in[1] broadcast to
// in[0]'s shape (never the other way: the output is in[0]'s shape).
Status prepare_prelu(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"", "coefficients"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& alpha = node.inputs[1];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kPreluMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  std::vector<uint32_t> joint;
  size_t bad = 0;
  if (alpha.dims.size() > x.dims.size() || !broadcast_shape(x.dims, alpha.dims, &joint, &bad) ||
      joint != x.dims) {
    return invalid(node, in_label(1, "coefficients"), " dims ", dims_str(alpha.dims),
                   " do not broadcast to in[0] dims ", dims_str(x.dims),
                   " (each trailing dim must equal in[0]'s or be 1)");
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) {
    Broadcast bc{x.dims, broadcast_strides(x.dims, x.dims), broadcast_strides(alpha.dims, x.dims)};
    // A comparison, not a multiply by a 0/1 mask, so NaN passes through.
    *kernel = make_kernel<float, float, float>(bc, [](float v, float a) { return v < 0.0f ? a * v : v; });
  }
  return Status::Ok();
}

}  // namespace

OpDef elementwise_add_def() {
  return {"ElementWiseAdd", &guarded_prepare<prepare_arithmetic<BinaryOp::kAdd>>, op_flags::kAdaptTypes};
}
OpDef elementwise_multiply_def() {
  return {"ElementWiseMultiply", &guarded_prepare<prepare_arithmetic<BinaryOp::kMultiply>>, op_flags::kAdaptTypes};
}
OpDef elementwise_subtract_def() {
  return {"ElementWiseSubtract", &guarded_prepare<prepare_arithmetic<BinaryOp::kSubtract>>, op_flags::kAdaptTypes};
}
OpDef elementwise_divide_def() {
  return {"ElementWiseDivide", &guarded_prepare<prepare_arithmetic<BinaryOp::kDivide>>, op_flags::kAdaptTypes};
}
OpDef elementwise_maximum_def() {
  return {"ElementWiseMaximum", &guarded_prepare<prepare_arithmetic<BinaryOp::kMaximum>>, op_flags::kAdaptTypes};
}
OpDef elementwise_minimum_def() {
  return {"ElementWiseMinimum", &guarded_prepare<prepare_arithmetic<BinaryOp::kMinimum>>, op_flags::kAdaptTypes};
}
OpDef elementwise_binary_def() {
  return {"ElementWiseBinary", &guarded_prepare<prepare_elementwise_binary>, op_flags::kAdaptTypes};
}
OpDef prelu_def() { return {"Prelu", &guarded_prepare<prepare_prelu>, op_flags::kAdaptTypes}; }
std::vector<OpDef> elementwise_binary_standalone_defs() {
  return standalone_defs(std::make_index_sequence<std::size(kStandalone)>{});
}

}  // namespace openhtp::ops::detail
