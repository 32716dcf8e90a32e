// Indexing ONNX ops onto the QNN indexing family (docs/ops.md "The op set"):
//
//   Where(c, a, b)            -> ElementWiseSelect(c, a, b) (same numpy broadcasting)
//   GatherElements(x, i)      -> GatherElements(x, i), axis (negative indices wrap in QNN too)
//   GatherND(x, i)            -> GatherNd(x, i), batch_dims
//   ScatterElements(x, i, u)  -> ScatterElements, reduction none/add/mul/max (min refused)
//   ScatterND(x, i, u)        -> ScatterNd, reduction none/add/mul (max/min refused)
//   Tile(x, repeats)          -> Tile, multiples = the constant repeats
//   CumSum(x, axis)           -> CumulativeSum, exclusive/reverse; axis constant, or a run-time
//                                scalar (one CumulativeSum per axis, picked by ElementWiseSelect)
//   OneHot(i, depth, values)  -> OneHot, depth constant (or read off the static output shape),
//                                on/off from constant values, else OneHot 0/1 blended with
//                                the run-time values: off + onehot * (on - off)
//   IsInf(x) / IsNaN(x)       -> IsInf (detect_negative/positive) / IsNan
//   Scatter (opset 9-10)      -> ScatterElements, reduction none (the same op, renamed in ONNX 11)
//   Hardmax(x)                -> Argmax(axis) -> OneHot(depth = dim, on 1, off 0); QNN Argmax
//                                picks the first maximum, as ONNX; opset < 13 works on the
//                                2-D [prod dims < axis, prod dims >= axis] view (Reshapes)
//   Trilu(x, k)               -> ElementWiseSelect(j - i >= k (upper) / <= k (lower), x, 0), with
//                                j - i a static INT_32 [rows, cols] tensor; k constant or run time
//   BitShift(x, y)            -> x * p or x / p (unsigned: truncation is the shift), p = Gather of a
//                                static [1, 2, 4, .., 2^(bits-1)] table (x's type) at Cast(y) to INT_32
//   Compress(x, c)            -> Gather(x, static indices of c's true entries, axis), x flattened
//                                without axis; c must be constant (it decides the output's shape)
//   ReverseSequence(x, lens)  -> GatherElements(x, static idx, time_axis), idx = lens[b] - 1 - t for
//                                t < lens[b], else t; lens must be constant (the conformance runner
//                                binds it)
//   MaxUnpool(x, i, shape?)   -> ScatterElements(static zeros, i flattened, x flattened, axis 0)
//                                over the default output shape ((in - 1) * stride - pads + kernel),
//                                whose flat NCHW offsets MaxPool's indices are; a larger static
//                                output shape (output_shape) is zero Pad at the end of each axis
//
// Layout: these ops' axes are ONNX axes, so they work in ONNX layout (as
// Gather does): ctx.as_is() inserts the Transpose back when an input exists
// only channel-last.
#include <algorithm>
#include <cstring>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

Qnn_DataType_t qdt(LoweringContext& ctx, const std::string& onnx_name) {
  Qnn_DataType_t dt;
  qnn_dtype_for(ctx.info(onnx_name).elem_type, &dt);
  return dt;
}

// Index tensors: int64 -> INT_32 (constants converted at import; graph
// inputs are already INT_32 in the QNN graph).
std::string index_tensor(LoweringContext& ctx, const std::string& name) { return ctx.as_is(name); }

void lower_where(const onnx::NodeProto& node, LoweringContext& ctx) {
  ctx.add_node(QNN_OP_ELEMENT_WISE_SELECT, {ctx.as_is(node.input(0)), ctx.as_is(node.input(1)), ctx.as_is(node.input(2))},
               {ctx.output(node.output(0))});
}

void lower_gather_elements(const onnx::NodeProto& node, LoweringContext& ctx) {
  const size_t r = ctx.rank(node.input(0));
  const int64_t axis = normalize_axis(attr_int(node, "axis", 0), r);
  ctx.add_node(QNN_OP_GATHER_ELEMENTS, {ctx.as_is(node.input(0)), index_tensor(ctx, node.input(1))},
               {ctx.output(node.output(0))}, {param_i32(QNN_OP_GATHER_ELEMENTS_PARAM_AXIS, static_cast<int32_t>(axis))});
}

