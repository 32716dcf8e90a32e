// Convolutions and pools, lowered on channel-last activations: Conv
// (Conv2d / DepthWiseConv2d / Conv3d; ConvInteger and QLinearConv in float
// on Conv2d), ConvTranspose (TransposeConv2d /
// TransposeConv3d), MaxPool / AveragePool (PoolMax2d / PoolAvg2d, PoolMax3d /
// PoolAvg3d), GlobalAverage/MaxPool (reductions over the spatial axes).
// Conv, ConvTranspose and the pools take 2-D spatial (rank-4) and 3-D
// spatial (rank-5, NCDHW -> NDHWC; Conv3d, TransposeConv3d, PoolMax3d,
// PoolAvg3d) tensors. Weights are converted to QNN
// layouts here (constant) or by a Transpose node (weights given at run time).
// A dilated 2-D ConvTranspose runs as TransposeConv2d on the dilated kernel
// (zeros between the taps); MaxPool/AveragePool with dilation are refused.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::vector<uint32_t> u32(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

// "" when input 0 has 2 (rank 4) or, with `allow_3d`, 3 (rank 5) spatial axes.
std::string check_spatial_rank(const onnx::NodeProto& node, const Model& model, bool allow_3d) {
  const ValueInfo* v = model.info(node.input(0));
  const size_t rank = v == nullptr ? 0 : v->dims.size();
  if (rank == 4 || (allow_3d && rank == 5)) return "";
  return allow_3d ? "only 2-D or 3-D spatial inputs (rank 4 NCHW or rank 5 NCDHW) are supported, got rank " +
                        std::to_string(rank)
                  : "only 2-D spatial inputs (rank 4, NCHW) are supported, got rank " + std::to_string(rank);
}

// An INTS attribute with one entry per spatial axis (`fallback` when absent).
std::vector<int64_t> per_axis(const onnx::NodeProto& node, const std::string& name, size_t n, int64_t fallback,
                              LoweringContext& ctx) {
  std::vector<int64_t> v = attr_ints(node, name, std::vector<int64_t>(n, fallback));
  if (v.size() != n) {
    ctx.fail("'" + name + "' has " + std::to_string(v.size()) + " entries, expected " + std::to_string(n));
  }
  return v;
}

// pad_amount [[begin, end] per spatial axis] (QNN's [n, 2] layout) for a
// conv/pool window with effective (dilated) kernel sizes `k`, from pads
// ([begins..., ends...] in ONNX) or auto_pad.
std::vector<uint32_t> window_pads(const onnx::NodeProto& node, const std::vector<int64_t>& in_sp,
                                  const std::vector<int64_t>& k, const std::vector<int64_t>& strides,
                                  LoweringContext& ctx) {
  const size_t n = in_sp.size();
  const std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  std::vector<int64_t> b(n, 0), e(n, 0);
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      const int64_t out = (in_sp[i] + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + k[i] - in_sp[i]);
      b[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      e[i] = total - b[i];
    }
  } else if (auto_pad == "NOTSET") {
    std::vector<int64_t> pads = attr_ints(node, "pads", std::vector<int64_t>(2 * n, 0));
    if (pads.size() != 2 * n) {
      ctx.fail("'pads' has " + std::to_string(pads.size()) + " entries, expected " + std::to_string(2 * n));
    }
    for (size_t i = 0; i < n; ++i) {
      b[i] = pads[i];
      e[i] = pads[n + i];
    }
  } else if (auto_pad != "VALID") {
    ctx.fail("auto_pad '" + auto_pad + "' is not supported");
  }
  std::vector<uint32_t> out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back(static_cast<uint32_t>(b[i]));
    out.push_back(static_cast<uint32_t>(e[i]));
  }
  return out;
}

std::string check_conv(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_spatial_rank(node, model, true); !why.empty()) return why;
  return "";
}

// Weight [Cout, Cin/group, kd, kh, kw] -> QNN Conv3d [kd, kh, kw, Cin/group, Cout].
inline const std::vector<uint32_t> kConv3dWeightPerm = {2, 3, 4, 1, 0};

