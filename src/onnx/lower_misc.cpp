// The remaining ONNX ops: Gemm (FullyConnected with constant weights, else
// MatMul + scale + bias), MatMul, Softmax/LogSoftmax, LayerNormalization,
// reductions, ArgMax/ArgMin, TopK, Cast, QuantizeLinear/DequantizeLinear,
// Identity/Dropout.
#include <cmath>
#include <cstring>
#include <numeric>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"
#include "onnx/qdq_folding.h"

namespace openhtp::onnx_import {

namespace {

std::vector<uint32_t> u32(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

Qnn_DataType_t qdt(LoweringContext& ctx, const std::string& onnx_name) {
  Qnn_DataType_t dt;
  qnn_dtype_for(ctx.info(onnx_name).elem_type, &dt);
  return dt;
}

// ---- Gemm / MatMul ----

std::string check_gemm(const onnx::NodeProto& node, const Model& model) {
  for (int i = 0; i < 2; ++i) {
    const ValueInfo* v = model.info(node.input(i));
    if (v == nullptr || v->dims.size() != 2) return "inputs A and B must be 2-D";
  }
  return "";
}

void lower_gemm(const onnx::NodeProto& node, LoweringContext& ctx) {
  const float alpha = attr_float(node, "alpha", 1.0f), beta = attr_float(node, "beta", 1.0f);
  const bool trans_a = attr_int(node, "transA", 0) != 0, trans_b = attr_int(node, "transB", 0) != 0;
  const std::string& an = node.input(0);
  const std::string& bn = node.input(1);
  const std::string cn = input_name(node, 2);
  const std::vector<int64_t> yd = ctx.info(node.output(0)).dims;
  const int64_t n = yd[1];
  const Tensor* b = ctx.constant(bn);
  const Tensor* c = cn.empty() ? nullptr : ctx.constant(cn);
  const bool c_is_vector = cn.empty() || (c != nullptr && (c->count() == 1 || c->count() == static_cast<size_t>(n)) &&
                                          (c->dims.size() <= 1 || c->dims[0] == 1));
  if (b != nullptr && !trans_a && c_is_vector) {
    // FullyConnected: weights [N, K] (out x in), alpha folded into them,
    // beta * C into the bias.
    Tensor w = trans_b ? *b : permute_tensor(*b, {1, 0});
    Tensor wf = Tensor::zeros(onnx_type::kFloat, w.dims);
    for (size_t i = 0; i < w.count(); ++i) wf.set(i, alpha * w.get(i));
    std::vector<std::string> inputs = {ctx.as_is(an), ctx.static_from(node.output(0) + "_weights", wf)};
    // (alpha != 1 changes the values; quantization notices and requantizes.)
    ctx.set_source(inputs[1], bn, trans_b ? std::vector<uint32_t>{0, 1} : std::vector<uint32_t>{1, 0});
    if (c != nullptr) {
      std::vector<float> bias(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) bias[i] = static_cast<float>(beta * c->get(c->count() == 1 ? 0 : i));
      inputs.push_back(ctx.static_f32(node.output(0) + "_bias", {static_cast<uint32_t>(n)}, bias));
    }
    ctx.add_node(QNN_OP_FULLY_CONNECTED, inputs, {ctx.output(node.output(0))},
                 {param_bool(QNN_OP_FULLY_CONNECTED_PARAM_KEEP_DIMS, false)});
    return;
  }
  const Qnn_DataType_t dt = qdt(ctx, node.output(0));
  const bool scale = alpha != 1.0f;
  const bool add = !cn.empty() && beta != 0.0f;
  std::string y = (scale || add) ? ctx.native(node.output(0) + "_ab", dt, u32(yd)) : ctx.output(node.output(0));
  ctx.add_node(QNN_OP_MAT_MUL, {ctx.as_is(an), ctx.as_is(bn)}, {y},
               {param_bool(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN0, trans_a),
                param_bool(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN1, trans_b)});
  if (scale) {
    const std::string k = ctx.static_f32(node.output(0) + "_alpha", {1}, {alpha});
    const std::string out = add ? ctx.native(node.output(0) + "_scaled", dt, u32(yd)) : ctx.output(node.output(0));
    ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {y, k}, {out});
    y = out;
  }
  if (add) {
    std::string cq = ctx.as_is(cn);
    if (beta != 1.0f) {
      const std::string k = ctx.static_f32(node.output(0) + "_beta", {1}, {beta});
      const std::string out = ctx.native(node.output(0) + "_c", dt, ctx.qtensor(cq).dims);
      ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {cq, k}, {out});
      cq = out;
    }
    ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {y, cq}, {ctx.output(node.output(0))});
  }
}

