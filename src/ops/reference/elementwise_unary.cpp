// ElementWiseUnary: one of 16 math functions applied to every element
// (`operation` ABS 0 .. SQRT 15). Output has the input's shape. All take
// float (FLOAT_16 and fixed point through the type adapter) except NOT, which
// maps BOOL_8 to BOOL_8.
//
// QNN also names most operations as ops of their own (ElementWiseAbs,
// ElementWiseLog, ...): no parameters, the operation implied by the name.
// They are listed in kStandalone below and share ElementWiseUnary's rules and
// kernels.
#include <cmath>
#include <limits>
#include <utility>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

enum class UnaryOp : uint32_t {
  kAbs = 0, kAsin, kAtan, kCeil, kCos, kExp, kFloor, kLog, kNeg, kNot, kReciprocal, kRound,
  kRsqrt, kSign, kSin, kSqrt,
};
constexpr uint32_t kNumUnaryOps = 16;
constexpr std::string_view kUnaryOpNames[kNumUnaryOps] = {
    "ABS", "ASIN", "ATAN", "CEIL", "COS", "EXP", "FLOOR", "LOG",
    "NEG", "NOT", "RECIPROCAL", "ROUND", "RSQRT", "SIGN", "SIN", "SQRT",
};

// y[i] = fn(x[i]) over n elements; In/Out are float, or uint8_t for BOOL_8.
template <typename In, typename Out, typename Fn>
class MapKernel final : public OpKernel {
 public:
  MapKernel(size_t n, Fn fn) : n_(n), fn_(fn) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const In* x = static_cast<const In*>(in[0]);
    Out* y = static_cast<Out*>(out[0]);
    for (size_t i = 0; i < n_; ++i) y[i] = fn_(x[i]);
  }

 private:
  size_t n_;
  Fn fn_;
};

template <typename In = float, typename Out = float, typename Fn>
std::unique_ptr<OpKernel> make_map(size_t n, Fn fn) {
  return std::make_unique<MapKernel<In, Out, Fn>>(n, fn);
}

// Round half to even, spelled out rather than left to std::nearbyint so the
// result does not depend on the thread's floating-point rounding mode.
// x - trunc(x) is exact (it only drops x's integer bits), so ties are seen
// exactly; a tie's even neighbour is twice the rounded half.
float round_half_even(float x) {
  if (std::fabs(x - std::trunc(x)) == 0.5f) return 2.0f * std::round(x / 2.0f);
  return std::round(x);
}

// -1, 0 or 1 (NaN stays NaN, zero keeps its sign).
float sign_of(float x) {
  if (x > 0.0f) return 1.0f;
  if (x < 0.0f) return -1.0f;
  return x;
}

std::unique_ptr<OpKernel> float_kernel(UnaryOp op, size_t n) {
  switch (op) {
    case UnaryOp::kAbs: return make_map(n, [](float x) { return std::fabs(x); });
    case UnaryOp::kAsin: return make_map(n, [](float x) { return std::asin(x); });
    case UnaryOp::kAtan: return make_map(n, [](float x) { return std::atan(x); });
    case UnaryOp::kCeil: return make_map(n, [](float x) { return std::ceil(x); });
    case UnaryOp::kCos: return make_map(n, [](float x) { return std::cos(x); });
    case UnaryOp::kExp: return make_map(n, [](float x) { return std::exp(x); });
    case UnaryOp::kFloor: return make_map(n, [](float x) { return std::floor(x); });
    case UnaryOp::kLog: return make_map(n, [](float x) { return std::log(x); });
    case UnaryOp::kNeg: return make_map(n, [](float x) { return -x; });
    case UnaryOp::kReciprocal: return make_map(n, [](float x) { return 1.0f / x; });
    case UnaryOp::kRound: return make_map(n, round_half_even);
    // In double so the result is the correctly rounded 1/sqrt(x), not the
    // product of two float roundings.
    case UnaryOp::kRsqrt:
      return make_map(n, [](float x) { return static_cast<float>(1.0 / std::sqrt(double{x})); });
    case UnaryOp::kSign: return make_map(n, sign_of);
    case UnaryOp::kSin: return make_map(n, [](float x) { return std::sin(x); });
    case UnaryOp::kSqrt: return make_map(n, [](float x) { return std::sqrt(x); });
    default: return nullptr;
  }
}