// 3-D Conv (rank-5 NCDHW, channel-last NDHWC) -> Conv3d, groups included.
void lower_conv3d(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& xn = node.input(0);
  const std::string& wn = node.input(1);
  const std::vector<int64_t> xd = ctx.info(xn).dims, wd = ctx.info(wn).dims;
  if (wd.size() != 5) ctx.fail("weight rank " + std::to_string(wd.size()) + " differs from input rank 5");
  const int64_t group = attr_int(node, "group", 1);
  const std::vector<int64_t> strides = per_axis(node, "strides", 3, 1, ctx);
  const std::vector<int64_t> dil = per_axis(node, "dilations", 3, 1, ctx);
  std::vector<int64_t> keff(3);
  for (size_t i = 0; i < 3; ++i) keff[i] = (wd[2 + i] - 1) * dil[i] + 1;
  const std::vector<uint32_t> pads = window_pads(node, {xd[2], xd[3], xd[4]}, keff, strides, ctx);
  const std::string x = ctx.channel_last(xn);
  std::string w;
  if (const Tensor* c = ctx.constant(wn)) {
    w = ctx.static_from(wn + "_dhwio", permute_tensor(*c, kConv3dWeightPerm));
    ctx.set_source(w, wn, kConv3dWeightPerm);
  } else {
    w = ctx.transpose(ctx.as_is(wn), kConv3dWeightPerm);
  }
  std::vector<std::string> inputs = {x, w};
  if (const std::string bn = input_name(node, 2); !bn.empty()) inputs.push_back(ctx.as_is(bn));
  ctx.add_node(QNN_OP_CONV_3D, inputs, {ctx.output(node.output(0), Layout::kChannelLast)},
               {param_u32_tensor(QNN_OP_CONV_3D_PARAM_STRIDE, {3}, u32(strides)),
                param_u32_tensor(QNN_OP_CONV_3D_PARAM_PAD_AMOUNT, {3, 2}, pads),
                param_u32_tensor(QNN_OP_CONV_3D_PARAM_DILATION, {3}, u32(dil)),
                param_u32(QNN_OP_CONV_3D_PARAM_GROUP, static_cast<uint32_t>(group))});
}

// Conv2d / DepthWiseConv2d of channel-last `x` (ONNX dims `xd`) with QNN
// weight `w` (HWIO, from ONNX dims `wd`) and optional `bias` into `out`,
// with the node's strides, dilations, pads and group.
void emit_conv2d(const onnx::NodeProto& node, LoweringContext& ctx, const std::string& x,
                 const std::vector<int64_t>& xd, const std::string& w, const std::vector<int64_t>& wd,
                 const std::string& bias, const std::string& out) {
  const int64_t group = attr_int(node, "group", 1);
  const std::vector<int64_t> strides = attr_ints(node, "strides", {1, 1});
  const std::vector<int64_t> dil = attr_ints(node, "dilations", {1, 1});
  const std::vector<int64_t> keff = {(wd[2] - 1) * dil[0] + 1, (wd[3] - 1) * dil[1] + 1};
  const std::vector<uint32_t> pads = window_pads(node, {xd[2], xd[3]}, keff, strides, ctx);
  std::vector<std::string> inputs = {x, w};
  if (!bias.empty()) inputs.push_back(bias);
  const bool depthwise = group > 1 && group == xd[1] && wd[1] == 1;
  std::vector<QParam> params = {
      param_u32_tensor(QNN_OP_CONV_2D_PARAM_STRIDE, {2}, u32(strides)),
      param_u32_tensor(QNN_OP_CONV_2D_PARAM_PAD_AMOUNT, {2, 2}, pads),
      param_u32_tensor(QNN_OP_CONV_2D_PARAM_DILATION, {2}, u32(dil)),
  };
  if (!depthwise) params.push_back(param_u32(QNN_OP_CONV_2D_PARAM_GROUP, static_cast<uint32_t>(group)));
  ctx.add_node(depthwise ? QNN_OP_DEPTH_WISE_CONV_2D : QNN_OP_CONV_2D, inputs, {out}, params);
}

void lower_conv(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& xn = node.input(0);
  const std::string& wn = node.input(1);
  const std::vector<int64_t> xd = ctx.info(xn).dims, wd = ctx.info(wn).dims;
  if (xd.size() == 5) {
    lower_conv3d(node, ctx);
    return;
  }
  const std::string x = ctx.channel_last(xn);
  std::string w;
  if (const Tensor* c = ctx.constant(wn)) {
    w = ctx.static_from(wn + "_hwio", conv_weight_to_hwio(*c));
    ctx.set_source(w, wn, kConvWeightPerm);
  } else {
    w = ctx.transpose(ctx.as_is(wn), kConvWeightPerm);
  }
  const std::string bn = input_name(node, 2);
  emit_conv2d(node, ctx, x, xd, w, wd, bn.empty() ? "" : ctx.as_is(bn), ctx.output(node.output(0), Layout::kChannelLast));
}