// MatMul with numpy semantics; 1-D operands become [1, K] / [K, 1] and the
// result is reshaped to the ONNX output shape.
void lower_matmul(const onnx::NodeProto& node, LoweringContext& ctx) {
  std::string a = ctx.as_is(node.input(0)), b = ctx.as_is(node.input(1));
  std::vector<int64_t> ad = ctx.info(node.input(0)).dims, bd = ctx.info(node.input(1)).dims;
  const bool reshape_out = ad.size() == 1 || bd.size() == 1;
  if (ad.size() == 1) {
    ad = {1, ad[0]};
    a = ctx.reshape(a, u32(ad));
  }
  if (bd.size() == 1) {
    bd = {bd[0], 1};
    b = ctx.reshape(b, u32(bd));
  }
  const std::vector<QParam> params = {param_bool(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN0, false),
                                      param_bool(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN1, false)};
  if (!reshape_out) {
    ctx.add_node(QNN_OP_MAT_MUL, {a, b}, {ctx.output(node.output(0))}, params);
    return;
  }
  // Batch dims broadcast, then [M, N].
  std::vector<int64_t> od;
  const size_t r = std::max(ad.size(), bd.size());
  for (size_t i = 0; i + 2 < r; ++i) {
    const int64_t x = i + ad.size() >= r ? ad[i + ad.size() - r] : 1;
    const int64_t y = i + bd.size() >= r ? bd[i + bd.size() - r] : 1;
    od.push_back(std::max(x, y));
  }
  od.push_back(ad[ad.size() - 2]);
  od.push_back(bd.back());
  const std::string mm = ctx.native(node.output(0) + "_mm", qdt(ctx, node.output(0)), u32(od));
  ctx.add_node(QNN_OP_MAT_MUL, {a, b}, {mm}, params);
  ctx.add_node(QNN_OP_RESHAPE, {mm}, {ctx.output(node.output(0))});
}

// ---- Softmax / LogSoftmax ----

void lower_softmax(const onnx::NodeProto& node, LoweringContext& ctx) {
  const bool log = node.op_type() == "LogSoftmax";
  const char* type = log ? QNN_OP_LOG_SOFTMAX : QNN_OP_SOFTMAX;
  const std::string& in = node.input(0);
  const std::vector<int64_t> xd = ctx.info(in).dims;
  const size_t r = xd.size();
  const Qnn_DataType_t dt = qdt(ctx, in);
  const bool legacy = ctx.model().opset < 13;
  const int64_t axis = normalize_axis(attr_int(node, "axis", legacy ? 1 : -1), r);
  auto params = [&](uint32_t rank) {
    return std::vector<QParam>{param_u32(QNN_OP_SOFTMAX_PARAM_AXIS, rank - 1), param_f32(QNN_OP_SOFTMAX_PARAM_BETA, 1.0f)};
  };
  std::string x = ctx.as_is(in);
  if (legacy && axis != static_cast<int64_t>(r) - 1) {
    // Opset < 13: softmax over the flattened [prod(d[:axis]), prod(d[axis:])].
    uint32_t rows = 1, cols = 1;
    for (size_t i = 0; i < r; ++i) (static_cast<int64_t>(i) < axis ? rows : cols) *= static_cast<uint32_t>(xd[i]);
    const std::string flat = ctx.reshape(x, {rows, cols});
    const std::string sm = ctx.native(node.output(0) + "_2d", dt, {rows, cols});
    ctx.add_node(type, {flat}, {sm}, params(2));
    ctx.add_node(QNN_OP_RESHAPE, {sm}, {ctx.output(node.output(0))});
    return;
  }
  if (axis == static_cast<int64_t>(r) - 1) {
    ctx.add_node(type, {x}, {ctx.output(node.output(0))}, params(static_cast<uint32_t>(r)));
    return;
  }
  // Another axis: swap it with the last one around a last-axis softmax.
  std::vector<uint32_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[axis], perm[r - 1]);
  const std::string xt = ctx.transpose(x, perm);
  const std::string st = ctx.native(node.output(0) + "_t", dt, ctx.qtensor(xt).dims);
  ctx.add_node(type, {xt}, {st}, params(static_cast<uint32_t>(r)));
  ctx.add_node(QNN_OP_TRANSPOSE, {st}, {ctx.output(node.output(0))},
               {param_u32_tensor(QNN_OP_TRANSPOSE_PARAM_PERM, {static_cast<uint32_t>(r)}, perm)});
}

