// Resize (opset 10+) and Upsample on rank-4 NCHW inputs, lowered to QNN
// Resize on channel-last activations.
//
// QNN Resize has no scale parameter: its coordinate map uses the ratio of
// the tensor sizes, in/out. ONNX maps output index o to an input
// coordinate with the given scale s, and out = floor(in * s), so the two
// differ whenever in * s is not a whole number (4 * 0.8 -> 3, but 4/3 is
// not 1/0.8). Such an axis is planned as
//   Pad (EDGE) the input at its end to L' with L' * s whole,
//   Resize L' -> M = L' * s (now the ratio is exactly 1/s),
//   StridedSlice the first `out` samples.
// (align_corners the same way, with (L'-1)/(M-1) = (in-1)/(in*s-1): ONNX
// takes the unrounded in*s as the resized length in that map.)
// Edge padding is what ONNX's own sampling does past the last input
// (indices clamp), so the samples that are kept are the ONNX ones; the one
// exception is cubic with exclude_outside, which must see where the real
// input ends, and is refused.
//
// Where no such plan exists (cubic with exclude_outside; a scale with no
// whole multiple of the input size up to 64x) the resize is written as what
// it is, a linear map per axis: ONNX's own sampling rule (coordinate map,
// neighbours, coefficients, exclude_outside's renormalisation) evaluated at
// import into an out x in matrix, applied by two MatMuls on the channel-last
// activations (H, then W; an axis whose matrix is the identity is skipped).
// Nearest off the size ratio is a selection: the same rule gives each output
// sample's one input sample, and two Gathers (H, then W) pick them, exactly
// (no 0 x inf in a product).
//
// tf_half_pixel_for_nn (x = (o + 0.5) / s) is asymmetric sampling (x = o' / s')
// on a twice-as-fine grid: resize to 2 * M with asymmetric mapping and keep
// every second sample from o' = 1.
//
// tf_crop_and_resize is TensorFlow's crop_and_resize, which QNN has as its
// own op: one CropAndResize box per image, (y1, x1, y2, x2) = the roi's H and
// W starts and ends, resize_dims the output's H and W, and ONNX's
// extrapolation_value for samples outside the image. The roi must be a
// constant and leave N and C whole; linear is bilinear, and nearest is
// TensorFlow's rounding (halves up: round_prefer_ceil) — other nearest modes
// and cubic have no CropAndResize form and are refused.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

// How one spatial axis is expressed with QNN ops.
struct AxisPlan {
  int64_t pad_end = 0;  // edge padding after the input
  int64_t resized = 0;  // QNN Resize output size M (per sub-step `step`: M = step * padded * s)
  int64_t start = 0;    // StridedSlice begin
  int64_t step = 1;     // StridedSlice stride
};

struct ResizeForm {
  bool legacy = false;  // Upsample / opset-10 Resize
  std::string mode, ctm, nearest;
};

ResizeForm form_of(const onnx::NodeProto& node, const Model& model) {
  ResizeForm f;
  f.legacy = node.op_type() == "Upsample" || model.opset < 11;
  f.mode = attr_string(node, "mode", "nearest");
  // Upsample and opset-10 Resize: output index i samples input i / scale
  // (asymmetric), nearest rounds down.
  f.ctm = f.legacy ? "asymmetric" : attr_string(node, "coordinate_transformation_mode", "half_pixel");
  f.nearest = f.legacy ? "floor" : attr_string(node, "nearest_mode", "round_prefer_floor");
  return f;
}

// The scale of spatial axis `axis` (2 or 3): the constant scales input when
// given, else out/in (sizes given).
double scale_of(const onnx::NodeProto& node, const Model& model, const ResizeForm& f, size_t axis) {
  const ValueInfo* in = model.info(node.input(0));
  const ValueInfo* out = model.info(node.output(0));
  const std::string sn = input_name(node, f.legacy ? 1 : 2);
  const Tensor* sc = sn.empty() ? nullptr : model.constant(sn);
  if (sc != nullptr && sc->count() == 4) return sc->get(axis);
  return static_cast<double>(out->dims[axis]) / static_cast<double>(in->dims[axis]);
}

// Whole up to a float32 scale's rounding (0.8f * 5 = 4.0000000596): a looser test
// would accept a ratio that samples a little off ONNX's coordinates.
bool whole(double v) { return std::fabs(v - std::round(v)) <= 1e-6 * std::max(1.0, std::fabs(v)); }

