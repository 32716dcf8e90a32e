// Layout-sensitive image ops onto QNN's NHWC ops (through the layout pass,
// like Conv: the activation is taken channel-last and the output is
// written channel-last, so chains stay NHWC):
//
//   DepthToSpace(x) NCHW  -> DepthToSpace NHWC, block_size [b, b], mode DCR/CRD
//                            (same channel order d = (i*b + j)*C' + c / c*b*b + i*b + j)
//   SpaceToDepth(x) NCHW  -> SpaceToDepth NHWC, block_size [b, b], DCR (ONNX's only order)
//   LRN(x) NCHW           -> Lrn ACROSS_CHANNEL on the channel (last) axis:
//                            radius = (size-1)/2 (odd size only: ONNX's window is
//                            asymmetric for even sizes), alpha = ONNX alpha / size
//                            (ONNX divides by the window, QNN/NNAPI do not), beta, bias
//   GridSample(x, grid)   -> GridSample(x NHWC, grid [N,Ho,Wo,2] as is), mode
//                            bilinear/nearest, padding_mode zeros/border/reflection,
//                            align_corners (bicubic refused)
//   RoiAlign(x, rois, bi) -> RoiAlign(x NHWC, rois, batch_indices), avg mode only;
//                            img_size_ratio = 1/spatial_scale (both axes),
//                            num_samples = sampling_ratio (0 = adaptive, as ONNX),
//                            aligned = coordinate_transformation_mode half_pixel
#include <cstring>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::string check_rank4(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->dims.size() != 4) return "input must be 4-D NCHW (QNN's op is NHWC rank 4)";
  return "";
}

void lower_depth_space(const onnx::NodeProto& node, LoweringContext& ctx) {
  const uint32_t b = static_cast<uint32_t>(attr_int(node, "blocksize", 1));
  const bool d2s = node.op_type() == "DepthToSpace";
  const uint32_t mode = d2s && attr_string(node, "mode", "DCR") == "CRD" ? QNN_OP_DEPTH_TO_SPACE_MODE_CRD
                                                                           : QNN_OP_DEPTH_TO_SPACE_MODE_DCR;
  const std::string x = ctx.channel_last(node.input(0));
  ctx.add_node(d2s ? QNN_OP_DEPTH_TO_SPACE : QNN_OP_SPACE_TO_DEPTH, {x},
               {ctx.output(node.output(0), Layout::kChannelLast)},
               {param_u32_tensor(d2s ? QNN_OP_DEPTH_TO_SPACE_PARAM_BLOCK_SIZE : QNN_OP_SPACE_TO_DEPTH_PARAM_BLOCK_SIZE,
                                 {2}, {b, b}),
                param_u32(d2s ? QNN_OP_DEPTH_TO_SPACE_PARAM_MODE : QNN_OP_SPACE_TO_DEPTH_PARAM_MODE, mode)});
}

std::string check_depth_space(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_rank4(node, model); !why.empty()) return why;
  const std::string mode = attr_string(node, "mode", "DCR");
  if (mode != "DCR" && mode != "CRD") return "mode '" + mode + "' is not supported";
  return "";
}

std::string check_lrn(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->dims.size() < 3) return "input must have rank >= 3 (N, C, spatial...)";
  const int64_t size = attr_int(node, "size", 0);
  if (size < 1 || size % 2 == 0) {
    return "size " + std::to_string(size) + ": only odd sizes (a symmetric window) map onto QNN Lrn's radius";
  }
  return "";
}

void lower_lrn(const onnx::NodeProto& node, LoweringContext& ctx) {
  const int64_t size = attr_int(node, "size", 1);
  const float alpha = attr_float(node, "alpha", 1e-4f), beta = attr_float(node, "beta", 0.75f),
              bias = attr_float(node, "bias", 1.0f);
  const std::string x = ctx.channel_last(node.input(0));
  ctx.add_node(QNN_OP_LRN, {x}, {ctx.output(node.output(0), Layout::kChannelLast)},
               {param_f32(QNN_OP_LRN_PARAM_ALPHA, static_cast<float>(alpha / static_cast<double>(size))),
                param_f32(QNN_OP_LRN_PARAM_BETA, beta), param_f32(QNN_OP_LRN_PARAM_BIAS, bias),
                param_u32(QNN_OP_LRN_PARAM_RADIUS, static_cast<uint32_t>((size - 1) / 2)),
                param_u32(QNN_OP_LRN_PARAM_REGION, QNN_OP_LRN_REGION_ACROSS_CHANNEL)});
}

