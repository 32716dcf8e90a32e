// ONNX integer / quantized ops with no QNN counterpart in float graphs,
// computed in float (exact: every integer below 2^24 is a float):
//
//   MatMulInteger(A, B, a_zp?, b_zp?)   Cast(MatMul(float(A) - a_zp, float(B) - b_zp)) to INT_32;
//                                       a_zp per row ([M] -> [M, 1]) or scalar, b_zp per column or scalar
//   QLinearMatMul(A, a_s, a_zp, B, b_s, b_zp, y_s, y_zp)
//                                       y = saturate(round(acc * a_s * b_s / y_s) + y_zp), acc the
//                                       MatMulInteger product; round half to even (QNN Round), the
//                                       saturation by Max/Min to the output type's range, then Cast
//   DynamicQuantizeLinear(x)            lo = min(0, ReduceMin x), hi = max(0, ReduceMax x),
//                                       scale = (hi - lo) / 255, zp = saturate(round(-lo / scale)),
//                                       y = saturate(round(x / scale) + zp), uint8
// The accumulator is exact while |acc| < 2^24 (K * 255 * 255 < 2^24 for K <= 258);
// larger K rounds like any float MatMul.
#include <algorithm>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

struct F {
  LoweringContext& ctx;
  std::string hint;
  std::string k(float v) { return ctx.static_f32(hint + "_k", {1}, {v}); }
  std::vector<uint32_t> dims(const std::string& t) { return ctx.qtensor(t).dims; }
  std::string to_float(const std::string& q) {
    if (ctx.qtensor(q).dtype == QNN_DATATYPE_FLOAT_32) return q;
    const std::string out = ctx.native(hint + "_f", QNN_DATATYPE_FLOAT_32, dims(q));
    ctx.add_node(QNN_OP_CAST, {q}, {out});
    return out;
  }
  std::string bin(const char* op, const std::string& a, const std::string& b, std::string out = "") {
    if (out.empty()) {
      std::vector<uint32_t> ad = dims(a), bd = dims(b);
      std::vector<uint32_t> od(std::max(ad.size(), bd.size()), 1);
      for (size_t i = 0; i < od.size(); ++i) {
        const uint32_t x = i + ad.size() >= od.size() ? ad[i + ad.size() - od.size()] : 1;
        const uint32_t y = i + bd.size() >= od.size() ? bd[i + bd.size() - od.size()] : 1;
        od[i] = std::max(x, y);
      }
      out = ctx.native(hint + "_t", QNN_DATATYPE_FLOAT_32, od);
    }
    ctx.add_node(op, {a, b}, {out});
    return out;
  }
  std::string round(const std::string& x) {
    const std::string out = ctx.native(hint + "_round", QNN_DATATYPE_FLOAT_32, dims(x));
    ctx.add_node(QNN_OP_ELEMENT_WISE_UNARY, {x}, {out},
                 {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_UNARY_OPERATION_ROUND)});
    return out;
  }
  std::string clamp(const std::string& x, float lo, float hi) {
    return bin(QNN_OP_ELEMENT_WISE_MINIMUM, bin(QNN_OP_ELEMENT_WISE_MAXIMUM, x, k(lo)), k(hi));
  }
  // Zero point input `name` ("" = 0) as float, a 1-D one reshaped to [n, 1] when `per_row`.
  std::string zero_point(const std::string& name, bool per_row) {
    if (name.empty()) return k(0.0f);
    std::string z = to_float(ctx.as_is(name));
    const std::vector<uint32_t> zd = dims(z);
    if (per_row && zd.size() == 1 && zd[0] > 1) z = ctx.reshape(z, {zd[0], 1});
    return z;
  }
  // (A - a_zp) @ (B - b_zp) in float.
  std::string product(const std::string& a, const std::string& azp, const std::string& b, const std::string& bzp) {
    const std::string af = bin(QNN_OP_ELEMENT_WISE_SUBTRACT, to_float(ctx.as_is(a)), zero_point(azp, true));
    const std::string bf = bin(QNN_OP_ELEMENT_WISE_SUBTRACT, to_float(ctx.as_is(b)), zero_point(bzp, false));
    std::vector<uint32_t> ad = dims(af), bd = dims(bf);
    std::vector<uint32_t> od = ad.size() >= bd.size() ? ad : bd;
    od[od.size() - 2] = ad[ad.size() - 2];
    od.back() = bd.back();
    const std::string out = ctx.native(hint + "_acc", QNN_DATATYPE_FLOAT_32, od);
    ctx.add_node(QNN_OP_MAT_MUL, {af, bf}, {out});
    return out;
  }
};

std::string check_matmul_integer(const onnx::NodeProto& node, const Model& model) {
  const int b = node.op_type() == "QLinearMatMul" ? 3 : 1;
  const ValueInfo* x = model.info(node.input(0));
  const ValueInfo* y = model.info(node.input(b));
  if (x == nullptr || y == nullptr) return "";
  if (x->dims.size() < 2 || y->dims.size() < 2) return "1-D operands are not supported";
  if (x->dims.size() != y->dims.size() && y->dims.size() != 2) return "operands of different ranks need a 2-D B";
  if (node.op_type() == "MatMulInteger") {
    if (const std::string zp = input_name(node, 2); !zp.empty()) {
      const ValueInfo* z = model.info(zp);
      if (z != nullptr && z->dims.size() > 1) return "a_zero_point must be a scalar or per row";
    }
  }
  for (int i = 0; i < node.input_size(); ++i) {
    const ValueInfo* v = model.info(node.input(i));
    if (node.op_type() == "QLinearMatMul" && (i == 1 || i == 2 || i == 4 || i == 5 || i == 6 || i == 7) &&
        v != nullptr && v->dims.size() > 1) {
      return "only per-tensor or 1-D scales and zero points are supported";
    }
  }
  return "";
}

