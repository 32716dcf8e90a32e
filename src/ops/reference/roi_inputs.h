// What RoiAlign and RoiPooling take alike: in[0] feature map (FLOAT_32 after
// the type adapter), in[1] rois [num_rois, 4], in[2] batch_indices (INT_32
// or UINT_32), out[0], and the img_size_ratio parameter.
#pragma once

#include "ops/op.h"

namespace openhtp::ops::detail {

// Three inputs, one output, their data types; the first broken rule.
Status check_roi_tensors(const NodeDesc& node);

// Their shapes (after check_roi_tensors): in[0] and out[0] of rank 4, rois
// [num_rois, 4], batch_indices [num_rois], out[0] [num_rois, h, w, C of
// in[0]], and batch indices known at prepare in [0, batch). The first broken
// rule.
Status check_roi_shapes(const NodeDesc& node);

// img_size_ratio: a FLOAT_32 tensor [2] = (height_ratio, width_ratio), both
// finite and > 0 (image size / feature map size); mandatory.
Status read_img_size_ratio(const NodeDesc& node, float* height_ratio, float* width_ratio);

}  // namespace openhtp::ops::detail
