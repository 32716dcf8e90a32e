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
  if (attr_int(node, "training_mode", 0) != 0) return "training_mode=1 is not supported";
  if (std::string why = check_no_extra_outputs(node, 1); !why.empty()) return why;
  const ValueInfo* v = model.info(node.input(0));
  if (v == nullptr || v->dims.size() < 2) return "input must have rank >= 2";
  return "";
}

// BatchNormalization (inference). With constant statistics: QNN Batchnorm
// with w = scale / sqrt(var + eps) and b = B - mean * w. With statistics
// given at run time: the same formula as element-wise ops on [C] vectors,
// which broadcast over the last (channel) axis of the channel-last input.
void lower_batchnorm(const onnx::NodeProto& node, LoweringContext& ctx) {
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