// ConvInteger / QLinearConv (2-D), in float: (x - x_zp) and (w - w_zp) by
// Cast and Subtract (w_zp per output channel as [M, 1, 1, 1]), Conv2d (zero
// padding is then padding with the zero point, as ONNX), then ConvInteger:
// Cast to INT_32; QLinearConv: + B, y = saturate(round(acc * x_s * w_s / y_s)
// + y_zp) (w_s per channel broadcasts on the channel-last axis), Cast. Exact
// while the accumulator is below 2^24.
std::string check_conv_integer(const onnx::NodeProto& node, const Model& model) {
  return check_spatial_rank(node, model, false);
}

void lower_conv_integer(const onnx::NodeProto& node, LoweringContext& ctx) {
  const bool qlinear = node.op_type() == "QLinearConv";
  const std::string xn = node.input(0), wn = node.input(qlinear ? 3 : 1);
  const std::string xzp = input_name(node, 2), wzp = input_name(node, qlinear ? 5 : 3);
  const std::vector<int64_t> xd = ctx.info(xn).dims, wd = ctx.info(wn).dims;
  const std::string hint = node.output(0);
  auto to_float = [&](const std::string& q) {
    const std::string out = ctx.native(hint + "_f", QNN_DATATYPE_FLOAT_32, ctx.qtensor(q).dims);
    ctx.add_node(QNN_OP_CAST, {q}, {out});
    return out;
  };
  auto binary = [&](const char* op, const std::string& a, const std::string& b) {
    const std::string out = ctx.native(hint + "_t", QNN_DATATYPE_FLOAT_32, ctx.qtensor(a).dims);
    ctx.add_node(op, {a, b}, {out});
    return out;
  };
  std::string x = to_float(ctx.channel_last(xn));
  if (!xzp.empty()) x = binary(QNN_OP_ELEMENT_WISE_SUBTRACT, x, ctx.reshape(to_float(ctx.as_is(xzp)), {1}));
  std::string w = to_float(ctx.as_is(wn));
  if (!wzp.empty()) {
    std::string z = to_float(ctx.as_is(wzp));
    const std::vector<uint32_t> zd = ctx.qtensor(z).dims;
    z = ctx.reshape(z, zd.size() == 1 && zd[0] > 1 ? std::vector<uint32_t>{zd[0], 1, 1, 1} : std::vector<uint32_t>{1});
    w = binary(QNN_OP_ELEMENT_WISE_SUBTRACT, w, z);
  }
  w = ctx.transpose(w, kConvWeightPerm);
  std::string bias;
  if (qlinear && !input_name(node, 8).empty()) bias = to_float(ctx.as_is(node.input(8)));
  std::vector<uint32_t> yd = ctx.dims_u32(node.output(0));
  const std::vector<uint32_t> acc_dims = permute_dims(yd, to_channel_last_perm(yd.size()));
  const std::string acc = ctx.native(hint + "_acc", QNN_DATATYPE_FLOAT_32, acc_dims);
  emit_conv2d(node, ctx, x, xd, w, wd, bias, acc);
  const std::string y = ctx.output(node.output(0), Layout::kChannelLast);
  if (!qlinear) {
    ctx.add_node(QNN_OP_CAST, {acc}, {y});
    return;
  }
  auto scalar_or_vector = [&](int i) {
    std::string t = to_float(ctx.as_is(node.input(i)));
    return ctx.qtensor(t).dims.empty() ? ctx.reshape(t, {1}) : t;
  };
  const std::string scale = binary(QNN_OP_ELEMENT_WISE_DIVIDE,
                                   binary(QNN_OP_ELEMENT_WISE_MULTIPLY, scalar_or_vector(4), scalar_or_vector(1)),
                                   scalar_or_vector(6));
  std::string q = binary(QNN_OP_ELEMENT_WISE_MULTIPLY, acc, scale);
  const std::string r = ctx.native(hint + "_round", QNN_DATATYPE_FLOAT_32, acc_dims);
  ctx.add_node(QNN_OP_ELEMENT_WISE_UNARY, {q}, {r},
               {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ROUND)});
  q = binary(QNN_OP_ELEMENT_WISE_ADD, r, ctx.reshape(to_float(ctx.as_is(node.input(7))), {1}));
  const bool is_signed = ctx.info(node.output(0)).elem_type == onnx_type::kInt8;
  q = binary(QNN_OP_ELEMENT_WISE_MAXIMUM, q, ctx.static_f32(hint + "_lo", {1}, {is_signed ? -128.0f : 0.0f}));
  q = binary(QNN_OP_ELEMENT_WISE_MINIMUM, q, ctx.static_f32(hint + "_hi", {1}, {is_signed ? 127.0f : 255.0f}));
  ctx.add_node(QNN_OP_CAST, {q}, {y});
}

