// The proposal family (see op_defs.h): the second set of detection and
// region-proposal ops — CombinedNms (TensorFlow's combined NMS, sharing
// nms_core.h with MultiClassNms), Caffe2's CollectRpnProposals and
// DistributeFpnProposals — and two image-feature ops, Correlation1D and
// ExtractGlimpse. Listed after misc so the earlier ops keep their places.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

// Float kernels (op_flags::kAdaptTypes); integer index outputs stay native.
OpDef combined_nms_def();              // combined_nms.cpp
OpDef collect_rpn_proposals_def();     // collect_rpn_proposals.cpp
OpDef distribute_fpn_proposals_def();  // distribute_fpn_proposals.cpp
OpDef correlation_1d_def();            // correlation_1d.cpp
OpDef extract_glimpse_def();           // extract_glimpse.cpp

std::vector<OpDef> proposal_group() {
  return {combined_nms_def(), collect_rpn_proposals_def(), distribute_fpn_proposals_def(), correlation_1d_def(),
          extract_glimpse_def()};
}

}  // namespace openhtp::ops::detail