std::string check_grid_sample(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_rank4(node, model); !why.empty()) return why;
  const std::string mode = attr_string(node, "mode", "bilinear");
  if (mode != "bilinear" && mode != "linear" && mode != "nearest") {
    return "mode '" + mode + "' is not supported (QNN GridSample: bilinear, nearest)";
  }
  const std::string pad = attr_string(node, "padding_mode", "zeros");
  if (pad != "zeros" && pad != "border" && pad != "reflection") return "padding_mode '" + pad + "' is not supported";
  return "";
}

void lower_grid_sample(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string mode = attr_string(node, "mode", "bilinear");
  const std::string pad = attr_string(node, "padding_mode", "zeros");
  const uint32_t qpad = pad == "border"       ? QNN_OP_GRID_SAMPLE_PADDING_MODE_BORDER
                        : pad == "reflection" ? QNN_OP_GRID_SAMPLE_PADDING_MODE_REFLECTION
                                              : QNN_OP_GRID_SAMPLE_PADDING_MODE_ZEROS;
  const std::string x = ctx.channel_last(node.input(0));
  const std::string grid = ctx.as_is(node.input(1));  // [N, Ho, Wo, 2] in ONNX already
  ctx.add_node(QNN_OP_GRID_SAMPLE, {x, grid}, {ctx.output(node.output(0), Layout::kChannelLast)},
               {param_bool(QNN_OP_GRID_SAMPLE_PARAM_ALIGN_CORNERS, attr_int(node, "align_corners", 0) != 0),
                param_u32(QNN_OP_GRID_SAMPLE_PARAM_MODE,
                          mode == "nearest" ? QNN_OP_GRID_SAMPLE_MODE_NEAREST : QNN_OP_GRID_SAMPLE_MODE_BILINEAR),
                param_u32(QNN_OP_GRID_SAMPLE_PARAM_PADDING_MODE, qpad)});
}

std::string check_roi_align(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_rank4(node, model); !why.empty()) return why;
  if (attr_string(node, "mode", "avg") != "avg") return "mode 'max' is not supported (QNN RoiAlign averages)";
  if (!(attr_float(node, "spatial_scale", 1.0f) > 0.0f)) return "spatial_scale must be > 0";
  return "";
}

void lower_roi_align(const onnx::NodeProto& node, LoweringContext& ctx) {
  const float ratio = 1.0f / attr_float(node, "spatial_scale", 1.0f);
  const int32_t samples = static_cast<int32_t>(attr_int(node, "sampling_ratio", 0));
  // Opset 16 added coordinate_transformation_mode (default half_pixel);
  // before it, ONNX RoiAlign had no half-pixel shift (output_half_pixel).
  const std::string ctm =
      attr_string(node, "coordinate_transformation_mode", ctx.model().opset >= 16 ? "half_pixel" : "output_half_pixel");
  QParam ratios;
  ratios.name = QNN_OP_ROI_ALIGN_PARAM_IMG_SIZE_RATIO;
  ratios.is_tensor = true;
  ratios.dtype = QNN_DATATYPE_FLOAT_32;
  ratios.dims = {2};
  ratios.data.resize(8);
  std::memcpy(ratios.data.data(), &ratio, 4);
  std::memcpy(ratios.data.data() + 4, &ratio, 4);
  const std::string x = ctx.channel_last(node.input(0));
  ctx.add_node(QNN_OP_ROI_ALIGN, {x, ctx.as_is(node.input(1)), ctx.as_is(node.input(2))},
               {ctx.output(node.output(0), Layout::kChannelLast)},
               {ratios, param_i32(QNN_OP_ROI_ALIGN_PARAM_NUM_SAMPLES_Y, samples),
                param_i32(QNN_OP_ROI_ALIGN_PARAM_NUM_SAMPLES_X, samples),
                param_bool(QNN_OP_ROI_ALIGN_PARAM_ALIGNED, ctm == "half_pixel"),
                param_bool(QNN_OP_ROI_ALIGN_PARAM_ALLOW_INVALID_ROI, true)});
}

}  // namespace

std::vector<OpLowering> vision_lowerings() {
  return {
      {"DepthToSpace", check_depth_space, lower_depth_space},
      {"SpaceToDepth", check_depth_space, lower_depth_space},
      {"LRN", check_lrn, lower_lrn},
      {"GridSample", check_grid_sample, lower_grid_sample},
      {"RoiAlign", check_roi_align, lower_roi_align},
  };
}

}  // namespace openhtp::onnx_import