void lower_gather_nd(const onnx::NodeProto& node, LoweringContext& ctx) {
  const uint32_t b = static_cast<uint32_t>(attr_int(node, "batch_dims", 0));
  ctx.add_node(QNN_OP_GATHER_ND, {ctx.as_is(node.input(0)), index_tensor(ctx, node.input(1))},
               {ctx.output(node.output(0))}, {param_u32(QNN_OP_GATHER_ND_PARAM_BATCH_DIMS, b)});
}

// ONNX reduction attribute -> QNN code; -1 when QNN has none.
int scatter_reduction(const onnx::NodeProto& node, bool elements) {
  const std::string r = attr_string(node, "reduction", "none");
  if (r == "none") return QNN_OP_SCATTER_ELEMENTS_REDUCTION_NONE;
  if (r == "add") return QNN_OP_SCATTER_ELEMENTS_REDUCTION_ADD;
  if (r == "mul") return QNN_OP_SCATTER_ELEMENTS_REDUCTION_MUL;
  if (r == "max" && elements) return QNN_OP_SCATTER_ELEMENTS_REDUCTION_MAX;
  return -1;
}

std::string check_scatter(const onnx::NodeProto& node, const Model&) {
  const bool elements = node.op_type() == "ScatterElements";
  if (scatter_reduction(node, elements) < 0) {
    return "reduction '" + attr_string(node, "reduction", "none") + "' has no QNN " +
           (elements ? "ScatterElements" : "ScatterNd") + " equivalent";
  }
  return "";
}

void lower_scatter_elements(const onnx::NodeProto& node, LoweringContext& ctx) {
  const size_t r = ctx.rank(node.input(0));
  const int64_t axis = normalize_axis(attr_int(node, "axis", 0), r);
  ctx.add_node(QNN_OP_SCATTER_ELEMENTS,
               {ctx.as_is(node.input(0)), index_tensor(ctx, node.input(1)), ctx.as_is(node.input(2))},
               {ctx.output(node.output(0))},
               {param_i32(QNN_OP_SCATTER_ELEMENTS_PARAM_AXIS, static_cast<int32_t>(axis)),
                param_u32(QNN_OP_SCATTER_ELEMENTS_PARAM_REDUCTION, static_cast<uint32_t>(scatter_reduction(node, true)))});
}

void lower_scatter_nd(const onnx::NodeProto& node, LoweringContext& ctx) {
  ctx.add_node(QNN_OP_SCATTER_ND,
               {ctx.as_is(node.input(0)), index_tensor(ctx, node.input(1)), ctx.as_is(node.input(2))},
               {ctx.output(node.output(0))},
               {param_u32(QNN_OP_SCATTER_ND_PARAM_REDUCTION, static_cast<uint32_t>(scatter_reduction(node, false)))});
}

std::string check_tile(const onnx::NodeProto& node, const Model& model) {
  return check_constant_inputs(node, model, {1});
}

void lower_tile(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::vector<int64_t> rep = ctx.constant(node.input(1))->to_ints();
  std::vector<uint32_t> m;
  for (int64_t v : rep) {
    if (v < 1) ctx.fail("Tile repeats must be >= 1 (got " + std::to_string(v) + ")");
    m.push_back(static_cast<uint32_t>(v));
  }
  ctx.add_node(QNN_OP_TILE, {ctx.as_is(node.input(0))}, {ctx.output(node.output(0))},
               {param_u32_tensor(QNN_OP_TILE_PARAM_MULTIPLES, {static_cast<uint32_t>(m.size())}, m)});
}