std::string check_conv_transpose(const onnx::NodeProto& node, const Model& model) {
  return check_spatial_rank(node, model, true);
}

// QNN TransposeConv2d has no dilation parameter; a dilated 2-D ConvTranspose
// runs on the equivalent dilated kernel: tap (i, j) moved to (i*dh, j*dw),
// zeros between.

// Constant QNN weight [kh, kw, Cin, Cout/g] -> [dh*(kh-1)+1, dw*(kw-1)+1, Cin, Cout/g].
Tensor dilate_transpose_conv2d_weight(const Tensor& w, const std::vector<int64_t>& dil) {
  const int64_t kh = w.dims[0], kw = w.dims[1];
  const int64_t eh = dil[0] * (kh - 1) + 1, ew = dil[1] * (kw - 1) + 1;
  Tensor out = Tensor::zeros(w.elem_type, {eh, ew, w.dims[2], w.dims[3]});
  const size_t tap_bytes = static_cast<size_t>(w.dims[2] * w.dims[3]) * onnx_type::element_size(w.elem_type);
  for (int64_t i = 0; i < kh; ++i) {
    for (int64_t j = 0; j < kw; ++j) {
      const size_t from = static_cast<size_t>(i * kw + j) * tap_bytes;
      const size_t to = static_cast<size_t>(i * dil[0] * ew + j * dil[1]) * tap_bytes;
      std::memcpy(out.data.data() + to, w.data.data() + from, tap_bytes);
    }
  }
  return out;
}

// A weight given at run time: along `axis` (0 = kh, 1 = kw) of QNN weight
// tensor `w`, d-1 zero taps after every tap, built in the graph as Reshape
// [outer*k, 1, inner] -> Concat with a STATIC zero block [outer*k, d-1, inner]
// -> Reshape. That is k*d taps, d-1 more than the dilated kernel: the extra
// taps are zeros at the end, which the caller cancels with d-1 more end
// padding (the output size then equals the dilated kernel's).
std::string spread_runtime_weight(const std::string& w, size_t axis, uint32_t d, LoweringContext& ctx) {
  const std::vector<uint32_t> dims = ctx.qtensor(w).dims;
  const Qnn_DataType_t dt = ctx.qtensor(w).dtype;
  uint32_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= dims[i];
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const uint32_t rows = outer * dims[axis];
  const std::string flat = ctx.reshape(w, {rows, 1, inner});
  const std::vector<uint32_t> zero_dims = {rows, d - 1, inner};
  const std::string zeros = ctx.static_tensor(
      w + "_dilation_zeros", dt, zero_dims,
      std::vector<uint8_t>(size_t{rows} * (d - 1) * inner * qnn_element_size(dt), 0));
  const std::string spread = ctx.native(w + "_dilated", dt, {rows, d, inner});
  ctx.add_node(QNN_OP_CONCAT, {flat, zeros}, {spread}, {param_u32(QNN_OP_CONCAT_PARAM_AXIS, 1)});
  std::vector<uint32_t> out_dims = dims;
  out_dims[axis] *= d;
  return ctx.reshape(spread, out_dims);
}

