// Layout-sensitive ONNX ops, lowered on channel-last activations: Conv
// (Conv2d / DepthWiseConv2d), ConvTranspose (TransposeConv2d), MaxPool /
// AveragePool (PoolMax2d / PoolAvg2d), GlobalAverage/MaxPool (reductions over
// H, W), BatchNormalization, InstanceNormalization, Resize / Upsample.
// Only 2-D spatial (rank-4) tensors; weights are converted to QNN layouts
// here (constant) or by a Transpose node (weights given at run time).
#include <cmath>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::vector<uint32_t> u32(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

std::string check_rank4(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v == nullptr || v->dims.size() != 4) {
    return "only 2-D spatial inputs (rank 4, NCHW) are supported, got rank " +
           std::to_string(v == nullptr ? 0 : v->dims.size());
  }
  return "";
}

// pad_amount [[top, bottom], [left, right]] for a conv/pool window with
// effective (dilated) kernel sizes `k`, from pads or auto_pad.
std::vector<uint32_t> window_pads(const onnx::NodeProto& node, const std::vector<int64_t>& in_hw,
                                  const std::vector<int64_t>& k, const std::vector<int64_t>& strides,
                                  LoweringContext& ctx) {
  const std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  std::vector<int64_t> b(2, 0), e(2, 0);
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      const int64_t out = (in_hw[i] + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + k[i] - in_hw[i]);
      b[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      e[i] = total - b[i];
    }
  } else if (auto_pad == "NOTSET") {
    std::vector<int64_t> pads = attr_ints(node, "pads", {0, 0, 0, 0});
    if (pads.size() != 4) ctx.fail("'pads' has " + std::to_string(pads.size()) + " entries, expected 4");
    b = {pads[0], pads[1]};
    e = {pads[2], pads[3]};
  } else if (auto_pad != "VALID") {
    ctx.fail("auto_pad '" + auto_pad + "' is not supported");
  }
  return {static_cast<uint32_t>(b[0]), static_cast<uint32_t>(e[0]), static_cast<uint32_t>(b[1]),
          static_cast<uint32_t>(e[1])};
}

std::string check_conv(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_rank4(node, model); !why.empty()) return why;
  return "";
}

void lower_conv(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& xn = node.input(0);
  const std::string& wn = node.input(1);
  const std::vector<int64_t> xd = ctx.info(xn).dims, wd = ctx.info(wn).dims;
  const int64_t group = attr_int(node, "group", 1);
  const std::vector<int64_t> strides = attr_ints(node, "strides", {1, 1});
  const std::vector<int64_t> dil = attr_ints(node, "dilations", {1, 1});
  const std::vector<int64_t> keff = {(wd[2] - 1) * dil[0] + 1, (wd[3] - 1) * dil[1] + 1};
  const std::vector<uint32_t> pads = window_pads(node, {xd[2], xd[3]}, keff, strides, ctx);
  const std::string x = ctx.channel_last(xn);
  std::string w;
  if (const Tensor* c = ctx.constant(wn)) {
    w = ctx.static_from(wn + "_hwio", conv_weight_to_hwio(*c));
    ctx.set_source(w, wn, kConvWeightPerm);
  } else {
    w = ctx.transpose(ctx.as_is(wn), kConvWeightPerm);
  }
  std::vector<std::string> inputs = {x, w};
  if (const std::string bn = input_name(node, 2); !bn.empty()) inputs.push_back(ctx.as_is(bn));
  const bool depthwise = group > 1 && group == xd[1] && wd[1] == 1;
  std::vector<QParam> params = {
      param_u32_tensor(QNN_OP_CONV_2D_PARAM_STRIDE, {2}, u32(strides)),
      param_u32_tensor(QNN_OP_CONV_2D_PARAM_PAD_AMOUNT, {2, 2}, pads),
      param_u32_tensor(QNN_OP_CONV_2D_PARAM_DILATION, {2}, u32(dil)),
  };
  if (!depthwise) params.push_back(param_u32(QNN_OP_CONV_2D_PARAM_GROUP, static_cast<uint32_t>(group)));
  ctx.add_node(depthwise ? QNN_OP_DEPTH_WISE_CONV_2D : QNN_OP_CONV_2D, inputs,
               {ctx.output(node.output(0), Layout::kChannelLast)}, params);
}