// CumSum. A constant axis is CumulativeSum's parameter. A run-time axis (as
// in the ONNX node tests) cannot be a parameter; since the output shape is
// the same whatever the axis, every axis k gets its CumulativeSum and the
// result is Select(axis == k or axis == k - r, sum_k, ...), so the graph
// computes ONNX's value for every legal axis.
void lower_cumsum(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const size_t r = ctx.rank(in);
  const bool exclusive = attr_int(node, "exclusive", 0) != 0, reverse = attr_int(node, "reverse", 0) != 0;
  const std::string x = ctx.as_is(in);
  auto params = [&](uint32_t axis) {
    return std::vector<QParam>{param_u32(QNN_OP_CUMULATIVE_SUM_PARAM_AXIS, axis),
                               param_bool(QNN_OP_CUMULATIVE_SUM_PARAM_EXCLUSIVE, exclusive),
                               param_bool(QNN_OP_CUMULATIVE_SUM_PARAM_REVERSE, reverse)};
  };
  const std::string& axis_name = node.input(1);
  if (const Tensor* c = ctx.constant(axis_name); c != nullptr || r == 1) {
    const int64_t axis = c != nullptr ? normalize_axis(c->get_int(0), r) : 0;
    ctx.add_node(QNN_OP_CUMULATIVE_SUM, {x}, {ctx.output(node.output(0))}, params(static_cast<uint32_t>(axis)));
    return;
  }
  const Qnn_DataType_t dt = ctx.qtensor(x).dtype;
  const std::vector<uint32_t> dims = ctx.qtensor(x).dims;
  const std::string a = ctx.as_is(axis_name);
  const Qnn_DataType_t adt = ctx.qtensor(a).dtype;
  const std::vector<uint32_t> adims = ctx.qtensor(a).dims;
  auto axis_const = [&](int32_t v) {
    std::vector<uint8_t> bytes(4);
    std::memcpy(bytes.data(), &v, 4);
    return ctx.static_tensor(node.output(0) + "_axis_" + std::to_string(v), adt, {1}, std::move(bytes));
  };
  auto equal = [&](const std::string& lhs, int32_t v) {
    const std::string out = ctx.native(node.output(0) + "_is_axis", QNN_DATATYPE_BOOL_8, adims);
    ctx.add_node(QNN_OP_ELEMENT_WISE_BINARY, {lhs, axis_const(v)}, {out},
                 {param_u32(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_EQUAL)});
    return out;
  };
  // Last axis first: acc = sum_{r-1}; then acc = Select(axis is k, sum_k, acc).
  std::string acc;
  for (size_t k = r; k-- > 0;) {
    const std::string s = ctx.native(node.output(0) + "_sum" + std::to_string(k), dt, dims);
    ctx.add_node(QNN_OP_CUMULATIVE_SUM, {x}, {s}, params(static_cast<uint32_t>(k)));
    if (acc.empty()) {
      acc = s;
      continue;
    }
    const std::string pos = equal(a, static_cast<int32_t>(k));
    const std::string neg = equal(a, static_cast<int32_t>(k) - static_cast<int32_t>(r));
    const std::string is_k = ctx.native(node.output(0) + "_is_k", QNN_DATATYPE_BOOL_8, adims);
    ctx.add_node(QNN_OP_ELEMENT_WISE_BINARY, {pos, neg}, {is_k},
                 {param_u32(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_BINARY_OPERATION_OR)});
    const std::string out = k == 0 ? ctx.output(node.output(0)) : ctx.native(node.output(0) + "_pick", dt, dims);
    ctx.add_node(QNN_OP_ELEMENT_WISE_SELECT, {is_k, s, acc}, {out});
    acc = out;
  }
}

// OneHot: depth from the constant input, else from the static output shape
// (ONNX shape inference knows it when depth folds); on/off values from the
// constant 'values' input, else blended at run time.
void lower_one_hot(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& idx = node.input(0);
  const size_t q = ctx.rank(idx);
  const int64_t axis = normalize_axis(attr_int(node, "axis", -1), q + 1);
  const std::vector<int64_t> od = ctx.info(node.output(0)).dims;
  uint32_t depth = static_cast<uint32_t>(od[axis]);
  if (const Tensor* d = ctx.constant(node.input(1))) depth = static_cast<uint32_t>(d->get(0));
  const Qnn_DataType_t dt = qdt(ctx, node.output(0));
  std::string indices = ctx.as_is(idx);
  if (ctx.info(idx).elem_type == onnx_type::kFloat || ctx.info(idx).elem_type == onnx_type::kDouble) {
    // ONNX allows float indices (truncated); QNN wants integers.
    const std::string cast = ctx.native(idx + "_int", QNN_DATATYPE_INT_32, ctx.qtensor(indices).dims);
    ctx.add_node(QNN_OP_CAST, {indices}, {cast});
    indices = cast;
  }
  auto one_hot = [&](const std::string& out, float on, float off) {
    ctx.add_node(QNN_OP_ONE_HOT, {indices}, {out},
                 {param_u32(QNN_OP_ONE_HOT_PARAM_DEPTH, depth), param_i32(QNN_OP_ONE_HOT_PARAM_AXIS, static_cast<int32_t>(axis)),
                  param_f32(QNN_OP_ONE_HOT_PARAM_ON_VALUE, on), param_f32(QNN_OP_ONE_HOT_PARAM_OFF_VALUE, off)});
  };
  if (const Tensor* v = ctx.constant(node.input(2))) {
    one_hot(ctx.output(node.output(0)), static_cast<float>(v->get(1)), static_cast<float>(v->get(0)));
    return;
  }
  // y = off + onehot01 * (on - off), with off/on = values[0]/values[1] sliced out.
  const std::string vals = ctx.as_is(node.input(2));
  const std::string oh = ctx.native(node.output(0) + "_01", dt, {od.begin(), od.end()});
  one_hot(oh, 1.0f, 0.0f);
  auto pick = [&](int32_t i) {
    const std::string out = ctx.native(node.output(0) + (i == 0 ? "_off" : "_on"), dt, {1});
    ctx.add_node(QNN_OP_STRIDED_SLICE, {vals}, {out},
                 {param_i32_tensor(QNN_OP_STRIDED_SLICE_PARAM_RANGES, {1, 3}, {i, i + 1, 1})});
    return out;
  };
  const std::string off = pick(0), on = pick(1);
  const std::string diff = ctx.native(node.output(0) + "_span", dt, {1});
  ctx.add_node(QNN_OP_ELEMENT_WISE_SUBTRACT, {on, off}, {diff});
  const std::string scaled = ctx.native(node.output(0) + "_scaled", dt, {od.begin(), od.end()});
  ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {oh, diff}, {scaled});
  ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {scaled, off}, {ctx.output(node.output(0))});
}

