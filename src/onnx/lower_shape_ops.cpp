// Data-movement ONNX ops: Reshape/Flatten/Squeeze/Unsqueeze (QNN Reshape,
// shape taken from the output tensor), Transpose, Concat, Split, Slice
// (StridedSlice), Gather, Pad, Expand.
#include <algorithm>
#include <limits>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

// Reshape-like ops: the output's inferred shape is the target.
void lower_reshape(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string x = ctx.as_is(node.input(0));
  ctx.add_node(QNN_OP_RESHAPE, {x}, {ctx.output(node.output(0))});
}

std::string check_reshape(const onnx::NodeProto& node, const Model&) {
  if (node.op_type() == "Reshape" && attr_int(node, "allowzero", 0) != 0) {
    // allowzero only matters for a 0 in the shape, and the output shape is
    // already inferred; nothing to refuse.
  }
  return "";
}

void lower_transpose(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  std::vector<int64_t> perm64 = attr_ints(node, "perm");
  if (perm64.empty()) {
    for (size_t i = 0; i < r; ++i) perm64.push_back(static_cast<int64_t>(r - 1 - i));
  }
  std::vector<uint32_t> perm(perm64.begin(), perm64.end());
  std::string x;
  if (ctx.prefers_channel_last(in)) {
    // Compose with the channel-last permutation instead of undoing it first:
    // out dim i = onnx dim perm[i] = channel-last dim inv[perm[i]].
    const std::vector<uint32_t> inv = inverse_perm(to_channel_last_perm(r));
    for (uint32_t& p : perm) p = inv[p];
    x = ctx.channel_last(in);
  } else {
    x = ctx.as_is(in);
  }
  ctx.add_node(QNN_OP_TRANSPOSE, {x}, {ctx.output(node.output(0))},
               {param_u32_tensor(QNN_OP_TRANSPOSE_PARAM_PERM, {static_cast<uint32_t>(perm.size())}, perm)});
}

void lower_concat(const onnx::NodeProto& node, LoweringContext& ctx) {
  const size_t r = ctx.rank(node.output(0));
  const int64_t axis = normalize_axis(attr_int(node, "axis", 0), r);
  std::vector<std::string> names;
  for (const auto& i : node.input()) {
    if (!i.empty() && ctx.info(i).dims[axis] != 0) names.push_back(i);
  }
  bool cl = r >= 3;
  bool any_dynamic = false;
  for (const auto& n : names) {
    if (ctx.constant(n) != nullptr) continue;
    any_dynamic = true;
    cl = cl && ctx.prefers_channel_last(n);
  }
  cl = cl && any_dynamic;
  std::vector<std::string> ins;
  for (const auto& n : names) ins.push_back(cl ? ctx.channel_last(n) : ctx.as_is(n));
  const uint32_t qaxis = cl ? channel_last_axis(axis, r) : static_cast<uint32_t>(axis);
  ctx.add_node(QNN_OP_CONCAT, ins, {ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx)},
               {param_u32(QNN_OP_CONCAT_PARAM_AXIS, qaxis)});
}

// The split sizes are read off the (static) output shapes, so a 'split'
// input given at run time is fine.
std::string check_split(const onnx::NodeProto&, const Model&) { return ""; }

void lower_split(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  const int64_t axis = normalize_axis(attr_int(node, "axis", 0), r);
  const std::string x = ctx.as_is(in);
  if (node.output_size() == 1) {
    ctx.add_node(QNN_OP_RESHAPE, {x}, {ctx.output(node.output(0))});
    return;
  }
  std::vector<uint32_t> starts;
  uint32_t at = 0;
  std::vector<std::string> outs;
  for (int i = 0; i < node.output_size(); ++i) {
    if (i > 0) starts.push_back(at);
    at += static_cast<uint32_t>(ctx.info(node.output(i)).dims[axis]);
    outs.push_back(ctx.output(node.output(i)));
  }
  ctx.add_node(QNN_OP_SPLIT, {x}, outs,
               {param_u32(QNN_OP_SPLIT_PARAM_AXIS, static_cast<uint32_t>(axis)),
                param_u32_tensor(QNN_OP_SPLIT_PARAM_SPLIT_INDEX, {static_cast<uint32_t>(starts.size())}, starts)});
}

std::string check_slice(const onnx::NodeProto& node, const Model& model) {
  if (model.opset >= 10) return check_constant_inputs(node, model, {1, 2, 3, 4});
  return "";
}