// "" and `plan` set, or why the axis cannot be expressed.
std::string plan_axis(const ResizeForm& f, int64_t in, int64_t out, double s, bool exclude_outside, AxisPlan* plan) {
  *plan = AxisPlan{};
  plan->resized = out;
  const bool exact = std::fabs(s * static_cast<double>(in) - static_cast<double>(out)) <= 1e-6 * static_cast<double>(out);
  if (f.mode == "nearest") {
    // Nearest picks one sample, so a coordinate a hair off a tie picks the
    // other one: unless in * s is out exactly, QNN Resize's ratio in/out is
    // not ONNX's float scale (0.6f is 0.60000002, 2.3f 2.29999995), and at
    // ties the two pick different samples (x = 3 / 0.6f is 4.9999998, floor
    // 4; 3 * 10/6 is 5). Such an axis is a selection (see the top).
    if (static_cast<double>(in) * s != static_cast<double>(out)) {
      return "nearest with scale " + std::to_string(s) + " off the size ratio";
    }
    if (f.ctm != "tf_half_pixel_for_nn") return "";
  } else if (exact && f.ctm != "tf_half_pixel_for_nn") {
    return "";
  }
  if (f.ctm != "half_pixel" && f.ctm != "pytorch_half_pixel" && f.ctm != "asymmetric" &&
      f.ctm != "align_corners" && f.ctm != "tf_half_pixel_for_nn") {
    return "coordinate_transformation_mode '" + f.ctm + "' is not supported";
  }
  const bool align = f.ctm == "align_corners";
  // align_corners samples x = 0 for the only output, or from the only input.
  if (align && (out == 1 || in == 1)) return "";
  plan->step = f.ctm == "tf_half_pixel_for_nn" ? 2 : 1;
  plan->start = plan->step - 1;
  for (int64_t padded = in; padded <= 64 * in; ++padded) {
    // The QNN map on (padded -> resized) must equal ONNX's: ratio 1/s, or
    // for align_corners (padded-1)/(resized-1) = (in-1)/(in*s-1) (ONNX
    // uses the unrounded in*s as the resized length there).
    const double m = align ? 1.0 + static_cast<double>(padded - 1) * (static_cast<double>(in) * s - 1.0) /
                                       static_cast<double>(in - 1)
                           : static_cast<double>(plan->step * padded) * s;
    if (!whole(m)) continue;
    const int64_t resized = static_cast<int64_t>(std::llround(m));
    if (resized < plan->start + plan->step * (out - 1) + 1) continue;
    plan->pad_end = padded - in;
    plan->resized = resized;
    if (plan->pad_end > 0 && exclude_outside && f.mode == "cubic") {
      return "exclude_outside with scale " + std::to_string(s) + " (not out/in = " + std::to_string(out) + "/" +
             std::to_string(in) + ") cannot be expressed: QNN Resize has no scale parameter";
    }
    return "";
  }
  return "scale " + std::to_string(s) + " has no whole multiple of the input size up to 64x (QNN Resize has no "
         "scale parameter)";
}

bool known_ctm(const std::string& ctm) {
  return ctm == "half_pixel" || ctm == "pytorch_half_pixel" || ctm == "asymmetric" || ctm == "align_corners" ||
         ctm == "tf_half_pixel_for_nn";
}