std::string check_conv_transpose(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_rank4(node, model); !why.empty()) return why;
  for (int64_t d : attr_ints(node, "dilations", {1, 1})) {
    if (d != 1) return "dilations other than 1 are not supported (QNN TransposeConv2d has no dilation)";
  }
  return "";
}

void lower_conv_transpose(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& xn = node.input(0);
  const std::string& wn = node.input(1);
  const std::vector<int64_t> xd = ctx.info(xn).dims, wd = ctx.info(wn).dims;
  const std::vector<int64_t> yd = ctx.info(node.output(0)).dims;
  const int64_t group = attr_int(node, "group", 1);
  const std::vector<int64_t> strides = attr_ints(node, "strides", {1, 1});
  std::vector<int64_t> out_pad = attr_ints(node, "output_padding", {0, 0});
  const std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  std::vector<uint32_t> pads(4, 0);
  if (auto_pad == "NOTSET" && !has_attr(node, "output_shape")) {
    std::vector<int64_t> p = attr_ints(node, "pads", {0, 0, 0, 0});
    pads = {static_cast<uint32_t>(p[0]), static_cast<uint32_t>(p[2]), static_cast<uint32_t>(p[1]),
            static_cast<uint32_t>(p[3])};
  } else {
    // Pads derived from the output size (ONNX ConvTranspose: total_padding
    // = stride*(in-1) + output_padding + kernel - out). A negative total is
    // extra output rows/cols at the end, i.e. more output_padding.
    for (int i = 0; i < 2; ++i) {
      const int64_t total = strides[i] * (xd[2 + i] - 1) + out_pad[i] + wd[2 + i] - yd[2 + i];
      if (total < 0) {
        out_pad[i] -= total;
        continue;
      }
      const int64_t begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[2 * i] = static_cast<uint32_t>(begin);
      pads[2 * i + 1] = static_cast<uint32_t>(total - begin);
    }
  }
  const std::string x = ctx.channel_last(xn);
  std::string w;
  if (const Tensor* c = ctx.constant(wn)) {
    w = ctx.static_from(wn + "_qnn", conv_transpose_weight_to_qnn(*c));
    ctx.set_source(w, wn, kConvTransposeWeightPerm);
  } else {
    w = ctx.transpose(ctx.as_is(wn), kConvTransposeWeightPerm);
  }
  std::vector<std::string> inputs = {x, w};
  if (const std::string bn = input_name(node, 2); !bn.empty()) inputs.push_back(ctx.as_is(bn));
  ctx.add_node(QNN_OP_TRANSPOSE_CONV_2D, inputs, {ctx.output(node.output(0), Layout::kChannelLast)},
               {param_u32_tensor(QNN_OP_TRANSPOSE_CONV_2D_PARAM_STRIDE, {2}, u32(strides)),
                param_u32_tensor(QNN_OP_TRANSPOSE_CONV_2D_PARAM_PAD_AMOUNT, {2, 2}, pads),
                param_u32(QNN_OP_TRANSPOSE_CONV_2D_PARAM_GROUP, static_cast<uint32_t>(group)),
                param_u32_tensor(QNN_OP_TRANSPOSE_CONV_2D_PARAM_OUTPUT_PADDING, {2}, u32(out_pad))});
}

std::string check_pool(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_rank4(node, model); !why.empty()) return why;
  for (int64_t d : attr_ints(node, "dilations", {1, 1})) {
    if (d != 1) return "dilations other than 1 are not supported (QNN pools have no dilation)";
  }
  return check_no_extra_outputs(node, 1);
}

