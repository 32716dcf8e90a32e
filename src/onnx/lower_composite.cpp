// ONNX ops QNN has no single op for, composed of QNN element-wise ops and
// reductions (each computed in float, in the input's layout):
//
//   Erf(x)             |x| < 0.5: odd Taylor series 2/sqrt(pi) * sum_{n<=7} (-1)^n x^(2n+1) / (n! (2n+1))
//                      (truncation < 3e-11 there); |x| >= 0.5: sign(x) * (1 - erfc(|x|)) with
//                      Numerical Recipes' Chebyshev erfc (fractional error < 1.2e-7, so < 6e-8
//                      absolute on erf for |x| >= 0.5); ElementWiseSelect picks the branch.
//                      Measured against std::erf over [-6, 6] in float: max error < 2e-7
//                      (tests/onnx/new_ops_test.cpp, ErfCompositionIsAccurate).
//   Gelu(x)            -> QNN Gelu (ONNX opset-20 Gelu with approximate 'none'; the
//                      x * 0.5 * (1 + Erf(x / sqrt 2)) pattern is fused into it in lowering.cpp)
//   Selu               gamma * Elu_alpha(x)          (ElementWiseNeuron ELU, Multiply)
//   Celu               alpha * Elu_1(x / alpha)
//   Softsign           x / (1 + |x|)
//   ThresholdedRelu    Select(x > alpha, x, 0)
//   Shrink             Select(x < -lambd, x + bias, Select(x > lambd, x - bias, 0))
//   Tan                sin(x) / cos(x)
//   Sinh / Cosh        (exp(x) -/+ exp(-x)) / 2
//   Asinh              log(x + sqrt(x^2 + 1));  Acosh log(x + sqrt(x^2 - 1))
//   Atanh              0.5 * log((1 + x) / (1 - x));  Acos  pi/2 - asin(x)
//   ReduceL1           ReduceSum(|x|)
//   ReduceL2           sqrt(ReduceSumSquare(x))
//   ReduceLogSum       log(ReduceSum(x))
//   ReduceLogSumExp    log(ReduceSum(exp(x - m))) + m, m = ReduceMax(x) (keepdims; no overflow)
//   Det                x [..., n, n], n <= 3, split into its n^2 entries [B, 1]: ad - bc, or
//                      the cofactor expansion along the first row
//   MeanVarianceNormalization  d / (sqrt(ReduceMean(d * d)) + 1e-9), d = x - ReduceMean(x), over
//                      `axes` (default [0, 2, 3]) in ONNX layout: ONNX's function computes
//                      E[x^2] - E[x]^2, the same variance with less cancellation here
#include <algorithm>
#include <cmath>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::string check_float(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->elem_type != onnx_type::kFloat && v->elem_type != onnx_type::kDouble &&
      v->elem_type != onnx_type::kFloat16) {
    return "only float inputs are supported (composed of float element-wise ops)";
  }
  return "";
}

// Writes a chain of element-wise QNN ops over one tensor shape.
class Chain {
 public:
  Chain(LoweringContext& ctx, const std::string& hint, Qnn_DataType_t dt, std::vector<uint32_t> dims)
      : ctx_(ctx), hint_(hint), dt_(dt), dims_(std::move(dims)) {}