// ONNX's interpolation along one axis as an out x in row-major matrix:
// row o holds the weight of every input sample in output sample o.
std::vector<float> interpolation_matrix(const ResizeForm& f, int64_t in, int64_t out, double s, bool exclude_outside,
                                        double cubic_a) {
  std::vector<double> m(static_cast<size_t>(out * in), 0.0);
  const double resized_length = s * static_cast<double>(in);  // unrounded, as ONNX's align_corners uses it
  for (int64_t o = 0; o < out; ++o) {
    const double od = static_cast<double>(o);
    double x;
    if (f.ctm == "align_corners") {
      x = resized_length == 1.0 ? 0.0 : od * static_cast<double>(in - 1) / (resized_length - 1.0);
    } else if (f.ctm == "asymmetric") {
      x = od / s;
    } else if (f.ctm == "tf_half_pixel_for_nn") {
      x = (od + 0.5) / s;
    } else if (f.ctm == "pytorch_half_pixel") {
      x = out > 1 ? (od + 0.5) / s - 0.5 : 0.0;  // as QNN Resize and the ONNX spec: 0 for one sample
    } else {
      x = (od + 0.5) / s - 0.5;
    }
    // The nearest neighbours of x, lowest first: for a whole x the sample
    // itself is the second (linear, nearest) or third (cubic) of them, with
    // ratio 1, which gives it the whole weight.
    double base = std::floor(x), r = x - base;
    if (r == 0.0) {
      base -= 1.0;
      r = 1.0;
    }
    std::vector<double> c;
    if (f.mode == "nearest") {
      bool upper = true;  // a whole x
      if (r != 1.0) {
        upper = f.nearest == "round_prefer_ceil" ? r >= 0.5
                : f.nearest == "floor"           ? false
                : f.nearest == "ceil"            ? true
                                                 : r > 0.5;
      }
      c = {upper ? 0.0 : 1.0, upper ? 1.0 : 0.0};
    } else if (f.mode == "linear") {
      c = {1.0 - r, r};
    } else {
      const double a = cubic_a, t = 1.0 - r;
      c = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
           ((a + 2) * t - (a + 3)) * t * t + 1, ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a};
      base -= 1.0;
    }
    std::vector<int64_t> idx(c.size());
    for (size_t k = 0; k < c.size(); ++k) idx[k] = static_cast<int64_t>(base) + static_cast<int64_t>(k);
    if (exclude_outside) {
      double sum = 0.0;
      for (size_t k = 0; k < c.size(); ++k) {
        if (idx[k] < 0 || idx[k] >= in) c[k] = 0.0;
        sum += c[k];
      }
      for (double& v : c) v = sum != 0.0 ? v / sum : 0.0;
    }
    for (size_t k = 0; k < c.size(); ++k) {
      const int64_t i = std::clamp<int64_t>(idx[k], 0, in - 1);  // samples past the ends repeat the edge
      m[static_cast<size_t>(o * in + i)] += c[k];
    }
  }
  return std::vector<float>(m.begin(), m.end());
}

bool is_identity(const std::vector<float>& m, int64_t in, int64_t out) {
  if (in != out) return false;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) {
      if (m[static_cast<size_t>(o * in + i)] != (o == i ? 1.0f : 0.0f)) return false;
    }
  }
  return true;
}

// Matrices larger than this are refused rather than written into the graph.
constexpr int64_t kMaxMatrixElements = int64_t{1} << 22;

