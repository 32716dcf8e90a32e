// The math family (see op_defs.h): element-wise binary, unary and neuron ops
// and the standalone activations.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

// elementwise.cpp (ElementWiseAdd/Multiply are core_group's, in op_defs.h)
OpDef elementwise_subtract_def();
OpDef elementwise_divide_def();
OpDef elementwise_maximum_def();
OpDef elementwise_minimum_def();
OpDef elementwise_binary_def();
OpDef prelu_def();
// elementwise_unary.cpp
OpDef elementwise_unary_def();
// neuron.cpp
OpDef elementwise_neuron_def();
OpDef relu_min_max_def();
OpDef sigmoid_def();
OpDef tanh_def();
OpDef gelu_def();
OpDef hard_swish_def();

std::vector<OpDef> math_group() {
  return {
      elementwise_subtract_def(), elementwise_divide_def(), elementwise_maximum_def(),
      elementwise_minimum_def(),  elementwise_binary_def(), elementwise_unary_def(),
      elementwise_neuron_def(),   relu_min_max_def(),       sigmoid_def(),
      tanh_def(),                 gelu_def(),               hard_swish_def(),
      prelu_def(),
  };
}

}  // namespace openhtp::ops::detail