  std::string k(float v) { return ctx_.static_f32(hint_ + "_k", {1}, {v}); }
  std::string fresh(Qnn_DataType_t dt) { return ctx_.native(hint_ + "_t", dt, dims_); }
  std::string unary(uint32_t op, const std::string& x, std::string out = "") {
    if (out.empty()) out = fresh(dt_);
    ctx_.add_node(QNN_OP_ELEMENT_WISE_UNARY, {x}, {out}, {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, op)});
    return out;
  }
  std::string binary(const char* type, const std::string& a, const std::string& b, std::string out = "") {
    if (out.empty()) out = fresh(dt_);
    ctx_.add_node(type, {a, b}, {out});
    return out;
  }
  std::string compare(uint32_t op, const std::string& a, const std::string& b) {
    const std::string out = fresh(QNN_DATATYPE_BOOL_8);
    ctx_.add_node(QNN_OP_ELEMENT_WISE_BINARY, {a, b}, {out}, {param_u32(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION, op)});
    return out;
  }
  std::string select(const std::string& c, const std::string& a, const std::string& b, std::string out = "") {
    if (out.empty()) out = fresh(dt_);
    ctx_.add_node(QNN_OP_ELEMENT_WISE_SELECT, {c, a, b}, {out});
    return out;
  }
  std::string add(const std::string& a, const std::string& b, std::string out = "") {
    return binary(QNN_OP_ELEMENT_WISE_ADD, a, b, std::move(out));
  }
  std::string sub(const std::string& a, const std::string& b, std::string out = "") {
    return binary(QNN_OP_ELEMENT_WISE_SUBTRACT, a, b, std::move(out));
  }
  std::string mul(const std::string& a, const std::string& b, std::string out = "") {
    return binary(QNN_OP_ELEMENT_WISE_MULTIPLY, a, b, std::move(out));
  }
  std::string div(const std::string& a, const std::string& b, std::string out = "") {
    return binary(QNN_OP_ELEMENT_WISE_DIVIDE, a, b, std::move(out));
  }
  std::string elu(const std::string& x, float alpha) {
    const std::string out = fresh(dt_);
    ctx_.add_node(QNN_OP_ELEMENT_WISE_NEURON, {x}, {out},
                  {param_u32(QNN_OP_ELEMENT_WISE_NEURON_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_NEURON_OPERATION_ELU),
                   param_f32(QNN_OP_ELEMENT_WISE_NEURON_PARAM_ALPHA, alpha)});
    return out;
  }
  // Horner: c[0] + z*(c[1] + z*(...)).
  std::string horner(const std::string& z, const std::vector<double>& c) {
    std::string acc = k(static_cast<float>(c.back()));
    for (size_t i = c.size() - 1; i-- > 0;) acc = add(mul(acc, z), k(static_cast<float>(c[i])));
    return acc;
  }

 private:
  LoweringContext& ctx_;
  std::string hint_;
  Qnn_DataType_t dt_;
  std::vector<uint32_t> dims_;
};

constexpr uint32_t kAbs = QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ABS;
constexpr uint32_t kExp = QNN_OP_ELEMENT_WISE_UNARY_OPERATION_EXP;
constexpr uint32_t kLog = QNN_OP_ELEMENT_WISE_UNARY_OPERATION_LOG;
constexpr uint32_t kSqrt = QNN_OP_ELEMENT_WISE_UNARY_OPERATION_SQRT;

// erf(x) into `out` (see the file comment for the bound).
void emit_erf(Chain& c, const std::string& x, const std::string& out) {
  // Taylor: x * P(x^2), P's coefficients 2/sqrt(pi) * (-1)^n / (n! (2n+1)).
  std::vector<double> taylor;
  double fact = 1.0;
  for (int n = 0; n <= 7; ++n) {
    if (n > 0) fact *= n;
    taylor.push_back(2.0 / std::sqrt(M_PI) * ((n % 2 == 0) ? 1.0 : -1.0) / (fact * (2 * n + 1)));
  }
  const std::string x2 = c.mul(x, x);
  const std::string small = c.mul(x, c.horner(x2, taylor));
  // erfc(z) = t * exp(-z^2 + Q(t)), t = 1 / (1 + z/2), z = |x| (Numerical Recipes, erfcc).
  const std::string z = c.unary(kAbs, x);
  const std::string t = c.div(c.k(1.0f), c.add(c.mul(z, c.k(0.5f)), c.k(1.0f)));
  const std::vector<double> q = {-1.26551223, 1.00002368, 0.37409196,  0.09678418, -0.18628806,
                                 0.27886807,  -1.13520398, 1.48851587, -0.82215223, 0.17087277};
  const std::string arg = c.sub(c.horner(t, q), x2);
  const std::string erfc = c.mul(t, c.unary(kExp, arg));
  const std::string mag = c.sub(c.k(1.0f), erfc);
  const std::string large = c.mul(mag, c.unary(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_SIGN, x));
  const std::string use_small = c.compare(QNN_OP_ELEMENT_WISE_BINARY_OPERATION_LESS, z, c.k(0.5f));
  c.select(use_small, small, large, out);
}