std::string check_one_hot(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(2));
  if (v != nullptr && v->dims.size() == 1 && v->dims[0] != 2) return "'values' must hold 2 elements";
  return "";
}

void lower_is_inf(const onnx::NodeProto& node, LoweringContext& ctx) {
  ctx.add_node(QNN_OP_IS_INF, {ctx.as_is(node.input(0))}, {ctx.output(node.output(0))},
               {param_bool(QNN_OP_IS_INF_PARAM_DETECT_NEGATIVE, attr_int(node, "detect_negative", 1) != 0),
                param_bool(QNN_OP_IS_INF_PARAM_DETECT_POSITIVE, attr_int(node, "detect_positive", 1) != 0)});
}

void lower_is_nan(const onnx::NodeProto& node, LoweringContext& ctx) {
  ctx.add_node(QNN_OP_IS_NAN, {ctx.as_is(node.input(0))}, {ctx.output(node.output(0))});
}

void lower_hardmax(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const std::vector<int64_t> dims = ctx.info(in).dims;
  const size_t r = dims.size();
  const bool legacy = ctx.model().opset < 13;
  const int64_t axis = normalize_axis(attr_int(node, "axis", legacy ? 1 : -1), r);
  std::string x = ctx.as_is(in);
  const Qnn_DataType_t dt = ctx.qtensor(x).dtype;
  std::vector<uint32_t> work(dims.begin(), dims.end());
  uint32_t a = static_cast<uint32_t>(axis);
  if (legacy) {
    uint32_t outer = 1, inner = 1;
    for (size_t i = 0; i < r; ++i) (static_cast<int64_t>(i) < axis ? outer : inner) *= static_cast<uint32_t>(dims[i]);
    work = {outer, inner};
    a = 1;
    x = ctx.reshape(x, work);
  }
  std::vector<uint32_t> reduced = work;
  reduced.erase(reduced.begin() + a);
  if (reduced.empty()) reduced = {1};
  const std::string idx = ctx.native(node.output(0) + "_argmax", QNN_DATATYPE_INT_32, reduced);
  ctx.add_node(QNN_OP_ARGMAX, {x}, {idx},
               {param_u32(QNN_OP_ARGMAX_PARAM_AXIS, a), param_bool(QNN_OP_ARGMAX_PARAM_KEEP_DIMS, false)});
  const std::string out = legacy ? ctx.native(node.output(0) + "_2d", dt, work) : ctx.output(node.output(0));
  const int32_t oh_axis = work.size() == 1 ? 0 : static_cast<int32_t>(a);
  ctx.add_node(QNN_OP_ONE_HOT, {idx}, {out},
               {param_u32(QNN_OP_ONE_HOT_PARAM_DEPTH, work[a]), param_i32(QNN_OP_ONE_HOT_PARAM_AXIS, oh_axis),
                param_f32(QNN_OP_ONE_HOT_PARAM_ON_VALUE, 1.0f), param_f32(QNN_OP_ONE_HOT_PARAM_OFF_VALUE, 0.0f)});
  if (legacy) ctx.add_node(QNN_OP_RESHAPE, {out}, {ctx.output(node.output(0))});
}