void lower_conv_transpose(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& xn = node.input(0);
  const std::string& wn = node.input(1);
  const std::vector<int64_t> xd = ctx.info(xn).dims, wd = ctx.info(wn).dims;
  const std::vector<int64_t> yd = ctx.info(node.output(0)).dims;
  const size_t nsp = xd.size() - 2;  // spatial axes: 2 or 3
  const bool is_3d = nsp == 3;
  if (wd.size() != xd.size()) {
    ctx.fail("weight rank " + std::to_string(wd.size()) + " differs from input rank " + std::to_string(xd.size()));
  }
  const int64_t group = attr_int(node, "group", 1);
  const std::vector<int64_t> strides = per_axis(node, "strides", nsp, 1, ctx);
  const std::vector<int64_t> dil = per_axis(node, "dilations", nsp, 1, ctx);
  std::vector<int64_t> out_pad = per_axis(node, "output_padding", nsp, 0, ctx);
  // Effective (dilated) kernel size per spatial axis.
  std::vector<int64_t> keff(nsp);
  for (size_t i = 0; i < nsp; ++i) keff[i] = dil[i] * (wd[2 + i] - 1) + 1;
  const std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  std::vector<uint32_t> pads(2 * nsp, 0);
  if (auto_pad == "NOTSET" && !has_attr(node, "output_shape")) {
    std::vector<int64_t> p = attr_ints(node, "pads", std::vector<int64_t>(2 * nsp, 0));
    if (p.size() != 2 * nsp) {
      ctx.fail("'pads' has " + std::to_string(p.size()) + " entries, expected " + std::to_string(2 * nsp));
    }
    for (size_t i = 0; i < nsp; ++i) {
      pads[2 * i] = static_cast<uint32_t>(p[i]);
      pads[2 * i + 1] = static_cast<uint32_t>(p[nsp + i]);
    }
  } else {
    // Pads derived from the output size (ONNX ConvTranspose: total_padding
    // = stride*(in-1) + output_padding + effective kernel - out). A negative
    // total is extra output rows/cols at the end, i.e. more output_padding.
    for (size_t i = 0; i < nsp; ++i) {
      const int64_t total = strides[i] * (xd[2 + i] - 1) + out_pad[i] + keff[i] - yd[2 + i];
      if (total < 0) {
        out_pad[i] -= total;
        continue;
      }
      const int64_t begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[2 * i] = static_cast<uint32_t>(begin);
      pads[2 * i + 1] = static_cast<uint32_t>(total - begin);
    }
  }
  const bool dilated = std::any_of(dil.begin(), dil.end(), [](int64_t d) { return d != 1; });
  const std::string x = ctx.channel_last(xn);
  std::string w;
  if (is_3d) {
    if (const Tensor* c = ctx.constant(wn)) {
      w = ctx.static_from(wn + "_qnn", conv_transpose3d_weight_to_qnn(*c));
      ctx.set_source(w, wn, kConvTranspose3dWeightPerm);
    } else {
      w = ctx.transpose(ctx.as_is(wn), kConvTranspose3dWeightPerm);
    }
  } else if (const Tensor* c = ctx.constant(wn)) {
    if (dilated) {
      // Not a permutation of the ONNX constant, so no set_source: its QDQ
      // integers (if any) cannot be carried over as they are.
      w = ctx.static_from(wn + "_qnn_dilated", dilate_transpose_conv2d_weight(conv_transpose_weight_to_qnn(*c), dil));
    } else {
      w = ctx.static_from(wn + "_qnn", conv_transpose_weight_to_qnn(*c));
      ctx.set_source(w, wn, kConvTransposeWeightPerm);
    }
  } else {
    w = ctx.transpose(ctx.as_is(wn), kConvTransposeWeightPerm);
    for (size_t i = 0; i < nsp; ++i) {
      if (dil[i] == 1) continue;
      w = spread_runtime_weight(w, i, static_cast<uint32_t>(dil[i]), ctx);
      pads[2 * i + 1] += static_cast<uint32_t>(dil[i] - 1);
    }
  }
  std::vector<std::string> inputs = {x, w};
  if (const std::string bn = input_name(node, 2); !bn.empty()) inputs.push_back(ctx.as_is(bn));
  const std::string y = ctx.output(node.output(0), Layout::kChannelLast);
  const uint32_t n = static_cast<uint32_t>(nsp);
  if (is_3d) {
    ctx.add_node(QNN_OP_TRANSPOSE_CONV_3D, inputs, {y},
                 {param_u32_tensor(QNN_OP_TRANSPOSE_CONV_3D_PARAM_STRIDE, {n}, u32(strides)),
                  param_u32_tensor(QNN_OP_TRANSPOSE_CONV_3D_PARAM_PAD_AMOUNT, {n, 2}, pads),
                  param_u32_tensor(QNN_OP_TRANSPOSE_CONV_3D_PARAM_DILATION, {n}, u32(dil)),
                  param_u32(QNN_OP_TRANSPOSE_CONV_3D_PARAM_GROUP, static_cast<uint32_t>(group)),
                  param_u32_tensor(QNN_OP_TRANSPOSE_CONV_3D_PARAM_OUTPUT_PADDING, {n}, u32(out_pad))});
    return;
  }
  ctx.add_node(QNN_OP_TRANSPOSE_CONV_2D, inputs, {y},
               {param_u32_tensor(QNN_OP_TRANSPOSE_CONV_2D_PARAM_STRIDE, {n}, u32(strides)),
                param_u32_tensor(QNN_OP_TRANSPOSE_CONV_2D_PARAM_PAD_AMOUNT, {n, 2}, pads),
                param_u32(QNN_OP_TRANSPOSE_CONV_2D_PARAM_GROUP, static_cast<uint32_t>(group)),
                param_u32_tensor(QNN_OP_TRANSPOSE_CONV_2D_PARAM_OUTPUT_PADDING, {n}, u32(out_pad))});
}

