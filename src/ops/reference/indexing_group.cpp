// The indexing family (see op_defs.h): ops that move elements by index or
// change a shape's form — gather/scatter variants, tile, depth/space
// rearrangements, select and the like. Listed after every other family so
// the earlier ops keep their places. The accessors are declared here rather
// than in op_defs.h so this family is added in one place.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

// Type-generic selection and data movement (data_movement.cpp's rules; the
// fixed rearrangements share indexing_util.h's move table).
OpDef elementwise_select_def();
OpDef tile_def();
OpDef depth_to_space_def();
OpDef space_to_depth_def();
OpDef channel_shuffle_def();
OpDef expand_dims_def();
OpDef squeeze_def();
OpDef pack_def();
OpDef unpack_def();
OpDef gather_elements_def();
OpDef gather_nd_def();
OpDef space_to_batch_def();
OpDef batch_to_space_def();
OpDef batch_permutation_def();
// Arithmetic on indexed elements: FLOAT_32 through the type adapter
// (op_flags::kAdaptTypes), or plain integer types natively.
OpDef scatter_elements_def();
OpDef scatter_nd_def();
OpDef one_hot_def();
OpDef cumulative_sum_def();

std::vector<OpDef> indexing_group() {
  return {
      elementwise_select_def(), tile_def(),    depth_to_space_def(), space_to_depth_def(), channel_shuffle_def(),
      expand_dims_def(),        squeeze_def(), pack_def(),           unpack_def(),
      gather_elements_def(),    gather_nd_def(), scatter_elements_def(), scatter_nd_def(), one_hot_def(),
      cumulative_sum_def(),     space_to_batch_def(), batch_to_space_def(), batch_permutation_def(),
  };
}

}  // namespace openhtp::ops::detail
