// The detection family (see op_defs.h): ops on boxes and scores —
// non-max suppression, RoI pooling, box transforms. Listed after every other family so the earlier ops keep
// their places.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

// Float kernels (op_flags::kAdaptTypes); integer index tensors stay native.
OpDef non_max_suppression_def();
OpDef roi_pooling_def();
OpDef axis_aligned_bbox_transform_def();
OpDef multi_class_nms_def();
OpDef box_with_nms_limit_def();
OpDef bbox_transform_def();
OpDef generate_proposals_def();
OpDef heat_map_max_key_point_def();
OpDef detection_output_def();  // helper D

std::vector<OpDef> detection_group() {
  return {non_max_suppression_def(), roi_pooling_def(), axis_aligned_bbox_transform_def(), multi_class_nms_def(),
          box_with_nms_limit_def(), bbox_transform_def(), generate_proposals_def(), heat_map_max_key_point_def(),
          detection_output_def()};
}

}  // namespace openhtp::ops::detail