// BOOL_8 tensors follow the same shape rules as float ones; only the type
// differs, so the float check runs on a copy relabelled FLOAT_32.
Status check_bool_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  if (t.present && t.dtype != dtype::kBool8) {
    // Float-like types all look like FLOAT_32 here (the type adapter).
    const std::string got = t.dtype == dtype::kFloat32 ? "a float type" : dtype::name(t.dtype);
    return invalid(node, label, " data type is ", got, ", expected BOOL_8: operation NOT maps BOOL_8 to BOOL_8");
  }
  TensorDesc as_float = t;
  as_float.dtype = dtype::kFloat32;
  return check_f32_tensor(node, as_float, label);
}

// The rules and kernel of one operation, once the node's inputs, outputs and
// parameters have been counted and read (by the generic op or a standalone one).
Status prepare_unary_op(const NodeDesc& node, UnaryOp op, std::unique_ptr<OpKernel>* kernel) {
  const auto op_code = static_cast<uint32_t>(op);
  const TensorDesc& x = node.inputs[0];
  if (op == UnaryOp::kNot) {
    for (const auto& [t, label] : {std::pair{&x, in_label(0, "")}, std::pair{&node.outputs[0], out_label(0)}}) {
      if (Status s = check_bool_tensor(node, *t, label); !s.ok()) return s;
    }
  } else {
    if (x.present && x.dtype == dtype::kBool8) {
      return unsupported(node, "in[0] data type is BOOL_8; operation ", kUnaryOpNames[op_code],
                         " takes a float input (only NOT takes BOOL_8)");
    }
    if (node.outputs[0].present && node.outputs[0].dtype == dtype::kBool8) {
      return invalid(node, "out[0] data type is BOOL_8, expected a float type: operation ",
                     kUnaryOpNames[op_code], " outputs numbers");
    }
    static constexpr std::string_view kRoles[] = {""};
    if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) {
    const size_t n = x.num_elements();
    *kernel = op == UnaryOp::kNot ? make_map<uint8_t, uint8_t>(n, [](uint8_t b) -> uint8_t { return b == 0; })
                                  : float_kernel(op, n);
  }
  return Status::Ok();
}

// ElementWiseUnary: the operation comes from its `operation` parameter.
Status prepare_generic(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"operation"}); !s.ok()) return s;
  uint32_t op_code = 0;
  if (Status s = params.u32_scalar("operation", std::nullopt, &op_code); !s.ok()) return s;
  if (op_code >= kNumUnaryOps) {
    return invalid(node, "parameter 'operation' is ", op_code,
                   ", not an ElementWiseUnary operation (0 ABS .. 15 SQRT)");
  }
  return prepare_unary_op(node, static_cast<UnaryOp>(op_code), kernel);
}

// The standalone ops: QNN op type name -> the operation it implies. QNN has
// no standalone RECIPROCAL.
struct Standalone {
  std::string_view type_name;
  UnaryOp op;
};
constexpr Standalone kStandalone[] = {
    {"ElementWiseAbs", UnaryOp::kAbs},     {"ElementWiseAsin", UnaryOp::kAsin},
    {"ElementWiseAtan", UnaryOp::kAtan},   {"ElementWiseCeil", UnaryOp::kCeil},
    {"ElementWiseCos", UnaryOp::kCos},     {"ElementWiseExp", UnaryOp::kExp},
    {"ElementWiseFloor", UnaryOp::kFloor}, {"ElementWiseLog", UnaryOp::kLog},
    {"ElementWiseNeg", UnaryOp::kNeg},     {"ElementWiseNot", UnaryOp::kNot},
    {"ElementWiseRound", UnaryOp::kRound}, {"ElementWiseRsqrt", UnaryOp::kRsqrt},
    {"ElementWiseSign", UnaryOp::kSign},   {"ElementWiseSin", UnaryOp::kSin},
    {"ElementWiseSquareRoot", UnaryOp::kSqrt},
};

// A standalone op: one input, one output, no parameters at all.
template <size_t I>
Status prepare_standalone(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  return prepare_unary_op(node, kStandalone[I].op, kernel);
}

template <size_t... I>
std::vector<OpDef> standalone_defs(std::index_sequence<I...>) {
  return {OpDef{kStandalone[I].type_name, &guarded_prepare<prepare_standalone<I>>, op_flags::kAdaptTypes}...};
}

}  // namespace

OpDef elementwise_unary_def() {
  return {"ElementWiseUnary", &guarded_prepare<prepare_generic>, op_flags::kAdaptTypes};
}

std::vector<OpDef> elementwise_unary_standalone_defs() {
  return standalone_defs(std::make_index_sequence<std::size(kStandalone)>{});
}

}  // namespace openhtp::ops::detail