// ---- LayerNormalization ----

void lower_layer_norm(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  const int64_t axis = normalize_axis(attr_int(node, "axis", -1), r);
  const float eps = attr_float(node, "epsilon", 1e-5f);
  std::vector<uint32_t> axes;
  for (size_t a = static_cast<size_t>(axis); a < r; ++a) axes.push_back(static_cast<uint32_t>(a));
  const std::string x = ctx.as_is(in);
  std::vector<std::string> inputs = {x, ctx.as_is(node.input(1))};
  if (const std::string bn = input_name(node, 2); !bn.empty()) inputs.push_back(ctx.as_is(bn));
  ctx.add_node(QNN_OP_LAYER_NORM, inputs, {ctx.output(node.output(0))},
               {param_f32(QNN_OP_LAYER_NORM_PARAM_EPSILON, eps),
                param_u32_tensor(QNN_OP_LAYER_NORM_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes)});
  const std::string mean_name = output_name(node, 1), inv_name = output_name(node, 2);
  if (mean_name.empty() && inv_name.empty()) return;
  // Optional Mean / InvStdDev outputs, computed with reductions.
  const Qnn_DataType_t dt = ctx.qtensor(x).dtype;
  std::vector<uint32_t> kept = ctx.qtensor(x).dims;
  for (uint32_t a : axes) kept[a] = 1;
  auto reduce_mean = [&](const std::string& src, const std::string& dst) {
    ctx.add_node(QNN_OP_REDUCE_MEAN, {src}, {dst},
                 {param_u32_tensor(QNN_OP_REDUCE_MEAN_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes),
                  param_bool(QNN_OP_REDUCE_MEAN_PARAM_KEEP_DIMS, true)});
  };
  const std::string mean = mean_name.empty() ? ctx.native(node.output(0) + "_mean", dt, kept) : ctx.output(mean_name);
  reduce_mean(x, mean);
  if (inv_name.empty()) return;
  const std::vector<uint32_t> xd = ctx.qtensor(x).dims;
  const std::string diff = ctx.native(node.output(0) + "_diff", dt, xd);
  ctx.add_node(QNN_OP_ELEMENT_WISE_SUBTRACT, {x, mean}, {diff});
  const std::string sq = ctx.native(node.output(0) + "_sq", dt, xd);
  ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {diff, diff}, {sq});
  const std::string var = ctx.native(node.output(0) + "_var", dt, kept);
  reduce_mean(sq, var);
  const std::string ve = ctx.native(node.output(0) + "_var_eps", dt, kept);
  ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {var, ctx.static_f32(node.output(0) + "_eps", {1}, {eps})}, {ve});
  ctx.add_node(QNN_OP_ELEMENT_WISE_UNARY, {ve}, {ctx.output(inv_name)},
               {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_UNARY_OPERATION_RSQRT)});
}

// ---- reductions ----

// Axes given at run time are read off the static shapes when keepdims=1:
// every axis whose size became 1 (reducing a size-1 axis changes nothing).
std::string check_reduce(const onnx::NodeProto& node, const Model& model) {
  if (node.input_size() > 1 && !node.input(1).empty() && !model.is_constant(node.input(1)) &&
      attr_int(node, "keepdims", 1) == 0) {
    return "axes given at run time need keepdims=1";
  }
  return "";
}

