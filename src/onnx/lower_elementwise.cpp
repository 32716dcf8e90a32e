// Element-wise ONNX ops: binary (numpy broadcasting, variadic Max/Min/Sum/
// Mean chained), unary math, activations, Clip, PRelu/LeakyRelu.
//
// Layout: an element-wise op stays channel-last when its activation inputs
// exist only channel-last (e.g. between two convolutions) and have the
// output's rank; constants are then broadcast to that rank and permuted at
// import. Otherwise it works in ONNX layout.
#include <algorithm>
#include <cmath>
#include <limits>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Decides the layout for an element-wise node over `inputs` producing a
// value of rank `out_rank`.
bool use_channel_last(LoweringContext& ctx, const std::vector<std::string>& inputs, size_t out_rank) {
  if (out_rank < 3) return false;
  bool any_dynamic = false;
  for (const std::string& in : inputs) {
    if (ctx.constant(in) != nullptr) {
      if (ctx.rank(in) > out_rank) return false;
      continue;
    }
    any_dynamic = true;
    if (!ctx.prefers_channel_last(in) || ctx.rank(in) != out_rank) return false;
  }
  return any_dynamic;
}

// A constant operand as a STATIC tensor in the chosen layout.
std::string constant_operand(LoweringContext& ctx, const std::string& hint, Tensor t, bool channel_last,
                             size_t out_rank) {
  if (!channel_last) return ctx.static_from(hint, t);
  while (t.dims.size() < out_rank) t.dims.insert(t.dims.begin(), 1);
  return ctx.static_from(hint + "_nhwc", permute_tensor(t, to_channel_last_perm(out_rank)));
}

// The QNN tensor for operand `name` in the chosen layout.
std::string operand(LoweringContext& ctx, const std::string& name, bool channel_last, size_t out_rank) {
  if (!channel_last) return ctx.as_is(name);
  if (const Tensor* c = ctx.constant(name)) return constant_operand(ctx, name, *c, true, out_rank);
  return ctx.channel_last(name);
}

QParam operation(const char* param, uint32_t op) { return param_u32(param, op); }

// One binary QNN op; `op_code` >= 0 selects ElementWiseBinary's operation.
struct BinarySpec {
  const char* qnn_type;
  int op_code;
};

void emit_binary_chain(const onnx::NodeProto& node, LoweringContext& ctx, const BinarySpec& spec,
                       const std::vector<std::string>& inputs, const std::string& out_name,
                       std::optional<float> final_scale = std::nullopt) {
  const size_t out_rank = ctx.rank(out_name);
  const bool cl = use_channel_last(ctx, inputs, out_rank);
  const Qnn_DataType_t out_dt = [&] {
    Qnn_DataType_t dt;
    qnn_dtype_for(ctx.info(out_name).elem_type, &dt);
    return dt;
  }();
  auto params = [&] {
    std::vector<QParam> p;
    if (spec.op_code >= 0) p.push_back(operation(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION, spec.op_code));
    return p;
  };
  auto layout_dims = [&](std::vector<int64_t> dims) {
    if (cl) {
      while (dims.size() < out_rank) dims.insert(dims.begin(), 1);
      dims = permute_dims(dims, to_channel_last_perm(out_rank));
    }
    return std::vector<uint32_t>(dims.begin(), dims.end());
  };
  std::string acc = operand(ctx, inputs[0], cl, out_rank);
  std::vector<int64_t> acc_dims = ctx.info(inputs[0]).dims;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const std::string rhs = operand(ctx, inputs[i], cl, out_rank);
    acc_dims = broadcast(acc_dims, ctx.info(inputs[i]).dims);
    const bool last = i + 1 == inputs.size() && !final_scale;
    const std::string out = last ? ctx.output(out_name, cl ? Layout::kChannelLast : Layout::kOnnx)
                                 : ctx.native(out_name + "_part", out_dt, layout_dims(acc_dims));
    ctx.add_node(spec.qnn_type, {acc, rhs}, {out}, params());
    acc = out;
  }
  if (final_scale) {
    const std::string k = ctx.static_f32(out_name + "_scale", {1}, {*final_scale});
    const std::string out = ctx.output(out_name, cl ? Layout::kChannelLast : Layout::kOnnx);
    ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {acc, k}, {out});
  }
  (void)node;
}