// The chain over the node's input 0 in its current layout; `out` is the
// node's output in that layout.
struct Unary {
  std::string x, out;
  Chain chain;
};

Unary start(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const bool cl = ctx.prefers_channel_last(in);
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  const QTensor& t = ctx.qtensor(x);
  Chain chain(ctx, node.output(0), t.dtype, t.dims);
  const std::string out = ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx);
  return {x, out, chain};
}

void lower_erf(const onnx::NodeProto& node, LoweringContext& ctx) {
  Unary u = start(node, ctx);
  emit_erf(u.chain, u.x, u.out);
}

void lower_gelu(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const bool cl = ctx.prefers_channel_last(in);
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  ctx.add_node(QNN_OP_GELU, {x}, {ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx)});
}

std::string check_gelu(const onnx::NodeProto& node, const Model& model) {
  if (attr_string(node, "approximate", "none") != "none") return "approximate 'tanh' is not supported";
  return check_float(node, model);
}

void lower_activation(const onnx::NodeProto& node, LoweringContext& ctx) {
  Unary u = start(node, ctx);
  Chain& c = u.chain;
  const std::string& t = node.op_type();
  const std::string& x = u.x;
  if (t == "Selu") {
    const float alpha = attr_float(node, "alpha", 1.67326319217681884765625f);
    const float gamma = attr_float(node, "gamma", 1.05070102214813232421875f);
    c.mul(c.elu(x, alpha), c.k(gamma), u.out);
  } else if (t == "Celu") {
    const float alpha = attr_float(node, "alpha", 1.0f);
    c.mul(c.elu(c.div(x, c.k(alpha)), 1.0f), c.k(alpha), u.out);
  } else if (t == "Softsign") {
    c.div(x, c.add(c.unary(kAbs, x), c.k(1.0f)), u.out);
  } else if (t == "ThresholdedRelu") {
    const float alpha = attr_float(node, "alpha", 1.0f);
    c.select(c.compare(QNN_OP_ELEMENT_WISE_BINARY_OPERATION_GREATER, x, c.k(alpha)), x, c.k(0.0f), u.out);
  } else if (t == "Shrink") {
    const float lambd = attr_float(node, "lambd", 0.5f), bias = attr_float(node, "bias", 0.0f);
    const std::string hi = c.select(c.compare(QNN_OP_ELEMENT_WISE_BINARY_OPERATION_GREATER, x, c.k(lambd)),
                                    c.sub(x, c.k(bias)), c.k(0.0f));
    c.select(c.compare(QNN_OP_ELEMENT_WISE_BINARY_OPERATION_LESS, x, c.k(-lambd)), c.add(x, c.k(bias)), hi, u.out);
  } else if (t == "Tan") {
    c.div(c.unary(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_SIN, x), c.unary(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_COS, x),
          u.out);
  } else if (t == "Sinh" || t == "Cosh") {
    const std::string ep = c.unary(kExp, x);
    const std::string en = c.unary(kExp, c.unary(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_NEG, x));
    c.mul(t == "Sinh" ? c.sub(ep, en) : c.add(ep, en), c.k(0.5f), u.out);
  } else if (t == "Asinh" || t == "Acosh") {
    const std::string r = c.unary(kSqrt, c.add(c.mul(x, x), c.k(t == "Asinh" ? 1.0f : -1.0f)));
    c.unary(kLog, c.add(x, r), u.out);
  } else if (t == "Atanh") {
    const std::string q = c.div(c.add(c.k(1.0f), x), c.sub(c.k(1.0f), x));
    c.mul(c.unary(kLog, q), c.k(0.5f), u.out);
  } else if (t == "Acos") {
    c.sub(c.k(static_cast<float>(M_PI / 2)), c.unary(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ASIN, x), u.out);
  }
}

// ---- reductions ----

std::string check_reduce(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_float(node, model); !why.empty()) return why;
  if (node.input_size() > 1 && !node.input(1).empty() && !model.is_constant(node.input(1)) &&
      attr_int(node, "keepdims", 1) == 0) {
    return "axes given at run time need keepdims=1";
  }
  return "";
}