// The resize as two MatMuls (see the top of this file).
void lower_resize_by_matrices(const onnx::NodeProto& node, LoweringContext& ctx, const ResizeForm& f) {
  const Model& model = ctx.model();
  const std::vector<int64_t> in = ctx.info(node.input(0)).dims, out = ctx.info(node.output(0)).dims;
  const bool exclude_outside = attr_int(node, "exclude_outside", 0) != 0;
  const double a = attr_float(node, "cubic_coeff_a", -0.75f);
  std::string x = ctx.channel_last(node.input(0));
  const uint32_t n = static_cast<uint32_t>(in[0]), c = static_cast<uint32_t>(in[1]);
  const uint32_t h = static_cast<uint32_t>(in[2]), w = static_cast<uint32_t>(in[3]);
  const uint32_t oh = static_cast<uint32_t>(out[2]), ow = static_cast<uint32_t>(out[3]);
  const std::vector<float> mh = interpolation_matrix(f, in[2], out[2], scale_of(node, model, f, 2), exclude_outside, a);
  const std::vector<float> mw = interpolation_matrix(f, in[3], out[3], scale_of(node, model, f, 3), exclude_outside, a);
  const std::string y = ctx.output(node.output(0), Layout::kChannelLast);
  const Qnn_DataType_t dt = ctx.qtensor(x).dtype;
  const bool do_h = !is_identity(mh, in[2], out[2]), do_w = !is_identity(mw, in[3], out[3]);
  if (f.mode == "nearest") {
    // Each matrix row has one 1: its column is the sample to take.
    auto picks = [](const std::vector<float>& m, int64_t rows, int64_t cols) {
      std::vector<uint8_t> bytes(static_cast<size_t>(rows) * sizeof(int32_t));
      for (int64_t r = 0; r < rows; ++r) {
        const auto row = m.begin() + r * cols;
        const int32_t col = static_cast<int32_t>(std::max_element(row, row + cols) - row);
        std::memcpy(bytes.data() + r * sizeof(int32_t), &col, sizeof(int32_t));
      }
      return bytes;
    };
    std::string t = x;
    if (do_h) {
      const std::string idx = ctx.static_tensor(node.output(0) + "_rows", QNN_DATATYPE_INT_32, {oh}, picks(mh, oh, h));
      const std::string g = do_w ? ctx.native(node.output(0) + "_rows_picked", dt, {n, oh, w, c}) : y;
      ctx.add_node(QNN_OP_GATHER, {t, idx}, {g}, {param_i32(QNN_OP_GATHER_PARAM_AXIS, 1)});
      t = g;
    }
    if (do_w) {
      const std::string idx = ctx.static_tensor(node.output(0) + "_columns", QNN_DATATYPE_INT_32, {ow}, picks(mw, ow, w));
      ctx.add_node(QNN_OP_GATHER, {t, idx}, {y}, {param_i32(QNN_OP_GATHER_PARAM_AXIS, 2)});
    }
    if (!do_h && !do_w) ctx.add_node(QNN_OP_RESHAPE, {x}, {y});
    return;
  }
  if (do_h) {
    // [N, H, W*C] -> A_h [OH, H] x that -> [N, OH, W*C]
    const std::string a_h = ctx.static_f32(node.output(0) + "_rows", {oh, h}, mh);
    const std::string xr = ctx.reshape(x, {n, h, w * c});
    const std::string t = ctx.native(node.output(0) + "_rows_resized", dt, {n, oh, w * c});
    ctx.add_node(QNN_OP_MAT_MUL, {a_h, xr}, {t});
    x = do_w ? ctx.reshape(t, {n * oh, w, c}) : t;
  } else {
    x = ctx.reshape(x, {n * oh, w, c});
  }
  if (do_w) {
    // [N*OH, W, C] -> A_w [OW, W] x that -> [N*OH, OW, C]
    const std::string a_w = ctx.static_f32(node.output(0) + "_columns", {ow, w}, mw);
    const std::string t = ctx.native(node.output(0) + "_columns_resized", dt, {n * oh, ow, c});
    ctx.add_node(QNN_OP_MAT_MUL, {a_w, x}, {t});
    x = t;
  }
  ctx.add_node(QNN_OP_RESHAPE, {x}, {y});
}

// tf_crop_and_resize's roi: [start_0..start_3, end_0..end_3], normalized.
const Tensor* crop_roi(const onnx::NodeProto& node, const Model& model) {
  const std::string rn = input_name(node, 1);
  return rn.empty() ? nullptr : model.constant(rn);
}

std::string check_crop_and_resize(const onnx::NodeProto& node, const Model& model, const ResizeForm& f) {
  if (f.legacy) return "tf_crop_and_resize needs Resize-11 or later";
  if (f.mode == "cubic") return "tf_crop_and_resize with mode 'cubic' is not supported (QNN CropAndResize: bilinear, nearest)";
  if (f.mode == "nearest" && f.nearest != "round_prefer_ceil") {
    return "tf_crop_and_resize with nearest_mode '" + f.nearest +
           "' is not supported (QNN CropAndResize rounds halves up: round_prefer_ceil)";
  }
  const Tensor* roi = crop_roi(node, model);
  if (roi == nullptr || roi->count() != 8) return "tf_crop_and_resize needs a constant roi of 8 values";
  for (size_t axis : {size_t{0}, size_t{1}}) {
    if (roi->get(axis) != 0.0 || roi->get(4 + axis) != 1.0) {
      return "tf_crop_and_resize with a roi that crops N or C is not supported";
    }
  }
  return "";
}