BinarySpec binary_spec(const onnx::NodeProto& node) {
  const std::string& t = node.op_type();
  if (t == "Add" || t == "Sum" || t == "Mean") return {QNN_OP_ELEMENT_WISE_ADD, -1};
  if (t == "Sub") return {QNN_OP_ELEMENT_WISE_SUBTRACT, -1};
  if (t == "Mul") return {QNN_OP_ELEMENT_WISE_MULTIPLY, -1};
  if (t == "Div") return {QNN_OP_ELEMENT_WISE_DIVIDE, -1};
  if (t == "Max") return {QNN_OP_ELEMENT_WISE_MAXIMUM, -1};
  if (t == "Min") return {QNN_OP_ELEMENT_WISE_MINIMUM, -1};
  if (t == "PRelu") return {QNN_OP_PRELU, -1};
  const char* generic = QNN_OP_ELEMENT_WISE_BINARY;
  if (t == "Pow") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_POWER};
  if (t == "Equal") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_EQUAL};
  if (t == "Greater") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_GREATER};
  if (t == "GreaterOrEqual") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_GREATER_EQUAL};
  if (t == "Less") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_LESS};
  if (t == "LessOrEqual") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_LESS_EQUAL};
  if (t == "And") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_AND};
  if (t == "Or") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_OR};
  if (t == "Xor") return {generic, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_XOR};
  if (t == "Mod") {
    return {generic, attr_int(node, "fmod", 0) != 0 ? QNN_OP_ELEMENT_WISE_BINARY_OPERATION_FMOD
                                                    : QNN_OP_ELEMENT_WISE_BINARY_OPERATION_MOD};
  }
  return {generic, -1};
}

std::string check_binary(const onnx::NodeProto& node, const Model&) {
  if (node.input_size() < 1) return "needs at least one input";
  if (node.op_type() == "Mean" || node.op_type() == "Sum" || node.op_type() == "Max" || node.op_type() == "Min") {
    return "";
  }
  if (node.input_size() != 2) return "needs two inputs";
  return "";
}

bool is_float_type(Qnn_DataType_t dt) { return dt == QNN_DATATYPE_FLOAT_32 || dt == QNN_DATATYPE_FLOAT_16; }

Qnn_DataType_t qnn_type_of(LoweringContext& ctx, const std::string& onnx_name) {
  Qnn_DataType_t dt;
  qnn_dtype_for(ctx.info(onnx_name).elem_type, &dt);
  return dt;
}