// The reduced ONNX axes (sorted), as lower_misc.cpp's reductions read them:
// attribute, constant input, or (run-time axes with keepdims) the axes whose
// size became 1. Empty: nothing to reduce (noop_with_empty_axes).
std::vector<uint32_t> reduce_axes(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  std::vector<int64_t> axes = attr_ints(node, "axes");
  if (const std::string an = input_name(node, 1); !an.empty()) {
    if (const Tensor* c = ctx.constant(an)) {
      axes = c->to_ints();
    } else {
      const std::vector<int64_t>& id = ctx.info(in).dims;
      const std::vector<int64_t>& od = ctx.info(node.output(0)).dims;
      for (size_t a = 0; a < r; ++a) {
        if (od[a] == 1 && id[a] != 1) axes.push_back(static_cast<int64_t>(a));
      }
      if (axes.empty()) return {};
    }
  }
  if (axes.empty()) {
    if (attr_int(node, "noop_with_empty_axes", 0) != 0) return {};
    for (size_t a = 0; a < r; ++a) axes.push_back(static_cast<int64_t>(a));
  }
  std::vector<uint32_t> q;
  for (int64_t a : axes) q.push_back(static_cast<uint32_t>(normalize_axis(a, r)));
  std::sort(q.begin(), q.end());
  return q;
}

void lower_composite_reduce(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& t = node.op_type();
  const std::string x = ctx.as_is(node.input(0));
  const QTensor& xt = ctx.qtensor(x);
  const Qnn_DataType_t dt = xt.dtype;
  const std::vector<uint32_t> xd = xt.dims;
  const std::vector<uint32_t> axes = reduce_axes(node, ctx);
  const bool keep = attr_int(node, "keepdims", 1) != 0;
  Chain full(ctx, node.output(0), dt, xd);
  std::vector<uint32_t> kept = xd;
  for (uint32_t a : axes) kept[a] = 1;
  const std::vector<uint32_t> od = ctx.dims_u32(node.output(0));
  Chain small(ctx, node.output(0), dt, od);
  auto reduce = [&](const char* type, const std::string& src, bool keepdims, std::string out = "") {
    if (out.empty()) out = ctx.native(node.output(0) + "_red", dt, keepdims ? kept : od);
    ctx.add_node(type, {src}, {out},
                 {param_u32_tensor(QNN_OP_REDUCE_SUM_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes),
                  param_bool(QNN_OP_REDUCE_SUM_PARAM_KEEP_DIMS, keepdims)});
    return out;
  };
  if (axes.empty()) {
    // noop_with_empty_axes (or run-time axes that reduce nothing): ONNX
    // returns the input unchanged.
    ctx.alias(node.output(0), node.input(0));
    return;
  }
  const std::string y = ctx.output(node.output(0));
  if (t == "ReduceL1") {
    reduce(QNN_OP_REDUCE_SUM, full.unary(kAbs, x), keep, y);
  } else if (t == "ReduceL2") {
    small.unary(kSqrt, reduce(QNN_OP_REDUCE_SUM_SQUARE, x, keep), y);
  } else if (t == "ReduceLogSum") {
    small.unary(kLog, reduce(QNN_OP_REDUCE_SUM, x, keep), y);
  } else {
    const std::string m = reduce(QNN_OP_REDUCE_MAX, x, true);
    const std::string s = reduce(QNN_OP_REDUCE_SUM, full.unary(kExp, full.sub(x, m)), true);
    Chain kc(ctx, node.output(0), dt, kept);
    const std::string lse = kc.add(kc.unary(kLog, s), m, keep ? y : "");
    if (!keep) ctx.add_node(QNN_OP_RESHAPE, {lse}, {y});
  }
}