std::string check_hardmax(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->elem_type != onnx_type::kFloat && v->elem_type != onnx_type::kDouble &&
      v->elem_type != onnx_type::kFloat16) {
    return "only float inputs are supported";
  }
  if (v != nullptr && v->dims.size() == 1 && model.opset < 13) return "rank-1 input with opset < 13";
  return "";
}

void lower_trilu(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string& in = node.input(0);
  const std::vector<uint32_t> dims = ctx.dims_u32(in);
  const size_t r = dims.size();
  const uint32_t rows = dims[r - 2], cols = dims[r - 1];
  const bool upper = attr_int(node, "upper", 1) != 0;
  const std::string x = ctx.as_is(in);
  const Qnn_DataType_t dt = ctx.qtensor(x).dtype;
  // diff[i][j] = j - i.
  std::vector<uint8_t> diff(size_t{rows} * cols * 4);
  for (uint32_t i = 0; i < rows; ++i)
    for (uint32_t j = 0; j < cols; ++j) {
      const int32_t v = static_cast<int32_t>(j) - static_cast<int32_t>(i);
      std::memcpy(diff.data() + (size_t{i} * cols + j) * 4, &v, 4);
    }
  const std::string d = ctx.static_tensor(node.output(0) + "_diag", QNN_DATATYPE_INT_32, {rows, cols}, std::move(diff));
  std::string k;
  const std::string kn = input_name(node, 1);
  if (kn.empty()) {
    k = ctx.static_tensor(node.output(0) + "_k", QNN_DATATYPE_INT_32, {1}, std::vector<uint8_t>(4, 0));
  } else if (const Tensor* c = ctx.constant(kn)) {
    const int32_t v = static_cast<int32_t>(std::clamp<int64_t>(c->get_int(0), -(int64_t{1} << 30), int64_t{1} << 30));
    std::vector<uint8_t> b(4);
    std::memcpy(b.data(), &v, 4);
    k = ctx.static_tensor(node.output(0) + "_k", QNN_DATATYPE_INT_32, {1}, std::move(b));
  } else {
    k = ctx.as_is(kn);
  }
  const std::string mask = ctx.native(node.output(0) + "_mask", QNN_DATATYPE_BOOL_8, {rows, cols});
  ctx.add_node(QNN_OP_ELEMENT_WISE_BINARY, {d, k}, {mask},
               {param_u32(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION,
                          upper ? QNN_OP_ELEMENT_WISE_BINARY_OPERATION_GREATER_EQUAL
                                : QNN_OP_ELEMENT_WISE_BINARY_OPERATION_LESS_EQUAL)});
  const std::string zero =
      ctx.static_tensor(node.output(0) + "_zero", dt, {1}, std::vector<uint8_t>(qnn_element_size(dt), 0));
  ctx.add_node(QNN_OP_ELEMENT_WISE_SELECT, {mask, x, zero}, {ctx.output(node.output(0))});
}

std::string check_trilu(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->dims.size() < 2) return "input must have rank >= 2";
  return "";
}

std::string check_bit_shift(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->elem_type != onnx_type::kUint8 && v->elem_type != onnx_type::kUint16 &&
      v->elem_type != onnx_type::kUint32 && v->elem_type != onnx_type::kUint64) {
    return "only unsigned integer inputs are defined for BitShift";
  }
  const std::string d = attr_string(node, "direction", "");
  if (d != "LEFT" && d != "RIGHT") return "direction must be LEFT or RIGHT, got '" + d + "'";
  return "";
}

