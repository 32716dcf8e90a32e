// ONNX loss functions composed of QNN ops (ONNX layout, float):
//
//   NegativeLogLikelihoodLoss(x [N, C, d1..dk], t [N, d1..dk], w [C]?)
//     x and t are viewed as [N, C, D] and [N, D] (D = d1 * .. * dk, 1 without d):
//       oh     = OneHot(t, depth C, axis 1, 1/0)                     [N, C, D]
//       picked = ReduceSum(x * oh, axis 1)                            [N, D]
//       wt     = ReduceSum(oh * w[1, C, 1], axis 1)  (w given)        [N, D]
//       wt     = Select(t == ignore_index, 0, wt or 1)  (ignore_index given)
//       loss   = -picked * wt
//     reduction none: loss as [N, d1..dk]; sum: ReduceSum(loss); mean:
//     ReduceSum(loss) / ReduceSum(wt) (with weights or ignore_index, as ONNX
//     divides by the summed weights of the counted elements), else / (N * D).
//     A target outside [0, C) gives an all-zero OneHot row, and QNN's OneHot
//     wraps a negative index once, as ONNX's: either way the element counts
//     only through wt, which ignore_index sets to 0 (ONNX requires every
//     other target to be in [0, C)).
//   SoftmaxCrossEntropyLoss(scores, labels, weights?) -> loss, log_prob?
//     log_prob = s - log(ReduceSum(exp(s), axis 1)), s = x - ReduceMax(x, axis 1)
//     (no overflow), then the NLL above on log_prob; log_prob (output 1) is
//     written in [N, C, d1..dk] when the model reads it.
#include <numeric>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::string check_loss(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* x = model.info(node.input(0));
  if (x != nullptr && x->elem_type != onnx_type::kFloat && x->elem_type != onnx_type::kDouble &&
      x->elem_type != onnx_type::kFloat16) {
    return "only float inputs are supported (composed of float element-wise ops and reductions)";
  }
  if (x != nullptr && x->dims.size() < 2) return "input 0 needs rank >= 2 ([N, C, ...])";
  const std::string red = attr_string(node, "reduction", "mean");
  if (red != "none" && red != "sum" && red != "mean") return "reduction '" + red + "' is not an ONNX reduction";
  const int allowed = node.op_type() == "SoftmaxCrossEntropyLoss" ? 2 : 1;
  return check_no_extra_outputs(node, allowed);
}

struct Loss {
  LoweringContext& ctx;
  const onnx::NodeProto& node;
  Qnn_DataType_t dt;
  uint32_t n, c, d;