void lower_pool(const onnx::NodeProto& node, LoweringContext& ctx) {
  const bool is_max = node.op_type() == "MaxPool";
  const std::vector<int64_t> xd = ctx.info(node.input(0)).dims;
  const std::vector<int64_t> k = attr_ints(node, "kernel_shape");
  if (k.size() != 2) ctx.fail("'kernel_shape' has " + std::to_string(k.size()) + " entries, expected 2");
  const std::vector<int64_t> strides = attr_ints(node, "strides", {1, 1});
  const std::vector<uint32_t> pads = window_pads(node, {xd[2], xd[3]}, k, strides, ctx);
  const uint32_t rounding = attr_int(node, "ceil_mode", 0) != 0 ? QNN_OP_POOL_MAX_2D_ROUNDING_MODE_CEIL
                                                                 : QNN_OP_POOL_MAX_2D_ROUNDING_MODE_FLOOR;
  std::vector<QParam> params = {
      param_u32_tensor(QNN_OP_POOL_MAX_2D_PARAM_FILTER_SIZE, {2}, u32(k)),
      param_u32_tensor(QNN_OP_POOL_MAX_2D_PARAM_STRIDE, {2}, u32(strides)),
      param_u32_tensor(QNN_OP_POOL_MAX_2D_PARAM_PAD_AMOUNT, {2, 2}, pads),
      param_u32(QNN_OP_POOL_MAX_2D_PARAM_ROUNDING_MODE, rounding),
  };
  if (!is_max) {
    params.push_back(param_bool(QNN_OP_POOL_AVG_2D_PARAM_COUNT_PAD_FOR_EDGES,
                                attr_int(node, "count_include_pad", 0) != 0));
  }
  const std::string x = ctx.channel_last(node.input(0));
  ctx.add_node(is_max ? QNN_OP_POOL_MAX_2D : QNN_OP_POOL_AVG_2D, {x},
               {ctx.output(node.output(0), Layout::kChannelLast)}, params);
}

// Global pools: a reduction over the spatial axes, keeping dims; done on
// whichever layout the input already has.
void lower_global_pool(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  const bool cl = ctx.prefers_channel_last(in);
  std::vector<uint32_t> axes;
  for (uint32_t a = 0; a + 2 < r; ++a) axes.push_back(cl ? a + 1 : a + 2);
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  ctx.add_node(node.op_type() == "GlobalMaxPool" ? QNN_OP_REDUCE_MAX : QNN_OP_REDUCE_MEAN, {x},
               {ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx)},
               {param_u32_tensor(QNN_OP_REDUCE_MEAN_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes),
                param_bool(QNN_OP_REDUCE_MEAN_PARAM_KEEP_DIMS, true)});
}

std::string check_global_pool(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v == nullptr || v->dims.size() < 3) return "input must have rank >= 3";
  return "";
}

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

std::string check_resize(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* in = model.info(node.input(0));
  const ValueInfo* out = model.info(node.output(0));
  if (in == nullptr || in->dims.size() != 4) return "only rank-4 (NCHW) inputs are supported";
  if (out == nullptr || !out->is_static()) return "output shape is not static";
  if (in->dims[0] != out->dims[0] || in->dims[1] != out->dims[1]) return "resizing N or C is not supported";
  const std::string mode = attr_string(node, "mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic") return "mode '" + mode + "' is not supported";
  const std::string ctm = attr_string(node, "coordinate_transformation_mode", "half_pixel");
  if (ctm == "tf_crop_and_resize" || ctm == "tf_half_pixel_for_nn") {
    return "coordinate_transformation_mode '" + ctm + "' is not supported";
  }
  // QNN Resize derives its scale from the tensor sizes; ONNX maps
  // coordinates with the given scales, which differ when out = floor(in *
  // scale) is not exact (e.g. 4 * 0.6). Only exact scales are expressible.
  const int scales_input = node.op_type() == "Upsample" || model.opset < 11 ? 1 : 2;
  if (const std::string sn = input_name(node, scales_input); !sn.empty()) {
    const Tensor* sc = model.constant(sn);
    if (sc == nullptr) return "scales must be a constant";
    for (size_t i = 0; i < sc->count() && i < 4; ++i) {
      const double exact = static_cast<double>(out->dims[i]) / static_cast<double>(in->dims[i]);
      if (std::fabs(sc->get(i) - exact) > 1e-6 * exact) {
        return "scale " + std::to_string(sc->get(i)) + " on axis " + std::to_string(i) +
               " is not output/input size (" + std::to_string(out->dims[i]) + "/" + std::to_string(in->dims[i]) +
               "); QNN Resize has no scale parameter";
      }
    }
  }
  return "";
}