// Pow: ONNX lets base and exponent have different types (the result has the
// base's); QNN's ElementWiseBinary POWER takes one type for all three. So a
// mixed pair is brought to one compute type: the base's when it is a float
// type or both are integers (the exponent is converted), FLOAT_32 for an
// integer base with a float exponent (2^0.5 needs float). In the latter case
// the float power is Cast back to the base's type; QNN Cast truncates toward
// zero, as ONNX's reference (numpy astype) does. Constant operands are
// converted at import, run-time ones with a QNN Cast.
void lower_pow(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& base = node.input(0);
  const std::string& exponent = node.input(1);
  const std::string& out_name = node.output(0);
  const Qnn_DataType_t base_dt = qnn_type_of(ctx, base), exponent_dt = qnn_type_of(ctx, exponent);
  if (base_dt == exponent_dt) {
    emit_binary_chain(node, ctx, binary_spec(node), {base, exponent}, out_name);
    return;
  }
  const bool via_float = !is_float_type(base_dt) && is_float_type(exponent_dt);
  const int32_t compute_elem = via_float ? onnx_type::kFloat : ctx.info(base).elem_type;
  const Qnn_DataType_t compute_dt = via_float ? QNN_DATATYPE_FLOAT_32 : base_dt;
  const size_t out_rank = ctx.rank(out_name);
  const bool cl = use_channel_last(ctx, {base, exponent}, out_rank);
  auto in_compute_type = [&](const std::string& name, const char* suffix) {
    if (qnn_type_of(ctx, name) == compute_dt) return operand(ctx, name, cl, out_rank);
    if (const Tensor* c = ctx.constant(name)) {
      Tensor t = Tensor::zeros(compute_elem, c->dims);
      for (size_t i = 0; i < t.count(); ++i) t.set(i, c->get(i));
      return constant_operand(ctx, name + suffix, std::move(t), cl, out_rank);
    }
    const std::string src = operand(ctx, name, cl, out_rank);
    const std::vector<uint32_t> dims = ctx.qtensor(src).dims;
    const std::string cast = ctx.native(name + suffix, compute_dt, dims);
    ctx.add_node(QNN_OP_CAST, {src}, {cast});
    return cast;
  };
  const std::string x = in_compute_type(base, "_pow_base");
  const std::string e = in_compute_type(exponent, "_pow_exponent");
  const std::string y = ctx.output(out_name, cl ? Layout::kChannelLast : Layout::kOnnx);
  const std::vector<QParam> power = {
      operation(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_POWER)};
  if (!via_float) {
    ctx.add_node(QNN_OP_ELEMENT_WISE_BINARY, {x, e}, {y}, power);
    return;
  }
  const std::vector<uint32_t> out_dims = ctx.qtensor(y).dims;
  const std::string p = ctx.native(out_name + "_pow_float", QNN_DATATYPE_FLOAT_32, out_dims);
  ctx.add_node(QNN_OP_ELEMENT_WISE_BINARY, {x, e}, {p}, power);
  ctx.add_node(QNN_OP_CAST, {p}, {y});
}

void lower_binary(const onnx::NodeProto& node, LoweringContext& ctx) {
  std::vector<std::string> inputs(node.input().begin(), node.input().end());
  if (inputs.size() == 1) {
    ctx.alias(node.output(0), inputs[0]);
    return;
  }
  std::optional<float> scale;
  if (node.op_type() == "Mean") scale = 1.0f / static_cast<float>(inputs.size());
  emit_binary_chain(node, ctx, binary_spec(node), inputs, node.output(0), scale);
}

// ---- unary ----

struct UnarySpec {
  const char* qnn_type;
  std::vector<QParam> params;
};

UnarySpec unary_spec(const onnx::NodeProto& node) {
  const std::string& t = node.op_type();
  auto generic = [](uint32_t op) {
    return UnarySpec{QNN_OP_ELEMENT_WISE_UNARY, {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, op)}};
  };
  auto neuron = [](uint32_t op, std::vector<QParam> extra) {
    extra.insert(extra.begin(), param_u32(QNN_OP_ELEMENT_WISE_NEURON_PARAM_OPERATION, op));
    return UnarySpec{QNN_OP_ELEMENT_WISE_NEURON, std::move(extra)};
  };
  if (t == "Abs") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ABS);
  if (t == "Asin") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ASIN);
  if (t == "Atan") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ATAN);
  if (t == "Ceil") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_CEIL);
  if (t == "Cos") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_COS);
  if (t == "Exp") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_EXP);
  if (t == "Floor") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_FLOOR);
  if (t == "Log") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_LOG);
  if (t == "Neg") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_NEG);
  if (t == "Not") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_NOT);
  if (t == "Reciprocal") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_RECIPROCAL);
  if (t == "Round") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ROUND);
  if (t == "Sign") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_SIGN);
  if (t == "Sin") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_SIN);
  if (t == "Sqrt") return generic(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_SQRT);
  if (t == "Relu") return {QNN_OP_RELU, {}};
  if (t == "Sigmoid") return {QNN_OP_SIGMOID, {}};
  if (t == "Tanh") return {QNN_OP_TANH, {}};
  if (t == "HardSwish") return {QNN_OP_HARD_SWISH, {}};
  if (t == "Elu") {
    return neuron(QNN_OP_ELEMENT_WISE_NEURON_OPERATION_ELU,
                  {param_f32(QNN_OP_ELEMENT_WISE_NEURON_PARAM_ALPHA, attr_float(node, "alpha", 1.0f))});
  }
  if (t == "HardSigmoid") {
    return neuron(QNN_OP_ELEMENT_WISE_NEURON_OPERATION_HARD_SIGMOID,
                  {param_f32(QNN_OP_ELEMENT_WISE_NEURON_PARAM_ALPHA, attr_float(node, "alpha", 0.2f)),
                   param_f32(QNN_OP_ELEMENT_WISE_NEURON_PARAM_BETA, attr_float(node, "beta", 0.5f))});
  }
  if (t == "Softplus") {
    return neuron(QNN_OP_ELEMENT_WISE_NEURON_OPERATION_SOFTPLUS,
                  {param_f32(QNN_OP_ELEMENT_WISE_NEURON_PARAM_BETA, 1.0f)});
  }
  return {"", {}};
}

