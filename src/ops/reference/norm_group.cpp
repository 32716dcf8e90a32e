// The norm family (see op_defs.h): normalizations, reductions, LogSoftmax,
// Argmax/Argmin and TopK. The accessors are declared here, next to the one
// place that lists them; each is defined in its op's file.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

OpDef log_softmax_def();        // log_softmax.cpp
OpDef layer_norm_def();         // layer_norm.cpp
OpDef rms_norm_def();           // layer_norm.cpp
OpDef instance_norm_def();      // instance_norm.cpp
OpDef group_norm_def();         // group_norm.cpp
OpDef batchnorm_def();          // batchnorm.cpp
OpDef reduce_mean_def();        // reduce.cpp
OpDef reduce_sum_def();         // reduce.cpp
OpDef reduce_max_def();         // reduce.cpp
OpDef reduce_min_def();         // reduce.cpp
OpDef reduce_prod_def();        // reduce.cpp
OpDef reduce_sum_square_def();  // reduce.cpp
OpDef argmax_def();             // argmax.cpp
OpDef argmin_def();             // argmax.cpp
OpDef top_k_def();              // top_k.cpp
OpDef l2_norm_def();            // l2_norm.cpp
OpDef lrn_def();                // lrn.cpp
OpDef moments_def();            // moments.cpp
OpDef masked_softmax_def();     // masked_softmax.cpp

std::vector<OpDef> norm_group() {
  return {
      log_softmax_def(), layer_norm_def(),  rms_norm_def(),    instance_norm_def(),
      group_norm_def(),  batchnorm_def(),   reduce_mean_def(), reduce_sum_def(),
      reduce_max_def(),  reduce_min_def(),  reduce_prod_def(), reduce_sum_square_def(),
      argmax_def(),      argmin_def(),      top_k_def(),
      // Later additions.
      l2_norm_def(),     lrn_def(),         moments_def(),     masked_softmax_def(),
  };
}

}  // namespace openhtp::ops::detail