void lower_bit_shift(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string x = ctx.as_is(node.input(0));
  const QTensor& xt = ctx.qtensor(x);
  const Qnn_DataType_t dt = xt.dtype;
  const uint32_t bits = static_cast<uint32_t>(8 * qnn_element_size(dt));
  // y as INT_32 indices into the table of powers of two.
  const std::string y = ctx.as_is(node.input(1));
  const std::vector<uint32_t> yd = ctx.qtensor(y).dims;
  const std::string yi = ctx.native(node.output(0) + "_shift", QNN_DATATYPE_INT_32, yd);
  ctx.add_node(QNN_OP_CAST, {y}, {yi});
  Tensor table = Tensor::zeros(ctx.info(node.input(0)).elem_type, {static_cast<int64_t>(bits)});
  for (uint32_t b = 0; b < bits; ++b) table.set(b, static_cast<double>(uint64_t{1} << b));
  const std::string tq = ctx.static_tensor(node.output(0) + "_pow2", dt, {bits}, to_qnn_bytes(table, dt));
  const std::string p = ctx.native(node.output(0) + "_pow", dt, yd);
  ctx.add_node(QNN_OP_GATHER, {tq, yi}, {p}, {param_i32(QNN_OP_GATHER_PARAM_AXIS, 0)});
  const bool left = attr_string(node, "direction", "") == "LEFT";
  ctx.add_node(left ? QNN_OP_ELEMENT_WISE_MULTIPLY : QNN_OP_ELEMENT_WISE_DIVIDE, {x, p}, {ctx.output(node.output(0))});
}

std::string check_compress(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_constant_inputs(node, model, {1}); !why.empty()) {
    return why + ": the condition decides the output's shape";
  }
  return "";
}

void lower_compress(const onnx::NodeProto& node, LoweringContext& ctx) {
  const Tensor* c = ctx.constant(node.input(1));
  std::string x = ctx.as_is(node.input(0));
  const std::vector<uint32_t> xd = ctx.qtensor(x).dims;
  int64_t axis = 0;
  if (has_attr(node, "axis")) {
    axis = normalize_axis(attr_int(node, "axis", 0), xd.size());
  } else {
    uint32_t n = 1;
    for (uint32_t d : xd) n *= d;
    x = ctx.reshape(x, {n});
  }
  const uint32_t len = ctx.qtensor(x).dims[static_cast<size_t>(axis)];
  std::vector<int64_t> idx;
  for (size_t i = 0; i < c->count() && i < len; ++i) {
    if (c->get(i) != 0) idx.push_back(static_cast<int64_t>(i));
  }
  if (idx.empty()) ctx.fail("the condition selects nothing: the output would be empty");
  const Tensor it = Tensor::from_ints(onnx_type::kInt32, {static_cast<int64_t>(idx.size())}, idx);
  const std::string indices = ctx.static_tensor(node.output(0) + "_indices", QNN_DATATYPE_INT_32,
                                                {static_cast<uint32_t>(idx.size())}, to_qnn_bytes(it, QNN_DATATYPE_INT_32));
  ctx.add_node(QNN_OP_GATHER, {x, indices}, {ctx.output(node.output(0))},
               {param_i32(QNN_OP_GATHER_PARAM_AXIS, static_cast<int32_t>(axis))});
}

std::string check_reverse_sequence(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_constant_inputs(node, model, {1}); !why.empty()) return why;
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->dims.size() < 2) return "input must have rank >= 2";
  return "";
}

void lower_reverse_sequence(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::vector<uint32_t> xd = ctx.dims_u32(node.input(0));
  const size_t r = xd.size();
  const int64_t ta = normalize_axis(attr_int(node, "time_axis", 0), r);
  const int64_t ba = normalize_axis(attr_int(node, "batch_axis", 1), r);
  const Tensor* lens = ctx.constant(node.input(1));
  size_t n = 1;
  for (uint32_t d : xd) n *= d;
  std::vector<int64_t> idx(n);
  std::vector<size_t> pos(r, 0);
  for (size_t i = 0; i < n; ++i) {
    size_t rem = i;
    for (size_t a = r; a-- > 0;) {
      pos[a] = rem % xd[a];
      rem /= xd[a];
    }
    const int64_t t = static_cast<int64_t>(pos[static_cast<size_t>(ta)]);
    const int64_t len = lens->get_int(pos[static_cast<size_t>(ba)]);
    idx[i] = t < len ? len - 1 - t : t;
  }
  const Tensor it = Tensor::from_ints(onnx_type::kInt32, std::vector<int64_t>(xd.begin(), xd.end()), idx);
  const std::string indices = ctx.static_tensor(node.output(0) + "_indices", QNN_DATATYPE_INT_32, xd,
                                                to_qnn_bytes(it, QNN_DATATYPE_INT_32));
  ctx.add_node(QNN_OP_GATHER_ELEMENTS, {ctx.as_is(node.input(0)), indices}, {ctx.output(node.output(0))},
               {param_i32(QNN_OP_GATHER_ELEMENTS_PARAM_AXIS, static_cast<int32_t>(ta))});
}