// One CropAndResize box per image (see the top of this file).
void lower_crop_and_resize(const onnx::NodeProto& node, LoweringContext& ctx, const ResizeForm& f) {
  const Tensor* roi = crop_roi(node, ctx.model());
  const std::vector<int64_t> out = ctx.info(node.output(0)).dims;
  const uint32_t n = static_cast<uint32_t>(out[0]);
  std::vector<float> boxes;
  std::vector<int32_t> images;
  for (uint32_t i = 0; i < n; ++i) {
    for (size_t k : {size_t{2}, size_t{3}, size_t{6}, size_t{7}}) boxes.push_back(static_cast<float>(roi->get(k)));
    images.push_back(static_cast<int32_t>(i));
  }
  std::vector<uint8_t> image_bytes(images.size() * sizeof(int32_t));
  std::memcpy(image_bytes.data(), images.data(), image_bytes.size());
  const std::string b = ctx.static_f32(node.output(0) + "_boxes", {n, 4}, boxes);
  const std::string bi = ctx.static_tensor(node.output(0) + "_box_indices", QNN_DATATYPE_INT_32, {n},
                                           std::move(image_bytes));
  ctx.add_node(QNN_OP_CROP_AND_RESIZE, {ctx.channel_last(node.input(0)), b, bi},
               {ctx.output(node.output(0), Layout::kChannelLast)},
               {param_u32_tensor(QNN_OP_CROP_AND_RESIZE_PARAM_RESIZE_DIMS, {2},
                                 {static_cast<uint32_t>(out[2]), static_cast<uint32_t>(out[3])}),
                param_u32(QNN_OP_CROP_AND_RESIZE_PARAM_INTERPOLATION_MODE,
                          f.mode == "nearest" ? QNN_OP_CROP_AND_RESIZE_INTERPOLATION_MODE_NEAREST_NEIGHBOR
                                              : QNN_OP_CROP_AND_RESIZE_INTERPOLATION_MODE_BILINEAR),
                param_f32(QNN_OP_CROP_AND_RESIZE_PARAM_EXTRAPOLATION_VALUE,
                          attr_float(node, "extrapolation_value", 0.0f))});
}

std::string check_resize(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* in = model.info(node.input(0));
  const ValueInfo* out = model.info(node.output(0));
  if (in == nullptr || in->dims.size() != 4) return "only rank-4 (NCHW) inputs are supported";
  if (out == nullptr || !out->is_static()) return "output shape is not static";
  if (in->dims[0] != out->dims[0] || in->dims[1] != out->dims[1]) return "resizing N or C is not supported";
  const ResizeForm f = form_of(node, model);
  if (f.mode != "nearest" && f.mode != "linear" && f.mode != "cubic") return "mode '" + f.mode + "' is not supported";
  if (f.ctm == "tf_crop_and_resize") return check_crop_and_resize(node, model, f);
  const std::string sn = input_name(node, f.legacy ? 1 : 2);
  if (!sn.empty() && model.constant(sn) == nullptr) return "scales must be a constant";
  for (size_t axis = 2; axis < 4; ++axis) {
    AxisPlan plan;
    const std::string why = plan_axis(f, in->dims[axis], out->dims[axis], scale_of(node, model, f, axis),
                                      attr_int(node, "exclude_outside", 0) != 0, &plan);
    if (why.empty()) continue;
    // No QNN Resize form: the matrices, when the coordinate map is one of
    // ONNX's and they are of a sensible size.
    if (!known_ctm(f.ctm)) return "axis " + std::to_string(axis) + ": " + why;
    for (size_t k = 2; k < 4; ++k) {
      if (in->dims[k] * out->dims[k] > kMaxMatrixElements) {
        return "axis " + std::to_string(axis) + ": " + why + "; as an interpolation matrix it would have " +
               std::to_string(in->dims[k] * out->dims[k]) + " elements (limit " +
               std::to_string(kMaxMatrixElements) + ")";
      }
    }
  }
  return "";
}

