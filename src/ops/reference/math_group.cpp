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
std::vector<OpDef> elementwise_binary_standalone_defs();  // ElementWiseEqual, ElementWisePower, ...
// elementwise_unary.cpp
OpDef elementwise_unary_def();
std::vector<OpDef> elementwise_unary_standalone_defs();  // ElementWiseAbs, ElementWiseLog, ...
// neuron.cpp
OpDef elementwise_neuron_def();
OpDef relu_min_max_def();
OpDef sigmoid_def();
OpDef tanh_def();
OpDef gelu_def();
OpDef hard_swish_def();
// activation_standalone.cpp (cases of ElementWiseNeuron / ReluMinMax)
OpDef relu1_def();
OpDef relu6_def();
OpDef elu_def();
OpDef elementwise_softplus_def();
// logit.cpp, is_inf_nan.cpp
OpDef logit_def();
OpDef is_inf_def();
OpDef is_nan_def();
// rotary_embedding.cpp
OpDef rotary_embedding_def();

std::vector<OpDef> math_group() {
  std::vector<OpDef> ops = {
      elementwise_subtract_def(), elementwise_divide_def(), elementwise_maximum_def(),
      elementwise_minimum_def(),  elementwise_binary_def(), elementwise_unary_def(),
      elementwise_neuron_def(),   relu_min_max_def(),       sigmoid_def(),
      tanh_def(),                 gelu_def(),               hard_swish_def(),
      prelu_def(),
  };
  // The standalone forms of ElementWiseBinary's and ElementWiseUnary's
  // operations, after the ops above so their places stay as they were.
  for (auto defs : {elementwise_binary_standalone_defs, elementwise_unary_standalone_defs}) {
    for (const OpDef& d : defs()) ops.push_back(d);
  }
  // Later additions, after everything above so its places stay as they were.
  for (const OpDef& d : {relu1_def(), relu6_def(), elu_def(), elementwise_softplus_def(), logit_def(), is_inf_def(),
                         is_nan_def(), rotary_embedding_def()}) {
    ops.push_back(d);
  }
  return ops;
}

}  // namespace openhtp::ops::detail