void lower_reduce(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& t = node.op_type();
  const char* type = t == "ReduceMean" ? QNN_OP_REDUCE_MEAN
                     : t == "ReduceSum" ? QNN_OP_REDUCE_SUM
                     : t == "ReduceMax" ? QNN_OP_REDUCE_MAX
                     : t == "ReduceMin" ? QNN_OP_REDUCE_MIN
                     : t == "ReduceProd" ? QNN_OP_REDUCE_PROD
                                         : QNN_OP_REDUCE_SUM_SQUARE;
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  std::vector<int64_t> axes = attr_ints(node, "axes");
  const bool keep = attr_int(node, "keepdims", 1) != 0;
  if (const std::string an = input_name(node, 1); !an.empty()) {
    if (const Tensor* c = ctx.constant(an)) {
      axes = c->to_ints();
    } else {
      const std::vector<int64_t>& id = ctx.info(in).dims;
      const std::vector<int64_t>& od = ctx.info(node.output(0)).dims;
      for (size_t a = 0; a < r; ++a) {
        if (od[a] == 1 && id[a] != 1) axes.push_back(static_cast<int64_t>(a));
      }
      if (axes.empty()) {
        ctx.alias(node.output(0), in);
        return;
      }
    }
  }
  if (axes.empty()) {
    if (attr_int(node, "noop_with_empty_axes", 0) != 0) {
      ctx.alias(node.output(0), in);
      return;
    }
    for (size_t a = 0; a < r; ++a) axes.push_back(static_cast<int64_t>(a));
  }
  const bool cl = keep && r >= 3 && ctx.prefers_channel_last(in);
  std::vector<uint32_t> q;
  for (int64_t a : axes) {
    const int64_t n = normalize_axis(a, r);
    q.push_back(cl ? channel_last_axis(n, r) : static_cast<uint32_t>(n));
  }
  std::sort(q.begin(), q.end());
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  ctx.add_node(type, {x}, {ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx)},
               {param_u32_tensor(QNN_OP_REDUCE_MEAN_PARAM_AXES, {static_cast<uint32_t>(q.size())}, q),
                param_bool(QNN_OP_REDUCE_MEAN_PARAM_KEEP_DIMS, keep)});
}

// ---- ArgMax / ArgMin / TopK ----

// select_last_index=1 (the last of equal extremes): QNN's Argmax/Argmin pick
// the first, and have no such parameter. So the input is reversed along the
// axis (StridedSlice, stride -1 from dim-1 through index 0: an end of -1
// means "through index 0" for a negative stride, facts §4.2), the first
// extreme of the reversed tensor is found, and its index r maps back to
// (dim - 1) - r (an INT_32 ElementWiseSubtract from a static constant).
void lower_arg(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  const int64_t axis = normalize_axis(attr_int(node, "axis", 0), r);
  const bool last_index = attr_int(node, "select_last_index", 0) != 0;
  const char* type = node.op_type() == "ArgMax" ? QNN_OP_ARGMAX : QNN_OP_ARGMIN;
  const std::vector<QParam> params = {param_u32(QNN_OP_ARGMAX_PARAM_AXIS, static_cast<uint32_t>(axis)),
                                      param_bool(QNN_OP_ARGMAX_PARAM_KEEP_DIMS, attr_int(node, "keepdims", 1) != 0)};
  const std::string x = ctx.as_is(in);
  const std::string y = ctx.output(node.output(0));
  if (!last_index) {
    ctx.add_node(type, {x}, {y}, params);
    return;
  }
  const std::vector<uint32_t> xd = ctx.qtensor(x).dims;
  const Qnn_DataType_t x_dt = ctx.qtensor(x).dtype;
  const int32_t dim = static_cast<int32_t>(xd[axis]);
  std::vector<int32_t> ranges;
  for (size_t a = 0; a < r; ++a) {
    const bool reversed = static_cast<int64_t>(a) == axis;
    ranges.push_back(reversed ? dim - 1 : 0);
    ranges.push_back(reversed ? -1 : static_cast<int32_t>(xd[a]));
    ranges.push_back(reversed ? -1 : 1);
  }
  const std::string flipped = ctx.native(node.output(0) + "_reversed", x_dt, xd);
  ctx.add_node(QNN_OP_STRIDED_SLICE, {x}, {flipped},
               {param_i32_tensor(QNN_OP_STRIDED_SLICE_PARAM_RANGES, {static_cast<uint32_t>(r), 3}, ranges)});
  const QTensor& yt = ctx.qtensor(y);
  const Qnn_DataType_t y_dt = yt.dtype;
  const std::vector<uint32_t> yd = yt.dims;
  const std::string rev_index = ctx.native(node.output(0) + "_reversed_index", y_dt, yd);
  ctx.add_node(type, {flipped}, {rev_index}, params);
  const int32_t last = dim - 1;
  std::vector<uint8_t> bytes(sizeof(last));
  std::memcpy(bytes.data(), &last, sizeof(last));
  const std::string last_t = ctx.static_tensor(node.output(0) + "_last_index", y_dt, {1}, bytes);
  ctx.add_node(QNN_OP_ELEMENT_WISE_SUBTRACT, {last_t, rev_index}, {y});
}