void lower_resize(const onnx::NodeProto& node, LoweringContext& ctx) {
  const Model& model = ctx.model();
  const ResizeForm f = form_of(node, model);
  if (f.ctm == "tf_crop_and_resize") {
    lower_crop_and_resize(node, ctx, f);
    return;
  }
  const std::vector<int64_t> in = ctx.info(node.input(0)).dims, out = ctx.info(node.output(0)).dims;
  const bool exclude_outside = attr_int(node, "exclude_outside", 0) != 0;
  AxisPlan plans[2];
  for (size_t i = 0; i < 2; ++i) {
    const std::string why = plan_axis(f, in[2 + i], out[2 + i], scale_of(node, model, f, 2 + i), exclude_outside,
                                      &plans[i]);
    if (!why.empty()) {
      lower_resize_by_matrices(node, ctx, f);  // check_resize found that it fits
      return;
    }
  }
  const std::string ctm = f.ctm == "tf_half_pixel_for_nn" ? "asymmetric" : f.ctm;
  const uint32_t t = ctm == "pytorch_half_pixel" ? QNN_OP_RESIZE_TRANSFORMATION_MODE_PYTORCH_HALF_PIXEL
                     : ctm == "align_corners"    ? QNN_OP_RESIZE_TRANSFORMATION_MODE_ALIGN_CORNERS
                     : ctm == "asymmetric"       ? QNN_OP_RESIZE_TRANSFORMATION_MODE_ASYMMETRIC
                                                 : QNN_OP_RESIZE_TRANSFORMATION_MODE_HALF_PIXEL;
  const uint32_t interp = f.mode == "linear"  ? QNN_OP_RESIZE_INTERPOLATION_MODE_LINEAR
                          : f.mode == "cubic" ? QNN_OP_RESIZE_INTERPOLATION_MODE_CUBIC
                                              : QNN_OP_RESIZE_INTERPOLATION_MODE_NEAREST;
  const uint32_t nm = f.nearest == "round_prefer_ceil" ? QNN_OP_RESIZE_NEAREST_MODE_ROUND_PREFER_CEIL
                      : f.nearest == "floor"           ? QNN_OP_RESIZE_NEAREST_MODE_FLOOR
                      : f.nearest == "ceil"            ? QNN_OP_RESIZE_NEAREST_MODE_CEIL
                                                       : QNN_OP_RESIZE_NEAREST_MODE_ROUND_PREFER_FLOOR;
  const std::vector<QParam> params = {
      param_bool(QNN_OP_RESIZE_PARAM_EXCLUDE_OUTSIDE, exclude_outside),
      param_u32(QNN_OP_RESIZE_PARAM_TRANSFORMATION_MODE, t),
      param_u32(QNN_OP_RESIZE_PARAM_INTERPOLATION_MODE, interp),
      param_u32(QNN_OP_RESIZE_PARAM_NEAREST_MODE, nm),
      param_f32(QNN_OP_RESIZE_PARAM_CUBIC_COEFF, attr_float(node, "cubic_coeff_a", -0.75f))};
  std::string x = ctx.channel_last(node.input(0));
  const std::string y = ctx.output(node.output(0), Layout::kChannelLast);
  const bool padded = plans[0].pad_end != 0 || plans[1].pad_end != 0;
  const bool sliced = plans[0].resized != out[2] || plans[1].resized != out[3];
  if (!padded && !sliced) {
    ctx.add_node(QNN_OP_RESIZE, {x}, {y}, params);
    return;
  }
  const QTensor& xt = ctx.qtensor(x);
  const Qnn_DataType_t dt = xt.dtype;
  const uint32_t n = xt.dims[0], c = xt.dims[3];
  if (padded) {
    const std::string p = ctx.native(node.output(0) + "_edge_padded", dt,
                                     {n, static_cast<uint32_t>(in[2] + plans[0].pad_end),
                                      static_cast<uint32_t>(in[3] + plans[1].pad_end), c});
    ctx.add_node(QNN_OP_PAD, {x}, {p},
                 {param_u32(QNN_OP_PAD_PARAM_SCHEME, QNN_OP_PAD_SCHEME_EDGE),
                  param_u32_tensor(QNN_OP_PAD_PARAM_PAD_AMOUNT, {4, 2},
                                   {0, 0, 0, static_cast<uint32_t>(plans[0].pad_end), 0,
                                    static_cast<uint32_t>(plans[1].pad_end), 0, 0})});
    x = p;
  }
  const std::string r = ctx.native(node.output(0) + "_resized", dt,
                                   {n, static_cast<uint32_t>(plans[0].resized),
                                    static_cast<uint32_t>(plans[1].resized), c});
  ctx.add_node(QNN_OP_RESIZE, {x}, {r}, params);
  std::vector<int32_t> ranges = {0, static_cast<int32_t>(n), 1};
  for (size_t i = 0; i < 2; ++i) {
    const AxisPlan& p = plans[i];
    ranges.push_back(static_cast<int32_t>(p.start));
    ranges.push_back(static_cast<int32_t>(p.start + p.step * (out[2 + i] - 1) + 1));
    ranges.push_back(static_cast<int32_t>(p.step));
  }
  ranges.insert(ranges.end(), {0, static_cast<int32_t>(c), 1});
  ctx.add_node(QNN_OP_STRIDED_SLICE, {r}, {y}, {param_i32_tensor(QNN_OP_STRIDED_SLICE_PARAM_RANGES, {4, 3}, ranges)});
}

}  // namespace

std::vector<OpLowering> resize_lowerings() {
  return {
      {"Resize", check_resize, lower_resize},
      {"Upsample", check_resize, lower_resize},
  };
}

}  // namespace openhtp::onnx_import