constexpr int64_t kMaxTapPoolTaps = 256;

bool has_dilation(const onnx::NodeProto& node) {
  for (int64_t d : attr_ints(node, "dilations", {})) {
    if (d != 1) return true;
  }
  return false;
}

// MaxPool's output 1: the flat offset of each maximum in X.
bool wants_indices(const onnx::NodeProto& node) {
  return node.op_type() == "MaxPool" && node.output_size() > 1 && !node.output(1).empty();
}

std::string check_pool(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_spatial_rank(node, model, true); !why.empty()) return why;
  if (has_dilation(node) || wants_indices(node)) {
    const char* what = wants_indices(node) ? "MaxPool's indices output" : "dilations other than 1";
    const ValueInfo* v = model.info(node.input(0));
    if (node.op_type() != "MaxPool" || v->dims.size() != 4 ||
        (v->elem_type != onnx_type::kFloat && v->elem_type != onnx_type::kFloat16)) {
      return wants_indices(node) ? std::string(what) + " is supported for float 2-D MaxPool only (QNN pools have none)"
                                 : std::string(what) + " are supported for float 2-D MaxPool only (QNN pools have no dilation)";
    }
    // One StridedSlice per tap: keep the node count sane.
    int64_t taps = 1;
    for (int64_t k : attr_ints(node, "kernel_shape", {})) taps *= k;
    if (taps > kMaxTapPoolTaps) {
      return std::string(what) + " with a " + std::to_string(taps) + "-tap window (more than " +
             std::to_string(kMaxTapPoolTaps) + ") is not supported: it is lowered to one slice per tap";
    }
    // The offsets are INT_32 (as every INT64 value here): X must fit.
    int64_t elems = 1;
    for (int64_t d : v->dims) elems *= d;
    if (wants_indices(node) && elems > std::numeric_limits<int32_t>::max()) {
      return "MaxPool's indices output: X has " + std::to_string(elems) + " elements, more than INT_32 offsets hold";
    }
  }
  return check_no_extra_outputs(node, wants_indices(node) ? 2 : 1);
}