// K given at run time is read off the static output shape.
std::string check_topk(const onnx::NodeProto&, const Model&) { return ""; }

void lower_topk(const onnx::NodeProto& node, LoweringContext& ctx) {
  const Model& m = ctx.model();
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  const int64_t axis = normalize_axis(attr_int(node, "axis", -1), r);
  const int64_t k = m.opset < 10 ? attr_int(node, "k", 1) : ctx.info(node.output(0)).dims[axis];
  (void)m;
  const std::vector<QParam> params = {param_u32(QNN_OP_TOP_K_PARAM_K, static_cast<uint32_t>(k)),
                                      param_bool(QNN_OP_TOP_K_PARAM_LARGEST, attr_int(node, "largest", 1) != 0)};
  std::string x = ctx.as_is(in);
  if (axis == static_cast<int64_t>(r) - 1) {
    ctx.add_node(QNN_OP_TOP_K, {x}, {ctx.output(node.output(0)), ctx.output(node.output(1))}, params);
    return;
  }
  std::vector<uint32_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[axis], perm[r - 1]);
  const std::string xt = ctx.transpose(x, perm);
  std::vector<uint32_t> od = ctx.qtensor(xt).dims;
  od.back() = static_cast<uint32_t>(k);
  const std::string vt = ctx.native(node.output(0) + "_t", ctx.qtensor(x).dtype, od);
  const std::string it = ctx.native(node.output(1) + "_t", QNN_DATATYPE_INT_32, od);
  ctx.add_node(QNN_OP_TOP_K, {xt}, {vt, it}, params);
  const QParam p = param_u32_tensor(QNN_OP_TRANSPOSE_PARAM_PERM, {static_cast<uint32_t>(r)}, perm);
  ctx.add_node(QNN_OP_TRANSPOSE, {vt}, {ctx.output(node.output(0))}, {p});
  ctx.add_node(QNN_OP_TRANSPOSE, {it}, {ctx.output(node.output(1))}, {p});
}

// ---- Cast ----

void lower_cast(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const bool cl = ctx.prefers_channel_last(in);
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  ctx.add_node(QNN_OP_CAST, {x}, {ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx)});
}

// ---- QuantizeLinear / DequantizeLinear ----
//
// Constant per-tensor scale/zero point: QNN Quantize (encoding on the
// output). Otherwise (scales given at run time, per-axis scales) the ONNX
// formula with element-wise ops:
//   q = clamp(round_half_even(x / s) + zp, qmin, qmax)      (Cast to 8 bit)
//   x = (float(q) - float(zp)) * s
// A DequantizeLinear whose input is a fixed-point QNN tensor (from Quantize)
// becomes QNN Dequantize.

bool per_tensor_constant(const LoweringContext& ctx, const onnx::NodeProto& node) {
  const Tensor* s = ctx.constant(node.input(1));
  const std::string zn = input_name(node, 2);
  return s != nullptr && s->count() == 1 && (zn.empty() || ctx.constant(zn) != nullptr);
}