void lower_max_unpool(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::vector<uint32_t> yd = ctx.dims_u32(node.output(0));
  const std::string x = ctx.as_is(node.input(0));
  const QTensor& xt = ctx.qtensor(x);
  const Qnn_DataType_t dt = xt.dtype;
  const std::vector<uint32_t> xd = xt.dims;
  // The default output shape (in - 1) * stride - pads + kernel: MaxPool's
  // indices are flat offsets into it; a larger output_shape pads it at the end.
  const size_t nsp = xd.size() - 2;
  const std::vector<int64_t> k = attr_ints(node, "kernel_shape");
  const std::vector<int64_t> st = attr_ints(node, "strides", std::vector<int64_t>(nsp, 1));
  const std::vector<int64_t> pads = attr_ints(node, "pads", std::vector<int64_t>(2 * nsp, 0));
  if (k.size() != nsp || st.size() != nsp || pads.size() != 2 * nsp) ctx.fail("kernel_shape/strides/pads do not match the rank");
  std::vector<uint32_t> dd = {xd[0], xd[1]};
  for (size_t i = 0; i < nsp; ++i) {
    dd.push_back(static_cast<uint32_t>((xd[2 + i] - 1) * st[i] - pads[i] - pads[nsp + i] + k[i]));
    if (dd.back() > yd[2 + i]) ctx.fail("output_shape is smaller than the default output shape");
  }
  uint32_t nd = 1, nx = 1;
  for (uint32_t d : dd) nd *= d;
  for (uint32_t d : xd) nx *= d;
  const std::string zeros = ctx.static_tensor(node.output(0) + "_zeros", dt, {nd},
                                              std::vector<uint8_t>(size_t{nd} * qnn_element_size(dt), 0));
  const std::string flat = ctx.native(node.output(0) + "_flat", dt, {nd});
  ctx.add_node(QNN_OP_SCATTER_ELEMENTS,
               {zeros, ctx.reshape(index_tensor(ctx, node.input(1)), {nx}), ctx.reshape(x, {nx})}, {flat},
               {param_i32(QNN_OP_SCATTER_ELEMENTS_PARAM_AXIS, 0), param_u32(QNN_OP_SCATTER_ELEMENTS_PARAM_REDUCTION, 0)});
  if (dd == yd) {
    ctx.add_node(QNN_OP_RESHAPE, {flat}, {ctx.output(node.output(0))});
    return;
  }
  std::vector<uint32_t> amounts;
  for (size_t a = 0; a < yd.size(); ++a) {
    amounts.push_back(0);
    amounts.push_back(yd[a] - dd[a]);
  }
  ctx.add_node(QNN_OP_PAD, {ctx.reshape(flat, dd)}, {ctx.output(node.output(0))},
               {param_u32(QNN_OP_PAD_PARAM_SCHEME, QNN_OP_PAD_SCHEME_CONSTANT),
                param_u32_tensor(QNN_OP_PAD_PARAM_PAD_AMOUNT, {static_cast<uint32_t>(yd.size()), 2}, amounts),
                dt == QNN_DATATYPE_FLOAT_32 ? param_f32(QNN_OP_PAD_PARAM_PAD_CONSTANT_VALUE, 0.0f)
                                            : param_i32(QNN_OP_PAD_PARAM_PAD_CONSTANT_VALUE, 0)});
}

}  // namespace

std::vector<OpLowering> indexing_lowerings() {
  return {
      {"Where", check_any, lower_where},
      {"GatherElements", check_any, lower_gather_elements},
      {"GatherND", check_any, lower_gather_nd},
      {"ScatterElements", check_scatter, lower_scatter_elements},
      {"ScatterND", check_scatter, lower_scatter_nd},
      {"Tile", check_tile, lower_tile},
      {"CumSum", check_any, lower_cumsum},
      {"OneHot", check_one_hot, lower_one_hot},
      {"IsInf", check_any, lower_is_inf},
      {"IsNaN", check_any, lower_is_nan},
      {"Scatter", check_any, lower_scatter_elements},
      {"Hardmax", check_hardmax, lower_hardmax},
      {"Trilu", check_trilu, lower_trilu},
      {"BitShift", check_bit_shift, lower_bit_shift},
      {"Compress", check_compress, lower_compress},
      {"ReverseSequence", check_reverse_sequence, lower_reverse_sequence},
      {"MaxUnpool", check_any, lower_max_unpool},
  };
}

}  // namespace openhtp::onnx_import