void lower_matmul_integer(const onnx::NodeProto& node, LoweringContext& ctx) {
  F f{ctx, node.output(0)};
  const std::string acc = f.product(node.input(0), input_name(node, 2), node.input(1), input_name(node, 3));
  ctx.add_node(QNN_OP_CAST, {acc}, {ctx.output(node.output(0))});
}

std::pair<float, float> range_of(int32_t elem_type) {
  switch (elem_type) {
    case onnx_type::kUint8: return {0.0f, 255.0f};
    case onnx_type::kInt8: return {-128.0f, 127.0f};
    case onnx_type::kUint16: return {0.0f, 65535.0f};
    case onnx_type::kInt16: return {-32768.0f, 32767.0f};
    default: return {-2147483648.0f, 2147483520.0f};
  }
}

void lower_qlinear_matmul(const onnx::NodeProto& node, LoweringContext& ctx) {
  F f{ctx, node.output(0)};
  const std::string acc = f.product(node.input(0), node.input(2), node.input(3), node.input(5));
  const std::string as = f.to_float(ctx.as_is(node.input(1)));
  const std::string bs = f.to_float(ctx.as_is(node.input(4)));
  const std::string ys = f.to_float(ctx.as_is(node.input(6)));
  const std::string scale = f.bin(QNN_OP_ELEMENT_WISE_DIVIDE, f.bin(QNN_OP_ELEMENT_WISE_MULTIPLY, as, bs), ys);
  const std::string q = f.bin(QNN_OP_ELEMENT_WISE_ADD, f.round(f.bin(QNN_OP_ELEMENT_WISE_MULTIPLY, acc, scale)),
                              f.zero_point(node.input(7), false));
  const auto [lo, hi] = range_of(ctx.info(node.output(0)).elem_type);
  ctx.add_node(QNN_OP_CAST, {f.clamp(q, lo, hi)}, {ctx.output(node.output(0))});
}

std::string check_dql(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* x = model.info(node.input(0));
  if (x != nullptr && x->elem_type != onnx_type::kFloat) return "only float input is defined";
  return "";
}

void lower_dql(const onnx::NodeProto& node, LoweringContext& ctx) {
  F f{ctx, node.output(0)};
  const std::string x = ctx.as_is(node.input(0));
  const std::vector<uint32_t> xd = f.dims(x);
  std::vector<uint32_t> axes(xd.size());
  for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<uint32_t>(i);
  auto reduce = [&](const char* op) {
    const std::string r = ctx.native(node.output(0) + "_range", QNN_DATATYPE_FLOAT_32, std::vector<uint32_t>(xd.size(), 1));
    ctx.add_node(op, {x}, {r},
                 {param_u32_tensor(QNN_OP_REDUCE_MIN_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes),
                  param_bool(QNN_OP_REDUCE_MIN_PARAM_KEEP_DIMS, true)});
    return ctx.reshape(r, {1});
  };
  const std::string lo = f.bin(QNN_OP_ELEMENT_WISE_MINIMUM, reduce(QNN_OP_REDUCE_MIN), f.k(0.0f));
  const std::string hi = f.bin(QNN_OP_ELEMENT_WISE_MAXIMUM, reduce(QNN_OP_REDUCE_MAX), f.k(0.0f));
  const std::string scale =
      f.bin(QNN_OP_ELEMENT_WISE_DIVIDE, f.bin(QNN_OP_ELEMENT_WISE_SUBTRACT, hi, lo), f.k(255.0f));
  const std::string neg_lo = f.bin(QNN_OP_ELEMENT_WISE_SUBTRACT, f.k(0.0f), lo);
  const std::string zp = f.clamp(f.round(f.bin(QNN_OP_ELEMENT_WISE_DIVIDE, neg_lo, scale)), 0.0f, 255.0f);
  const std::string q = f.clamp(
      f.bin(QNN_OP_ELEMENT_WISE_ADD, f.round(f.bin(QNN_OP_ELEMENT_WISE_DIVIDE, x, scale)), zp), 0.0f, 255.0f);
  ctx.add_node(QNN_OP_CAST, {q}, {ctx.output(node.output(0))});
  if (const std::string o = output_name(node, 1); !o.empty()) ctx.add_node(QNN_OP_RESHAPE, {scale}, {ctx.output(o)});
  if (const std::string o = output_name(node, 2); !o.empty()) ctx.add_node(QNN_OP_CAST, {zp}, {ctx.output(o)});
}

}  // namespace

std::vector<OpLowering> integer_lowerings() {
  return {
      {"MatMulInteger", check_matmul_integer, lower_matmul_integer},
      {"QLinearMatMul", check_matmul_integer, lower_qlinear_matmul},
      {"DynamicQuantizeLinear", check_dql, lower_dql},
  };
}

}  // namespace openhtp::onnx_import