void emit_unary(LoweringContext& ctx, const std::string& in, const std::string& out_name, const char* type,
                std::vector<QParam> params) {
  const bool cl = ctx.prefers_channel_last(in);
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  const std::string y = ctx.output(out_name, cl ? Layout::kChannelLast : Layout::kOnnx);
  ctx.add_node(type, {x}, {y}, std::move(params));
}

void lower_unary(const onnx::NodeProto& node, LoweringContext& ctx) {
  UnarySpec spec = unary_spec(node);
  emit_unary(ctx, node.input(0), node.output(0), spec.qnn_type, std::move(spec.params));
}

std::string check_unary(const onnx::NodeProto& node, const Model&) {
  if (node.input_size() < 1) return "needs one input";
  return "";
}

// PRelu. Legacy models (opset < 7, e.g. old PyTorch exports) give a [C]
// slope meant for the channel axis 1; it is reshaped to [C, 1, .., 1] so
// numpy broadcasting (and the channel-last permutation) applies.
// QNN Prelu takes rank 1 to 4: rank 5 is Select(x < 0, x * slope, x), the
// slope broadcast to x (ONNX's unidirectional broadcasting) by Multiply.
void emit_prelu_select(const onnx::NodeProto& node, LoweringContext& ctx, const std::string& x,
                       const std::string& slope, const std::string& y) {
  const QTensor& xt = ctx.qtensor(x);
  const Qnn_DataType_t dt = xt.dtype;
  const std::vector<uint32_t> xd = xt.dims;
  const std::string prod = ctx.native(node.output(0) + "_neg_part", dt, xd);
  ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {x, slope}, {prod});
  const std::string lt = ctx.native(node.output(0) + "_is_neg", QNN_DATATYPE_BOOL_8, xd);
  ctx.add_node(QNN_OP_ELEMENT_WISE_BINARY, {x, ctx.static_f32(node.output(0) + "_zero", {1}, {0.0f})}, {lt},
               {param_u32(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_LESS)});
  ctx.add_node(QNN_OP_ELEMENT_WISE_SELECT, {lt, prod, x}, {y});
}

void lower_prelu(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& xn = node.input(0);
  const std::string& sn = node.input(1);
  const std::vector<int64_t> xd = ctx.info(xn).dims;
  const Tensor* slope = ctx.constant(sn);
  const bool channel_slope = slope != nullptr && slope->dims.size() == 1 && xd.size() >= 3 &&
                             slope->dims[0] == xd[1] && (ctx.model().opset < 7 || xd.back() != xd[1]);
  if (!channel_slope) {
    if (xd.size() >= 5) {
      emit_prelu_select(node, ctx, ctx.as_is(xn), ctx.as_is(sn), ctx.output(node.output(0)));
      return;
    }
    emit_binary_chain(node, ctx, {QNN_OP_PRELU, -1}, {xn, sn}, node.output(0));
    return;
  }
  Tensor s = *slope;
  s.dims = std::vector<int64_t>(xd.size(), 1);
  s.dims[1] = xd[1];
  const bool cl = ctx.prefers_channel_last(xn);
  const std::string x = cl ? ctx.channel_last(xn) : ctx.as_is(xn);
  const std::string st =
      cl ? ctx.static_from(sn + "_nhwc", permute_tensor(s, to_channel_last_perm(xd.size()))) : ctx.static_from(sn + "_c", s);
  const std::string y = ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx);
  if (xd.size() >= 5) {
    emit_prelu_select(node, ctx, x, st, y);
    return;
  }
  ctx.add_node(QNN_OP_PRELU, {x, st}, {y});
}