// MaxPool tap by tap, for what QNN's PoolMax2d has no parameter for:
// dilations, and the indices output. The window is taken apart: Pad with the
// lowest float (padding never wins), one StridedSlice per window tap (offset
// tap * dilation, the pool's stride, Ho x Wo samples), and an
// ElementWiseMaximum over the slices.
//
// Indices (output 1): ONNX's flat offset of each maximum in X, row-major
// ((n*C + c)*H + h)*W + w, or with storage_order 1 column-major over the
// spatial axes, (n*C + c)*H*W + w*H + h. A static INT_32 tensor holds every
// padded position's offset (-1 in the padding), sliced per tap like X; a
// running argmax beside the running maximum takes a tap's offset where
// ElementWiseGreater(tap, max so far) holds, so the first largest tap in
// window order wins, as in ONNX's reference. The offsets tensor is as big as
// the padded X (4 bytes an element) and lives in the graph's weights.
void lower_max_pool_by_taps(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::vector<int64_t> xd = ctx.info(node.input(0)).dims, yd = ctx.info(node.output(0)).dims;
  const std::vector<int64_t> k = attr_ints(node, "kernel_shape");
  if (k.size() != 2) ctx.fail("'kernel_shape' has " + std::to_string(k.size()) + " entries, expected 2");
  const std::vector<int64_t> strides = per_axis(node, "strides", 2, 1, ctx);
  const std::vector<int64_t> dil = per_axis(node, "dilations", 2, 1, ctx);
  const std::vector<int64_t> keff = {(k[0] - 1) * dil[0] + 1, (k[1] - 1) * dil[1] + 1};
  std::vector<uint32_t> pads = window_pads(node, {xd[2], xd[3]}, keff, strides, ctx);
  // Ceil mode can ask for windows past the end padding: pad those too.
  for (int i = 0; i < 2; ++i) {
    const int64_t need = keff[i] + strides[i] * (yd[2 + i] - 1);
    const int64_t have = xd[2 + i] + pads[2 * i] + pads[2 * i + 1];
    if (need > have) pads[2 * i + 1] += static_cast<uint32_t>(need - have);
  }
  const std::string x = ctx.channel_last(node.input(0));
  const Qnn_DataType_t dt = ctx.qtensor(x).dtype;
  const uint32_t n = static_cast<uint32_t>(xd[0]), c = static_cast<uint32_t>(xd[1]);
  const std::string base = node.output(0);
  const std::string padded =
      ctx.native(base + "_padded", dt, {n, static_cast<uint32_t>(xd[2]) + pads[0] + pads[1],
                                        static_cast<uint32_t>(xd[3]) + pads[2] + pads[3], c});
  ctx.add_node(QNN_OP_PAD, {x}, {padded},
               {param_u32(QNN_OP_PAD_PARAM_SCHEME, QNN_OP_PAD_SCHEME_CONSTANT),
                param_u32_tensor(QNN_OP_PAD_PARAM_PAD_AMOUNT, {4, 2}, {0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0}),
                param_f32(QNN_OP_PAD_PARAM_PAD_CONSTANT_VALUE, std::numeric_limits<float>::lowest())});
  const std::vector<uint32_t> tap_dims = {n, static_cast<uint32_t>(yd[2]), static_cast<uint32_t>(yd[3]), c};
  const bool indices = wants_indices(node);
  std::string offsets;  // the padded offsets of X, channel-last (indices only)
  if (indices) {
    const int64_t H = xd[2], W = xd[3], Hp = H + pads[0] + pads[1], Wp = W + pads[2] + pads[3];
    const bool column_major = attr_int(node, "storage_order", 0) != 0;
    std::vector<int32_t> off(static_cast<size_t>(n * Hp * Wp * c), -1);
    for (int64_t ni = 0; ni < n; ++ni)
      for (int64_t hp = 0; hp < Hp; ++hp)
        for (int64_t wp = 0; wp < Wp; ++wp) {
          const int64_t h = hp - pads[0], w = wp - pads[2];
          if (h < 0 || h >= H || w < 0 || w >= W) continue;
          for (int64_t ci = 0; ci < c; ++ci) {
            const int64_t plane = (ni * c + ci) * H * W;
            off[((ni * Hp + hp) * Wp + wp) * c + ci] =
                static_cast<int32_t>(plane + (column_major ? w * H + h : h * W + w));
          }
        }
    std::vector<uint8_t> bytes(off.size() * sizeof(int32_t));
    std::memcpy(bytes.data(), off.data(), bytes.size());
    offsets = ctx.static_tensor(base + "_offsets", QNN_DATATYPE_INT_32,
                                {n, static_cast<uint32_t>(Hp), static_cast<uint32_t>(Wp), c}, std::move(bytes));
  }
  const std::string y = ctx.output(node.output(0), Layout::kChannelLast);
  const std::string z = indices ? ctx.output(node.output(1), Layout::kChannelLast, QNN_DATATYPE_INT_32) : "";
  std::string acc, acc_index;
  const int64_t taps = k[0] * k[1];
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t h0 = (t / k[1]) * dil[0], w0 = (t % k[1]) * dil[1];
    const std::vector<int32_t> ranges = {
        0, static_cast<int32_t>(n), 1,
        static_cast<int32_t>(h0), static_cast<int32_t>(h0 + strides[0] * (yd[2] - 1) + 1), static_cast<int32_t>(strides[0]),
        static_cast<int32_t>(w0), static_cast<int32_t>(w0 + strides[1] * (yd[3] - 1) + 1), static_cast<int32_t>(strides[1]),
        0, static_cast<int32_t>(c), 1};
    const std::string suffix = std::to_string(t);
    const std::string tap = taps == 1 ? y : ctx.native(base + "_tap" + suffix, dt, tap_dims);
    ctx.add_node(QNN_OP_STRIDED_SLICE, {padded}, {tap},
                 {param_i32_tensor(QNN_OP_STRIDED_SLICE_PARAM_RANGES, {4, 3}, ranges)});
    std::string tap_index;
    if (indices) {
      tap_index = taps == 1 ? z : ctx.native(base + "_tap_index" + suffix, QNN_DATATYPE_INT_32, tap_dims);
      ctx.add_node(QNN_OP_STRIDED_SLICE, {offsets}, {tap_index},
                   {param_i32_tensor(QNN_OP_STRIDED_SLICE_PARAM_RANGES, {4, 3}, ranges)});
    }
    if (t == 0) {
      acc = tap;
      acc_index = tap_index;
      continue;
    }
    const bool last = t + 1 == taps;
    if (indices) {
      const std::string greater = ctx.native(base + "_greater" + suffix, QNN_DATATYPE_BOOL_8, tap_dims);
      ctx.add_node(QNN_OP_ELEMENT_WISE_GREATER, {tap, acc}, {greater});
      const std::string next_index =
          last ? z : ctx.native(base + "_argmax" + suffix, QNN_DATATYPE_INT_32, tap_dims);
      ctx.add_node(QNN_OP_ELEMENT_WISE_SELECT, {greater, tap_index, acc_index}, {next_index});
      acc_index = next_index;
    }
    const std::string next = last ? y : ctx.native(base + "_max" + suffix, dt, tap_dims);
    ctx.add_node(QNN_OP_ELEMENT_WISE_MAXIMUM, {acc, tap}, {next});
    acc = next;
  }
}

