// Resize (opset 10+) and Upsample on rank-4 NCHW inputs, lowered to QNN
// Resize on channel-last activations.
#include <cmath>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

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

std::vector<OpLowering> resize_lowerings() {
  return {
      {"Resize", check_resize, lower_resize},
      {"Upsample", check_resize, lower_resize},
  };
}

}  // namespace openhtp::onnx_import
