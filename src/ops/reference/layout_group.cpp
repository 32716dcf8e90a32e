// The layout family (see op_defs.h): conv/pool variants, data movement,
// resize and type conversion. The accessors are declared here rather than in
// op_defs.h so this family is added in one place.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

// Float kernels (op_flags::kAdaptTypes).
OpDef depthwise_conv2d_def();
OpDef transpose_conv2d_def();
OpDef pool_avg2d_def();
OpDef transpose_conv3d_def();
OpDef pool_avg3d_def();
OpDef resize_def();
OpDef resize_bilinear_def();
OpDef resize_nearest_neighbor_def();
// Float through the type adapter, or one plain integer type compared
// natively (as PoolMax2d in core_group).
OpDef pool_max3d_def();
// Type-generic data movement (data_movement.cpp holds their shared rules;
// Reshape is in core_group).
OpDef transpose_def();
OpDef concat_def();
OpDef split_def();
OpDef strided_slice_def();
OpDef gather_def();
OpDef pad_def();
// Type conversion.
OpDef quantize_def();
OpDef dequantize_def();
OpDef convert_def();
OpDef cast_def();
// 1-D convolutions (as their 2-D ops with H = 1), Conv3d, L2Pool2d,
// GridSample, CropAndResize, RoiAlign: float kernels (op_flags::kAdaptTypes;
// the box indices pass the adapter as integers).
OpDef conv1d_def();
OpDef depthwise_conv1d_def();
OpDef transpose_conv1d_def();
OpDef conv3d_def();
OpDef l2_pool2d_def();
OpDef grid_sample_def();
OpDef crop_and_resize_def();
OpDef roi_align_def();
// Type-generic: moves channels.
OpDef argb_to_rgb_def();

std::vector<OpDef> layout_group() {
  return {
      depthwise_conv2d_def(), transpose_conv2d_def(), pool_avg2d_def(), resize_def(),
      resize_bilinear_def(),  resize_nearest_neighbor_def(),
      transpose_conv3d_def(), pool_avg3d_def(),       pool_max3d_def(),
      transpose_def(),        concat_def(),           split_def(),      strided_slice_def(),
      gather_def(),           pad_def(),
      quantize_def(),         dequantize_def(),       convert_def(),    cast_def(),
      conv1d_def(),           depthwise_conv1d_def(), transpose_conv1d_def(), conv3d_def(),
      l2_pool2d_def(),        grid_sample_def(),      crop_and_resize_def(),  roi_align_def(),
      argb_to_rgb_def(),
  };
}

}  // namespace openhtp::ops::detail