void lower_pool(const onnx::NodeProto& node, LoweringContext& ctx) {
  if (has_dilation(node) || wants_indices(node)) {
    lower_max_pool_by_taps(node, ctx);
    return;
  }
  const bool is_max = node.op_type() == "MaxPool";
  const std::vector<int64_t> xd = ctx.info(node.input(0)).dims;
  const size_t nsp = xd.size() - 2;  // spatial axes: 2 or 3
  const std::vector<int64_t> k = attr_ints(node, "kernel_shape");
  if (k.size() != nsp) {
    ctx.fail("'kernel_shape' has " + std::to_string(k.size()) + " entries, expected " + std::to_string(nsp));
  }
  const std::vector<int64_t> strides = per_axis(node, "strides", nsp, 1, ctx);
  const std::vector<int64_t> in_sp(xd.begin() + 2, xd.end());
  const std::vector<uint32_t> pads = window_pads(node, in_sp, k, strides, ctx);
  const bool ceil_mode = attr_int(node, "ceil_mode", 0) != 0;
  const bool count_pad = attr_int(node, "count_include_pad", 0) != 0;
  const uint32_t n = static_cast<uint32_t>(nsp);
  const std::string type = nsp == 2 ? (is_max ? QNN_OP_POOL_MAX_2D : QNN_OP_POOL_AVG_2D)
                                    : (is_max ? QNN_OP_POOL_MAX_3D : QNN_OP_POOL_AVG_3D);
  // The 2-D and 3-D pools share parameter names and enum values.
  static_assert(QNN_OP_POOL_MAX_2D_ROUNDING_MODE_CEIL == QNN_OP_POOL_MAX_3D_ROUNDING_MODE_CEIL);
  std::vector<QParam> params = {
      param_u32_tensor(QNN_OP_POOL_MAX_2D_PARAM_FILTER_SIZE, {n}, u32(k)),
      param_u32_tensor(QNN_OP_POOL_MAX_2D_PARAM_STRIDE, {n}, u32(strides)),
      param_u32_tensor(QNN_OP_POOL_MAX_2D_PARAM_PAD_AMOUNT, {n, 2}, pads),
      param_u32(QNN_OP_POOL_MAX_2D_PARAM_ROUNDING_MODE,
                ceil_mode ? QNN_OP_POOL_MAX_2D_ROUNDING_MODE_CEIL : QNN_OP_POOL_MAX_2D_ROUNDING_MODE_FLOOR),
  };
  if (!is_max) params.push_back(param_bool(QNN_OP_POOL_AVG_2D_PARAM_COUNT_PAD_FOR_EDGES, count_pad));
  const std::string x = ctx.channel_last(node.input(0));
  ctx.add_node(type, {x}, {ctx.output(node.output(0), Layout::kChannelLast)}, params);
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
      {"ConvInteger", check_conv_integer, lower_conv_integer},
      {"QLinearConv", check_conv_integer, lower_conv_integer},
      {"MaxPool", check_pool, lower_pool},
      {"AveragePool", check_pool, lower_pool},
      {"GlobalAveragePool", check_global_pool, lower_global_pool},
      {"GlobalMaxPool", check_global_pool, lower_global_pool},
  };
}

}  // namespace openhtp::onnx_import
