// Normalizations over the channel axis of channel-last activations:
// BatchNormalization (inference: QNN Batchnorm or element-wise ops when the
// statistics come at run time) and InstanceNormalization (QNN InstanceNorm).
#include <cmath>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::string check_batchnorm(const onnx::NodeProto& node, const Model& model) {
  if (attr_int(node, "training_mode", 0) == 0) {
    if (std::string why = check_no_extra_outputs(node, 1); !why.empty()) return why;
  }
  const ValueInfo* v = model.info(node.input(0));
  if (v == nullptr || v->dims.size() < 2) return "input must have rank >= 2";
  return "";
}

// BatchNormalization (inference). With constant statistics: QNN Batchnorm
// with w = scale / sqrt(var + eps) and b = B - mean * w. With statistics
// given at run time: the same formula as element-wise ops on [C] vectors,
// which broadcast over the last (channel) axis of the channel-last input.
// BatchNormalization in training mode (opset 14+): normalizes with the
// batch's own statistics and, as outputs 1 and 2, blends them into the
// running ones:
//   mean_b = mean of x over every axis but C;  var_b = mean of (x - mean_b)^2
//   y = (x - mean_b) / sqrt(var_b + eps) * scale + B
//   running_mean = mean * momentum + mean_b * (1 - momentum)   (same for var)
// All of it as QNN ReduceMean and element-wise ops on channel-last data,
// where the [C] vectors broadcast over the last axis.
void lower_batchnorm_training(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  const float eps = attr_float(node, "epsilon", 1e-5f);
  const float momentum = attr_float(node, "momentum", 0.9f);
  const bool cl = r >= 3;
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  const Layout layout = cl ? Layout::kChannelLast : Layout::kOnnx;
  const QTensor& xt = ctx.qtensor(x);
  const std::vector<uint32_t> xdims = xt.dims;
  const Qnn_DataType_t dt = xt.dtype;
  const uint32_t c = xdims.back();
  std::vector<uint32_t> axes, stat_dims(r, 1);
  for (uint32_t a = 0; a + 1 < r; ++a) axes.push_back(a);
  stat_dims.back() = c;
  const std::string base = node.output(0);
  auto reduce_mean = [&](const std::string& t, const std::string& hint) {
    const std::string out = ctx.native(base + hint, dt, stat_dims);
    ctx.add_node(QNN_OP_REDUCE_MEAN, {t}, {out},
                 {param_u32_tensor(QNN_OP_REDUCE_MEAN_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes),
                  param_bool(QNN_OP_REDUCE_MEAN_PARAM_KEEP_DIMS, true)});
    return out;
  };
  auto binary = [&](const char* op, const std::string& a, const std::string& b, const std::vector<uint32_t>& dims,
                    const std::string& hint) {
    const std::string out = ctx.native(base + hint, dt, dims);
    ctx.add_node(op, {a, b}, {out});
    return out;
  };
  const std::string mean_b = reduce_mean(x, "_batch_mean");
  const std::string centered = binary(QNN_OP_ELEMENT_WISE_SUBTRACT, x, mean_b, xdims, "_centered");
  const std::string squared = binary(QNN_OP_ELEMENT_WISE_MULTIPLY, centered, centered, xdims, "_squared");
  const std::string var_b = reduce_mean(squared, "_batch_var");
  const std::string var_eps =
      binary(QNN_OP_ELEMENT_WISE_ADD, var_b, ctx.static_f32(base + "_eps", {1}, {eps}), stat_dims, "_var_eps");
  const std::string inv_std = ctx.native(base + "_inv_std", dt, stat_dims);
  ctx.add_node(QNN_OP_ELEMENT_WISE_UNARY, {var_eps}, {inv_std},
               {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_UNARY_OPERATION_RSQRT)});
  const std::string normalized = binary(QNN_OP_ELEMENT_WISE_MULTIPLY, centered, inv_std, xdims, "_normalized");
  const std::string scaled =
      binary(QNN_OP_ELEMENT_WISE_MULTIPLY, normalized, ctx.as_is(node.input(1)), xdims, "_scaled");
  ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {scaled, ctx.as_is(node.input(2))}, {ctx.output(node.output(0), layout)});
  // Running statistics: [C] outputs in ONNX layout.
  const std::string keep = ctx.static_f32(base + "_momentum", {1}, {momentum});
  const std::string take = ctx.static_f32(base + "_one_minus_momentum", {1}, {1.0f - momentum});
  for (int k = 1; k <= 2; ++k) {
    const std::string out = output_name(node, k);
    if (out.empty()) continue;
    const std::string batch = ctx.reshape(k == 1 ? mean_b : var_b, {c});
    const std::string old_part =
        binary(QNN_OP_ELEMENT_WISE_MULTIPLY, ctx.as_is(node.input(2 + k)), keep, {c}, k == 1 ? "_old_mean" : "_old_var");
    const std::string new_part = binary(QNN_OP_ELEMENT_WISE_MULTIPLY, batch, take, {c}, k == 1 ? "_new_mean" : "_new_var");
    ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {old_part, new_part}, {ctx.output(out)});
  }
}