// A [C] parameter reshaped to broadcast along `axis` of a rank-r tensor.
std::string broadcast_param(LoweringContext& ctx, const std::string& onnx_name, int64_t axis, size_t r,
                            bool to_float) {
  std::string t = ctx.as_is(onnx_name);
  const QTensor& qt = ctx.qtensor(t);
  if (to_float && qt.dtype != QNN_DATATYPE_FLOAT_32) {
    const std::string f = ctx.native(onnx_name + "_f", QNN_DATATYPE_FLOAT_32, qt.dims);
    ctx.add_node(QNN_OP_CAST, {t}, {f});
    t = f;
  }
  const std::vector<uint32_t> d = ctx.qtensor(t).dims;
  if (d.size() == 1 && d[0] > 1 && r > 1) {
    std::vector<uint32_t> shape(r, 1);
    shape[axis] = d[0];
    t = ctx.reshape(t, shape);
  }
  return t;
}

// In a QDQ-folded quantized conversion a QuantizeLinear/DequantizeLinear that
// is still there would become QNN Quantize/Dequantize between tensors that
// quantization makes fixed point (the backend then refuses "in[0] data type
// is UFIXED_POINT_8, expected FLOAT_32"): refused here, with the reason.
std::string check_qdq(const onnx::NodeProto& node, const Model& model) {
  return model.qdq_folded ? qdq_leftover_reason(node, model) : "";
}

void lower_quantize(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const std::string zn = input_name(node, 2);
  const int32_t out_type = ctx.info(node.output(0)).elem_type;
  const bool is_signed = out_type == onnx_type::kInt8;
  if (per_tensor_constant(ctx, node)) {
    const Tensor* s = ctx.constant(node.input(1));
    const int64_t zp = zn.empty() ? 0 : ctx.constant(zn)->get_int(0);
    const std::string out =
        ctx.output(node.output(0), Layout::kOnnx, is_signed ? QNN_DATATYPE_SFIXED_POINT_8 : QNN_DATATYPE_UFIXED_POINT_8);
    QTensor& t = *ctx.graph().find(out);
    t.encoding.kind = Encoding::Kind::kPerTensor;
    t.encoding.scale = static_cast<float>(s->get(0));
    t.encoding.offset = static_cast<int32_t>(-zp);
    ctx.add_node(QNN_OP_QUANTIZE, {ctx.as_is(in)}, {out});
    return;
  }
  const size_t r = ctx.rank(in);
  const int64_t axis = normalize_axis(attr_int(node, "axis", 1), r);
  const std::string x = ctx.as_is(in);
  const std::vector<uint32_t> xd = ctx.qtensor(x).dims;
  const std::string base = node.output(0);
  const std::string div = ctx.native(base + "_div", QNN_DATATYPE_FLOAT_32, xd);
  ctx.add_node(QNN_OP_ELEMENT_WISE_DIVIDE, {x, broadcast_param(ctx, node.input(1), axis, r, false)}, {div});
  std::string acc = ctx.native(base + "_round", QNN_DATATYPE_FLOAT_32, xd);
  ctx.add_node(QNN_OP_ELEMENT_WISE_UNARY, {div}, {acc},
               {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ROUND)});
  if (!zn.empty()) {
    const std::string shifted = ctx.native(base + "_zp", QNN_DATATYPE_FLOAT_32, xd);
    ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {acc, broadcast_param(ctx, zn, axis, r, true)}, {shifted});
    acc = shifted;
  }
  const std::string clamped = ctx.native(base + "_clamp", QNN_DATATYPE_FLOAT_32, xd);
  ctx.add_node(QNN_OP_RELU_MIN_MAX, {acc}, {clamped},
               {param_f32(QNN_OP_RELU_MIN_MAX_PARAM_MIN_VALUE, is_signed ? -128.0f : 0.0f),
                param_f32(QNN_OP_RELU_MIN_MAX_PARAM_MAX_VALUE, is_signed ? 127.0f : 255.0f)});
  ctx.add_node(QNN_OP_CAST, {clamped}, {ctx.output(node.output(0))});
}