// LeakyRelu(x) = PRelu(x, alpha).
void lower_leaky_relu(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const bool cl = ctx.prefers_channel_last(in);
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  const std::string slope = ctx.static_f32(node.output(0) + "_alpha", {1}, {attr_float(node, "alpha", 0.01f)});
  const std::string y = ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx);
  ctx.add_node(QNN_OP_PRELU, {x, slope}, {y});
}

// Clip: ReluMinMax when the bounds are constants (or absent; integer inputs
// too: the backend clamps plain integers natively and reads the +-FLT_MAX
// "no bound" as the type's limits); otherwise Maximum with the lower bound
// tensor and/or Minimum with the upper one. An absent bound gets no op at
// all: a float stand-in bound would mix types with an integer input, which
// the backend refuses.
void lower_clip(const onnx::NodeProto& node, LoweringContext& ctx) {
  const Model& m = ctx.model();
  std::string lo_name, hi_name;
  float lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
  bool lo_static = true, hi_static = true;
  if (m.opset < 11) {
    lo = attr_float(node, "min", lo);
    hi = attr_float(node, "max", hi);
  } else {
    lo_name = input_name(node, 1);
    hi_name = input_name(node, 2);
    if (!lo_name.empty()) {
      if (const Tensor* c = m.constant(lo_name)) lo = static_cast<float>(c->get(0));
      else lo_static = false;
    }
    if (!hi_name.empty()) {
      if (const Tensor* c = m.constant(hi_name)) hi = static_cast<float>(c->get(0));
      else hi_static = false;
    }
  }
  const std::string& in = node.input(0);
  if (lo_static && hi_static) {
    emit_unary(ctx, in, node.output(0), QNN_OP_RELU_MIN_MAX,
               {param_f32(QNN_OP_RELU_MIN_MAX_PARAM_MIN_VALUE, lo), param_f32(QNN_OP_RELU_MIN_MAX_PARAM_MAX_VALUE, hi)});
    return;
  }
  // Here at least one bound is a run-time input (opset >= 11: bounds are
  // inputs, constant ones read as tensors of the input's type).
  std::string x = ctx.as_is(in);
  const QTensor& xt = ctx.qtensor(x);
  const Qnn_DataType_t dt = xt.dtype;
  const std::vector<uint32_t> dims = xt.dims;
  if (!lo_name.empty()) {
    const bool last = hi_name.empty();
    const std::string out = last ? ctx.output(node.output(0)) : ctx.native(node.output(0) + "_lo", dt, dims);
    ctx.add_node(QNN_OP_ELEMENT_WISE_MAXIMUM, {x, ctx.as_is(lo_name)}, {out});
    x = out;
  }
  if (!hi_name.empty()) {
    ctx.add_node(QNN_OP_ELEMENT_WISE_MINIMUM, {x, ctx.as_is(hi_name)}, {ctx.output(node.output(0))});
  }
}

}  // namespace

std::vector<OpLowering> elementwise_lowerings() {
  std::vector<OpLowering> v;
  for (const char* t : {"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean", "Equal", "Greater",
                        "GreaterOrEqual", "Less", "LessOrEqual", "And", "Or", "Xor", "Mod"}) {
    v.push_back({t, check_binary, lower_binary});
  }
  for (const char* t : {"Abs", "Asin", "Atan", "Ceil", "Cos", "Exp", "Floor", "Log", "Neg", "Not", "Reciprocal",
                        "Round", "Sign", "Sin", "Sqrt", "Relu", "Sigmoid", "Tanh", "HardSwish", "Elu", "HardSigmoid",
                        "Softplus"}) {
    v.push_back({t, check_unary, lower_unary});
  }
  v.push_back({"Pow", check_binary, lower_pow});
  v.push_back({"PRelu", check_binary, lower_prelu});
  v.push_back({"LeakyRelu", check_unary, lower_leaky_relu});
  v.push_back({"Clip", check_unary, lower_clip});
  return v;
}

}  // namespace openhtp::onnx_import