void lower_batchnorm(const onnx::NodeProto& node, LoweringContext& ctx) {
  if (attr_int(node, "training_mode", 0) != 0) {
    lower_batchnorm_training(node, ctx);
    return;
  }
  const Model& m = ctx.model();
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  const float eps = attr_float(node, "epsilon", 1e-5f);
  const bool cl = r >= 3;
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  const Layout layout = cl ? Layout::kChannelLast : Layout::kOnnx;
  const Tensor* s = m.constant(node.input(1));
  const Tensor* b = m.constant(node.input(2));
  const Tensor* mean = m.constant(node.input(3));
  const Tensor* var = m.constant(node.input(4));
  if (s && b && mean && var) {
    const size_t c = s->count();
    std::vector<float> w(c), bias(c);
    for (size_t i = 0; i < c; ++i) {
      w[i] = static_cast<float>(s->get(i) / std::sqrt(var->get(i) + eps));
      bias[i] = static_cast<float>(b->get(i) - mean->get(i) * w[i]);
    }
    const std::string wt = ctx.static_f32(node.output(0) + "_bn_weight", {static_cast<uint32_t>(c)}, w);
    const std::string bt = ctx.static_f32(node.output(0) + "_bn_bias", {static_cast<uint32_t>(c)}, bias);
    ctx.add_node(QNN_OP_BATCHNORM, {x, wt, bt}, {ctx.output(node.output(0), layout)});
    return;
  }
  const QTensor& xt = ctx.qtensor(x);
  const std::vector<uint32_t> xdims = xt.dims;
  const Qnn_DataType_t dt = xt.dtype;
  const uint32_t c = xdims.back();
  const std::string base = node.output(0);
  const std::string eps_t = ctx.static_f32(base + "_eps", {1}, {eps});
  const std::string var_eps = ctx.native(base + "_var_eps", dt, {c});
  ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {ctx.as_is(node.input(4)), eps_t}, {var_eps});
  const std::string inv_std = ctx.native(base + "_inv_std", dt, {c});
  ctx.add_node(QNN_OP_ELEMENT_WISE_UNARY, {var_eps}, {inv_std},
               {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_UNARY_OPERATION_RSQRT)});
  const std::string w = ctx.native(base + "_w", dt, {c});
  ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {ctx.as_is(node.input(1)), inv_std}, {w});
  const std::string centered = ctx.native(base + "_centered", dt, xdims);
  ctx.add_node(QNN_OP_ELEMENT_WISE_SUBTRACT, {x, ctx.as_is(node.input(3))}, {centered});
  const std::string scaled = ctx.native(base + "_scaled", dt, xdims);
  ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {centered, w}, {scaled});
  ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {scaled, ctx.as_is(node.input(2))}, {ctx.output(node.output(0), layout)});
}

std::string check_instance_norm(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v == nullptr || v->dims.size() < 3) return "input must have rank >= 3";
  return "";
}

void lower_instance_norm(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string x = ctx.channel_last(node.input(0));
  ctx.add_node(QNN_OP_INSTANCE_NORM, {x, ctx.as_is(node.input(1)), ctx.as_is(node.input(2))},
               {ctx.output(node.output(0), Layout::kChannelLast)},
               {param_f32(QNN_OP_INSTANCE_NORM_PARAM_EPSILON, attr_float(node, "epsilon", 1e-5f)),
                param_u32(QNN_OP_INSTANCE_NORM_PARAM_MODE, QNN_OP_INSTANCE_NORM_MODE_MU_SIGMA),
                param_bool(QNN_OP_INSTANCE_NORM_PARAM_NORMALIZE_VARIANCE, true),
                param_u32(QNN_OP_INSTANCE_NORM_PARAM_REGION, QNN_OP_INSTANCE_NORM_REGION_ACROSS_SPATIAL)});
}

}  // namespace

std::vector<OpLowering> norm_lowerings() {
  return {
      {"BatchNormalization", check_batchnorm, lower_batchnorm},
      {"InstanceNormalization", check_instance_norm, lower_instance_norm},
  };
}

}  // namespace openhtp::onnx_import