void lower_dequantize(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const std::string zn = input_name(node, 2);
  const std::string x = ctx.as_is(in);
  const QTensor& xt = ctx.qtensor(x);
  if (per_tensor_constant(ctx, node) &&
      (xt.dtype == QNN_DATATYPE_UFIXED_POINT_8 || xt.dtype == QNN_DATATYPE_SFIXED_POINT_8)) {
    ctx.add_node(QNN_OP_DEQUANTIZE, {x}, {ctx.output(node.output(0))});
    return;
  }
  const size_t r = ctx.rank(in);
  const int64_t axis = normalize_axis(attr_int(node, "axis", 1), r);
  const std::vector<uint32_t> xd = xt.dims;
  const std::string base = node.output(0);
  std::string acc = ctx.native(base + "_f", QNN_DATATYPE_FLOAT_32, xd);
  ctx.add_node(QNN_OP_CAST, {x}, {acc});
  if (!zn.empty()) {
    const std::string centered = ctx.native(base + "_centered", QNN_DATATYPE_FLOAT_32, xd);
    ctx.add_node(QNN_OP_ELEMENT_WISE_SUBTRACT, {acc, broadcast_param(ctx, zn, axis, r, true)}, {centered});
    acc = centered;
  }
  ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {acc, broadcast_param(ctx, node.input(1), axis, r, false)},
               {ctx.output(node.output(0))});
}

// ---- Identity / Dropout ----

// Dropout is the identity in inference, and also in training mode with a
// ratio of 0 (nothing is dropped, the mask is all true). Any other training
// dropout draws random numbers, which a deterministic graph cannot match.
std::string check_dropout(const onnx::NodeProto& node, const Model& model) {
  if (node.op_type() != "Dropout") return "";
  const std::string t = input_name(node, 2);
  if (t.empty()) return "";
  const Tensor* training = model.constant(t);
  if (training == nullptr) return "training_mode must be a constant";
  if (training->get_int(0) == 0) return "";
  const std::string r = input_name(node, 1);
  const Tensor* ratio = r.empty() ? nullptr : model.constant(r);
  if (ratio == nullptr || ratio->get(0) != 0.0) {
    return "training_mode=1 with a non-zero ratio draws random numbers (only ratio 0 is deterministic)";
  }
  return "";
}

void lower_identity(const onnx::NodeProto& node, LoweringContext& ctx) {
  ctx.alias(node.output(0), node.input(0));
  // Dropout's mask in inference: all true.
  if (const std::string mask = output_name(node, 1); !mask.empty()) {
    const ValueInfo& v = ctx.info(mask);
    Tensor ones = Tensor::zeros(onnx_type::kBool, v.dims);
    for (size_t i = 0; i < ones.count(); ++i) ones.set(i, 1.0);
    ctx.add_node(QNN_OP_RESHAPE, {ctx.static_from(mask + "_ones", ones)}, {ctx.output(mask)});
  }
}

}  // namespace

std::vector<OpLowering> misc_lowerings() {
  std::vector<OpLowering> v = {
      {"Gemm", check_gemm, lower_gemm},
      {"MatMul", check_any, lower_matmul},
      {"Softmax", check_any, lower_softmax},
      {"LogSoftmax", check_any, lower_softmax},
      {"LayerNormalization", check_any, lower_layer_norm},
      {"ArgMax", check_any, lower_arg},
      {"ArgMin", check_any, lower_arg},
      {"TopK", check_topk, lower_topk},
      {"Cast", check_any, lower_cast},
      {"CastLike", check_any, lower_cast},  // the target type is the output's, from shape inference
      {"QuantizeLinear", check_qdq, lower_quantize},
      {"DequantizeLinear", check_qdq, lower_dequantize},
      {"Identity", check_any, lower_identity},
      {"Dropout", check_dropout, lower_identity},
  };
  for (const char* t : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare"}) {
    v.push_back({t, check_reduce, lower_reduce});
  }
  return v;
}

}  // namespace openhtp::onnx_import