void lower_resize(const onnx::NodeProto& node, LoweringContext& ctx) {
  const bool legacy = node.op_type() == "Upsample" || ctx.model().opset < 11;
  const std::string mode = attr_string(node, "mode", "nearest");
  // Upsample and opset-10 Resize: output index i samples input i / scale
  // (asymmetric), nearest rounds down.
  const std::string ctm = legacy ? "asymmetric" : attr_string(node, "coordinate_transformation_mode", "half_pixel");
  const std::string nearest = legacy ? "floor" : attr_string(node, "nearest_mode", "round_prefer_floor");
  const uint32_t t = ctm == "pytorch_half_pixel" ? QNN_OP_RESIZE_TRANSFORMATION_MODE_PYTORCH_HALF_PIXEL
                     : ctm == "align_corners"    ? QNN_OP_RESIZE_TRANSFORMATION_MODE_ALIGN_CORNERS
                     : ctm == "asymmetric"       ? QNN_OP_RESIZE_TRANSFORMATION_MODE_ASYMMETRIC
                                                 : QNN_OP_RESIZE_TRANSFORMATION_MODE_HALF_PIXEL;
  const uint32_t interp = mode == "linear"  ? QNN_OP_RESIZE_INTERPOLATION_MODE_LINEAR
                          : mode == "cubic" ? QNN_OP_RESIZE_INTERPOLATION_MODE_CUBIC
                                            : QNN_OP_RESIZE_INTERPOLATION_MODE_NEAREST;
  const uint32_t nm = nearest == "round_prefer_ceil" ? QNN_OP_RESIZE_NEAREST_MODE_ROUND_PREFER_CEIL
                      : nearest == "floor"           ? QNN_OP_RESIZE_NEAREST_MODE_FLOOR
                      : nearest == "ceil"            ? QNN_OP_RESIZE_NEAREST_MODE_CEIL
                                                     : QNN_OP_RESIZE_NEAREST_MODE_ROUND_PREFER_FLOOR;
  const std::string x = ctx.channel_last(node.input(0));
  ctx.add_node(QNN_OP_RESIZE, {x}, {ctx.output(node.output(0), Layout::kChannelLast)},
               {param_bool(QNN_OP_RESIZE_PARAM_EXCLUDE_OUTSIDE, attr_int(node, "exclude_outside", 0) != 0),
                param_u32(QNN_OP_RESIZE_PARAM_TRANSFORMATION_MODE, t),
                param_u32(QNN_OP_RESIZE_PARAM_INTERPOLATION_MODE, interp),
                param_u32(QNN_OP_RESIZE_PARAM_NEAREST_MODE, nm),
                param_f32(QNN_OP_RESIZE_PARAM_CUBIC_COEFF, attr_float(node, "cubic_coeff_a", -0.75f))});
}

}  // namespace

std::vector<OpLowering> conv_pool_lowerings() {
  return {
      {"Conv", check_conv, lower_conv},
      {"ConvTranspose", check_conv_transpose, lower_conv_transpose},
      {"MaxPool", check_pool, lower_pool},
      {"AveragePool", check_pool, lower_pool},
      {"GlobalAveragePool", check_global_pool, lower_global_pool},
      {"GlobalMaxPool", check_global_pool, lower_global_pool},
      {"BatchNormalization", check_batchnorm, lower_batchnorm},
      {"InstanceNormalization", check_instance_norm, lower_instance_norm},
      {"Resize", check_resize, lower_resize},
      {"Upsample", check_resize, lower_resize},
  };
}

}  // namespace openhtp::onnx_import