// ONNX Slice -> StridedSlice ranges, every dim explicit, using ONNX's
// clamping rules so QNN sees in-range begin/end (end -1 = "through index 0"
// for negative steps).
void lower_slice(const onnx::NodeProto& node, LoweringContext& ctx) {
  const Model& m = ctx.model();
  const std::string& in = node.input(0);
  const std::vector<int64_t> dims = ctx.info(in).dims;
  const size_t r = dims.size();
  std::vector<int64_t> starts, ends, axes, steps;
  auto ints_of = [&](int i) {
    const std::string n = input_name(node, i);
    return n.empty() ? std::vector<int64_t>{} : m.constant(n)->to_ints();
  };
  if (m.opset < 10) {
    starts = attr_ints(node, "starts");
    ends = attr_ints(node, "ends");
    axes = attr_ints(node, "axes");
  } else {
    starts = ints_of(1);
    ends = ints_of(2);
    axes = ints_of(3);
    steps = ints_of(4);
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  std::vector<int32_t> ranges;
  std::vector<int64_t> b(r, 0), e(dims), s(r, 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t a = normalize_axis(axes[k], r);
    const int64_t d = dims[a];
    const int64_t step = steps[k];
    if (step == 0) ctx.fail("Slice step 0 on axis " + std::to_string(a));
    int64_t st = starts[k], en = ends[k];
    if (st < 0) st += d;
    if (en < 0 && en > std::numeric_limits<int64_t>::min() / 2) en += d;
    if (step > 0) {
      st = std::clamp<int64_t>(st, 0, d);
      en = std::clamp<int64_t>(en, 0, d);
    } else {
      st = std::clamp<int64_t>(st, 0, d - 1);
      en = std::clamp<int64_t>(en, -1, d - 1);
    }
    b[a] = st;
    e[a] = en;
    s[a] = step;
  }
  for (size_t i = 0; i < r; ++i) {
    ranges.push_back(static_cast<int32_t>(b[i]));
    ranges.push_back(static_cast<int32_t>(e[i]));
    ranges.push_back(static_cast<int32_t>(s[i]));
  }
  const std::string x = ctx.as_is(in);
  ctx.add_node(QNN_OP_STRIDED_SLICE, {x}, {ctx.output(node.output(0))},
               {param_i32_tensor(QNN_OP_STRIDED_SLICE_PARAM_RANGES, {static_cast<uint32_t>(r), 3}, ranges)});
}

void lower_gather(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& data = node.input(0);
  const std::string& idx = node.input(1);
  const size_t r = ctx.rank(data);
  const int64_t axis = normalize_axis(attr_int(node, "axis", 0), r);
  std::string indices;
  if (const Tensor* c = ctx.constant(idx)) {
    // Negative indices count from the end; QNN HTP wants them in [0, dim).
    const int64_t d = ctx.info(data).dims[axis];
    Tensor fixed = Tensor::from_ints(onnx_type::kInt32, c->dims, {});
    for (size_t i = 0; i < c->count(); ++i) {
      int64_t v = c->get_int(i);
      fixed.set(i, static_cast<double>(v < 0 ? v + d : v));
    }
    indices = ctx.static_from(idx + "_idx", fixed);
  } else {
    indices = ctx.as_is(idx);
  }
  const std::string x = ctx.as_is(data);
  // QNN's output shape: data[:axis] + indices + data[axis+1:]; differs from
  // the ONNX one only for scalar indices (QNN [1]), fixed by a Reshape.
  const std::vector<uint32_t> dd = ctx.qtensor(x).dims, id = ctx.qtensor(indices).dims;
  std::vector<uint32_t> qd(dd.begin(), dd.begin() + axis);
  qd.insert(qd.end(), id.begin(), id.end());
  qd.insert(qd.end(), dd.begin() + axis + 1, dd.end());
  const QParam p = param_i32(QNN_OP_GATHER_PARAM_AXIS, static_cast<int32_t>(axis));
  if (qd == ctx.dims_u32(node.output(0))) {
    ctx.add_node(QNN_OP_GATHER, {x, indices}, {ctx.output(node.output(0))}, {p});
    return;
  }
  const std::string g = ctx.native(node.output(0) + "_gather", ctx.qtensor(x).dtype, qd);
  ctx.add_node(QNN_OP_GATHER, {x, indices}, {g}, {p});
  ctx.add_node(QNN_OP_RESHAPE, {g}, {ctx.output(node.output(0))});
}

std::string check_pad(const onnx::NodeProto& node, const Model& model) {
  if (model.opset >= 11) {
    if (std::string why = check_constant_inputs(node, model, {1, 2, 3}); !why.empty()) return why;
  }
  const std::string mode = attr_string(node, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") return "mode '" + mode + "' is not supported";
  std::vector<int64_t> pads =
      model.opset >= 11 ? model.constant(node.input(1))->to_ints() : attr_ints(node, "pads");
  for (int64_t p : pads) {
    if (p < 0) return "negative pads (cropping) are not supported";
  }
  if (model.opset >= 11 && !input_name(node, 3).empty()) return "the 'axes' input is not supported";
  return "";
}

void lower_pad(const onnx::NodeProto& node, LoweringContext& ctx) {
  const Model& m = ctx.model();
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  std::vector<int64_t> pads = m.opset >= 11 ? m.constant(node.input(1))->to_ints() : attr_ints(node, "pads");
  double value = m.opset >= 11 ? 0.0 : attr_float(node, "value", 0.0f);
  if (m.opset >= 11 && !input_name(node, 2).empty()) value = m.constant(node.input(2))->get(0);
  const std::string mode = attr_string(node, "mode", "constant");
  const uint32_t scheme = mode == "reflect" ? QNN_OP_PAD_SCHEME_MIRROR_REFLECT
                          : mode == "edge"  ? QNN_OP_PAD_SCHEME_EDGE
                                            : QNN_OP_PAD_SCHEME_CONSTANT;
  const bool cl = r >= 3 && ctx.prefers_channel_last(in);
  const std::vector<uint32_t> order = cl ? to_channel_last_perm(r) : std::vector<uint32_t>{};
  std::vector<uint32_t> amounts;
  for (size_t i = 0; i < r; ++i) {
    const size_t d = cl ? order[i] : i;
    amounts.push_back(static_cast<uint32_t>(pads[d]));
    amounts.push_back(static_cast<uint32_t>(pads[d + r]));
  }
  const std::string x = cl ? ctx.channel_last(in) : ctx.as_is(in);
  const Qnn_DataType_t dt = ctx.qtensor(x).dtype;
  QParam pv = dt == QNN_DATATYPE_FLOAT_32 || dt == QNN_DATATYPE_FLOAT_16
                  ? param_f32(QNN_OP_PAD_PARAM_PAD_CONSTANT_VALUE, static_cast<float>(value))
                  : param_i32(QNN_OP_PAD_PARAM_PAD_CONSTANT_VALUE, static_cast<int32_t>(value));
  ctx.add_node(QNN_OP_PAD, {x}, {ctx.output(node.output(0), cl ? Layout::kChannelLast : Layout::kOnnx)},
               {param_u32(QNN_OP_PAD_PARAM_SCHEME, scheme),
                param_u32_tensor(QNN_OP_PAD_PARAM_PAD_AMOUNT, {static_cast<uint32_t>(r), 2}, amounts), pv});
}

// Expand(x, shape) = Tile(x at the output's rank, output / x per axis): each
// axis of x is either the output's or 1, so the multiples are whole. (It was
// x + a STATIC zeros tensor of the output's shape: a [1,1] expanded to
// [20000,20000] became a 1.6 GB constant in the context binary.) Tile moves
// data of any type, where Add needed one it can add.
void lower_expand(const onnx::NodeProto& node, LoweringContext& ctx) {
  std::string x = ctx.as_is(node.input(0));
  const std::vector<uint32_t> od = ctx.dims_u32(node.output(0));
  std::vector<uint32_t> xd = ctx.qtensor(x).dims;
  if (xd.size() > od.size()) {
    // Only a scalar's QNN [1] can be longer than the output (also a scalar).
    for (uint32_t d : xd) {
      if (d != 1) ctx.fail("input dims longer than the output's");
    }
    xd.assign(od.size(), 1);
    x = ctx.reshape(x, xd);
  } else if (xd.size() < od.size()) {
    xd.insert(xd.begin(), od.size() - xd.size(), 1);
    x = ctx.reshape(x, xd);
  }
  std::vector<uint32_t> multiples(od.size(), 1);
  bool any = false;
  for (size_t i = 0; i < od.size(); ++i) {
    if (xd[i] == od[i]) continue;
    if (xd[i] != 1) {
      ctx.fail("input axis " + std::to_string(i) + " has size " + std::to_string(xd[i]) + ", output " +
               std::to_string(od[i]) + ": Expand broadcasts only axes of size 1");
    }
    multiples[i] = od[i];
    any = true;
  }
  if (!any) {
    ctx.add_node(QNN_OP_RESHAPE, {x}, {ctx.output(node.output(0))});
    return;
  }
  ctx.add_node(QNN_OP_TILE, {x}, {ctx.output(node.output(0))},
               {param_u32_tensor(QNN_OP_TILE_PARAM_MULTIPLES, {static_cast<uint32_t>(multiples.size())}, multiples)});
}

}  // namespace

std::vector<OpLowering> shape_op_lowerings() {
  return {
      {"Reshape", check_reshape, lower_reshape},   {"Flatten", check_any, lower_reshape},
      {"Squeeze", check_any, lower_reshape},       {"Unsqueeze", check_any, lower_reshape},
      {"Transpose", check_any, lower_transpose},   {"Concat", check_any, lower_concat},
      {"Split", check_split, lower_split},         {"Slice", check_slice, lower_slice},
      {"Gather", check_any, lower_gather},         {"Pad", check_pad, lower_pad},
      {"Expand", check_any, lower_expand},
  };
}

}  // namespace openhtp::onnx_import
