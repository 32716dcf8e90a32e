// Convolutions and pools, lowered on channel-last activations: Conv
// (Conv2d / DepthWiseConv2d), ConvTranspose (TransposeConv2d), MaxPool /
// AveragePool (PoolMax2d / PoolAvg2d), GlobalAverage/MaxPool (reductions over
// H, W).
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

}  // namespace

std::vector<OpLowering> conv_pool_lowerings() {
  return {
      {"Conv", check_conv, lower_conv},
      {"ConvTranspose", check_conv_transpose, lower_conv_transpose},
      {"MaxPool", check_pool, lower_pool},
      {"AveragePool", check_pool, lower_pool},
      {"GlobalAveragePool", check_global_pool, lower_global_pool},
      {"GlobalMaxPool", check_global_pool, lower_global_pool},
  };
}

}  // namespace openhtp::onnx_import