  std::string tensor(const char* hint, Qnn_DataType_t type, std::vector<uint32_t> dims) {
    return ctx.native(node.output(0) + hint, type, std::move(dims));
  }
  std::string binary(const char* op, const std::string& a, const std::string& b, std::vector<uint32_t> dims,
                     const char* hint = "_t") {
    const std::string out = tensor(hint, dt, std::move(dims));
    ctx.add_node(op, {a, b}, {out});
    return out;
  }
  std::string reduce(const char* op, const std::string& x, std::vector<uint32_t> axes, bool keep,
                     std::vector<uint32_t> out_dims) {
    const std::string out = tensor("_red", dt, std::move(out_dims));
    ctx.add_node(op, {x}, {out},
                 {param_u32_tensor(QNN_OP_REDUCE_SUM_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes),
                  param_bool(QNN_OP_REDUCE_SUM_PARAM_KEEP_DIMS, keep)});
    return out;
  }
  std::string unary(uint32_t op, const std::string& x, std::vector<uint32_t> dims) {
    const std::string out = tensor("_u", dt, std::move(dims));
    ctx.add_node(QNN_OP_ELEMENT_WISE_UNARY, {x}, {out}, {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, op)});
    return out;
  }
  std::string k(float v) { return ctx.static_f32(node.output(0) + "_k", {1}, {v}); }

  // The NLL of log-probabilities `lp` [N, C, D] against node input 1 into output 0.
  void nll(const std::string& lp) {
    const std::string t = ctx.reshape(ctx.as_is(node.input(1)), {n, d});
    const std::string oh = tensor("_onehot", dt, {n, c, d});
    ctx.add_node(QNN_OP_ONE_HOT, {t}, {oh},
                 {param_u32(QNN_OP_ONE_HOT_PARAM_DEPTH, c), param_i32(QNN_OP_ONE_HOT_PARAM_AXIS, 1),
                  param_f32(QNN_OP_ONE_HOT_PARAM_ON_VALUE, 1.0f), param_f32(QNN_OP_ONE_HOT_PARAM_OFF_VALUE, 0.0f)});
    const std::string picked =
        reduce(QNN_OP_REDUCE_SUM, binary(QNN_OP_ELEMENT_WISE_MULTIPLY, lp, oh, {n, c, d}), {1}, false, {n, d});
    std::string wt;
    if (const std::string w = input_name(node, 2); !w.empty()) {
      const std::string w3 = ctx.reshape(ctx.as_is(w), {1, c, 1});
      wt = reduce(QNN_OP_REDUCE_SUM, binary(QNN_OP_ELEMENT_WISE_MULTIPLY, oh, w3, {n, c, d}), {1}, false, {n, d});
    }
    if (has_attr(node, "ignore_index")) {
      const int64_t ii = attr_int(node, "ignore_index", 0);
      const std::string iit = ctx.static_tensor(node.output(0) + "_ii", QNN_DATATYPE_INT_32, {1},
                                                to_qnn_bytes(Tensor::from_ints(onnx_type::kInt32, {1}, {ii}),
                                                             QNN_DATATYPE_INT_32));
      const std::string eq = tensor("_ignored", QNN_DATATYPE_BOOL_8, {n, d});
      ctx.add_node(QNN_OP_ELEMENT_WISE_BINARY, {t, iit}, {eq},
                   {param_u32(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_EQUAL)});
      const std::string masked = tensor("_wt", dt, {n, d});
      ctx.add_node(QNN_OP_ELEMENT_WISE_SELECT, {eq, k(0.0f), wt.empty() ? k(1.0f) : wt}, {masked});
      wt = masked;
    }
    std::string loss = unary(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_NEG, picked, {n, d});
    if (!wt.empty()) loss = binary(QNN_OP_ELEMENT_WISE_MULTIPLY, loss, wt, {n, d});
    const std::string red = attr_string(node, "reduction", "mean");
    const std::string y = ctx.output(node.output(0));
    if (red == "none") {
      ctx.add_node(QNN_OP_RESHAPE, {loss}, {y});
      return;
    }
    std::string total = reduce(QNN_OP_REDUCE_SUM, loss, {0, 1}, true, {1, 1});
    if (red == "mean") {
      const std::string den = wt.empty() ? k(static_cast<float>(n) * static_cast<float>(d))
                                         : reduce(QNN_OP_REDUCE_SUM, wt, {0, 1}, true, {1, 1});
      total = binary(QNN_OP_ELEMENT_WISE_DIVIDE, total, den, {1, 1});
    }
    ctx.add_node(QNN_OP_RESHAPE, {total}, {y});
  }
};

Loss start(const onnx::NodeProto& node, LoweringContext& ctx, std::string* x3) {
  const std::string x = ctx.as_is(node.input(0));
  const QTensor& xt = ctx.qtensor(x);
  const std::vector<uint32_t> xd = xt.dims;
  const uint32_t d = std::accumulate(xd.begin() + 2, xd.end(), 1u, [](uint32_t a, uint32_t b) { return a * b; });
  Loss l{ctx, node, xt.dtype, xd[0], xd[1], d};
  *x3 = ctx.reshape(x, {l.n, l.c, l.d});
  return l;
}

void lower_nll(const onnx::NodeProto& node, LoweringContext& ctx) {
  std::string x3;
  Loss l = start(node, ctx, &x3);
  l.nll(x3);
}

void lower_sce(const onnx::NodeProto& node, LoweringContext& ctx) {
  std::string x3;
  Loss l = start(node, ctx, &x3);
  const uint32_t n = l.n, c = l.c, d = l.d;
  const std::string m = l.reduce(QNN_OP_REDUCE_MAX, x3, {1}, true, {n, 1, d});
  const std::string s = l.binary(QNN_OP_ELEMENT_WISE_SUBTRACT, x3, m, {n, c, d});
  const std::string se =
      l.reduce(QNN_OP_REDUCE_SUM, l.unary(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_EXP, s, {n, c, d}), {1}, true, {n, 1, d});
  const std::string lse = l.unary(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_LOG, se, {n, 1, d});
  const std::string lp = l.binary(QNN_OP_ELEMENT_WISE_SUBTRACT, s, lse, {n, c, d}, "_log_prob");
  if (const std::string out = output_name(node, 1); !out.empty()) ctx.add_node(QNN_OP_RESHAPE, {lp}, {ctx.output(out)});
  l.nll(lp);
}

}  // namespace

std::vector<OpLowering> loss_lowerings() {
  return {
      {"NegativeLogLikelihoodLoss", check_loss, lower_nll},
      {"SoftmaxCrossEntropyLoss", check_loss, lower_sce},
  };
}

}  // namespace openhtp::onnx_import
