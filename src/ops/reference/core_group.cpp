// The core family: the ops openhtp started with.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

std::vector<OpDef> core_group() {
  return {
      elementwise_add_def(), elementwise_multiply_def(), relu_def(),   fully_connected_def(),
      matmul_def(),          conv2d_def(),               pool_max2d_def(), reshape_def(),
      softmax_def(),
  };
}

}  // namespace openhtp::ops::detail