void lower_mvn(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string x = ctx.as_is(node.input(0));
  const QTensor& xt = ctx.qtensor(x);
  const Qnn_DataType_t dt = xt.dtype;
  const std::vector<uint32_t> xd = xt.dims;
  std::vector<uint32_t> axes;
  for (int64_t a : attr_ints(node, "axes", {0, 2, 3})) {
    axes.push_back(static_cast<uint32_t>(normalize_axis(a, xd.size())));
  }
  std::sort(axes.begin(), axes.end());
  std::vector<uint32_t> kept = xd;
  for (uint32_t a : axes) {
    if (a >= xd.size()) ctx.fail("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(xd.size()));
    kept[a] = 1;
  }
  auto mean = [&](const std::string& src) {
    const std::string out = ctx.native(node.output(0) + "_mean", dt, kept);
    ctx.add_node(QNN_OP_REDUCE_MEAN, {src}, {out},
                 {param_u32_tensor(QNN_OP_REDUCE_MEAN_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes),
                  param_bool(QNN_OP_REDUCE_MEAN_PARAM_KEEP_DIMS, true)});
    return out;
  };
  Chain full(ctx, node.output(0), dt, xd);
  Chain small(ctx, node.output(0), dt, kept);
  const std::string d = full.sub(x, mean(x));
  const std::string sd = small.add(small.unary(kSqrt, mean(full.mul(d, d))), small.k(1e-9f));
  full.div(d, sd, ctx.output(node.output(0)));
}

std::string check_det(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_float(node, model); !why.empty()) return why;
  const ValueInfo* v = model.info(node.input(0));
  if (v == nullptr || v->dims.size() < 2) return "input must be [..., n, n]";
  const int64_t n = v->dims.back();
  if (v->dims[v->dims.size() - 2] != n) return "input must be square in its last two axes";
  if (n < 1 || n > 3) return "only 1x1, 2x2 and 3x3 matrices are supported (closed-form expansion)";
  return "";
}

void lower_det(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string x = ctx.as_is(node.input(0));
  const QTensor& xt = ctx.qtensor(x);
  const Qnn_DataType_t dt = xt.dtype;
  const std::vector<uint32_t> xd = xt.dims;
  const uint32_t n = xd.back();
  uint32_t batch = 1;
  for (size_t i = 0; i + 2 < xd.size(); ++i) batch *= xd[i];
  const std::string flat = ctx.reshape(x, {batch, n * n});
  std::vector<std::string> e;
  std::vector<uint32_t> starts;
  for (uint32_t i = 0; i < n * n; ++i) {
    if (i > 0) starts.push_back(i);
    e.push_back(ctx.native(node.output(0) + "_e", dt, {batch, 1}));
  }
  if (n == 1) {
    e[0] = flat;
  } else {
    ctx.add_node(QNN_OP_SPLIT, {flat}, e,
                 {param_u32(QNN_OP_SPLIT_PARAM_AXIS, 1),
                  param_u32_tensor(QNN_OP_SPLIT_PARAM_SPLIT_INDEX, {static_cast<uint32_t>(starts.size())}, starts)});
  }
  Chain c(ctx, node.output(0), dt, {batch, 1});
  std::string det;
  if (n == 1) {
    det = e[0];
  } else if (n == 2) {
    det = c.sub(c.mul(e[0], e[3]), c.mul(e[1], e[2]));
  } else {
    auto minor = [&](int a, int b, int d, int f) { return c.sub(c.mul(e[a], e[b]), c.mul(e[d], e[f])); };
    det = c.add(c.sub(c.mul(e[0], minor(4, 8, 5, 7)), c.mul(e[1], minor(3, 8, 5, 6))), c.mul(e[2], minor(3, 7, 4, 6)));
  }
  ctx.add_node(QNN_OP_RESHAPE, {det}, {ctx.output(node.output(0))});
}

}  // namespace

std::vector<OpLowering> composite_lowerings() {
  std::vector<OpLowering> v = {
      {"Erf", check_float, lower_erf},
      {"Gelu", check_gelu, lower_gelu},
  };
  for (const char* t : {"Selu", "Celu", "Softsign", "ThresholdedRelu", "Shrink", "Tan", "Sinh", "Cosh", "Asinh",
                        "Acosh", "Atanh", "Acos"}) {
    v.push_back({t, check_float, lower_activation});
  }
  v.push_back({"MeanVarianceNormalization", check_float, lower_mvn});
  v.push_back({"Det", check_det, lower_det});
  for (const char* t : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
    v.push_back({t, check_reduce, lower_composite_reduce});
  }
  return v;
}

}  // namespace openhtp::onnx_import
