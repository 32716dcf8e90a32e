// Activations QNN names as ops of their own that are cases of
// ElementWiseNeuron or ReluMinMax (neuron.cpp), sharing their kernels:
//   Relu1  = ReluMinMax [-1, 1]        Relu6 = ReluMinMax [0, 6]
//   Elu    = ELU with `alpha`          ElementWiseSoftplus = SOFTPLUS with `beta`, `threshold`
// Float in, float out, same shape (FLOAT_16 and fixed point through the type
// adapter); Relu1/Relu6 also clamp plain integer tensors natively, as
// ReluMinMax does.
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

// neuron.cpp
std::unique_ptr<OpKernel> neuron_operation_kernel(uint32_t operation, float alpha, float beta, float threshold,
                                                  size_t n);
Status prepare_fixed_clamp(const NodeDesc& node, float lo, float hi, std::unique_ptr<OpKernel>* kernel);

namespace {

// ElementWiseNeuron's operation codes (QnnOpDef.h) for the ops below.
constexpr uint32_t kNeuronElu = 0;
constexpr uint32_t kNeuronSoftplus = 7;

// One float input, one float output of the same dims.
Status check_float_io(const NodeDesc& node) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  return check_output_dims(node, 0, node.inputs[0].dims);
}

Status prepare_relu1(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  return prepare_fixed_clamp(node, -1.0f, 1.0f, kernel);
}
Status prepare_relu6(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  return prepare_fixed_clamp(node, 0.0f, 6.0f, kernel);
}

Status prepare_elu(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_float_io(node); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"alpha"}); !s.ok()) return s;
  float alpha = 1.0f;  // ONNX Elu's default, as ElementWiseNeuron's ELU
  if (Status s = params.f32_scalar("alpha", 1.0f, &alpha); !s.ok()) return s;
  if (kernel) *kernel = neuron_operation_kernel(kNeuronElu, alpha, 1.0f, -1.0f, node.inputs[0].num_elements());
  return Status::Ok();
}

Status prepare_softplus(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_float_io(node); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"beta", "threshold"}); !s.ok()) return s;
  // ElementWiseNeuron's SOFTPLUS defaults: beta 1, threshold negative = no
  // linear cut-over (QNN's standalone op documents no others).
  float beta = 1.0f;
  float threshold = -1.0f;
  if (Status s = params.f32_scalar("beta", 1.0f, &beta); !s.ok()) return s;
  if (Status s = params.f32_scalar("threshold", -1.0f, &threshold); !s.ok()) return s;
  if (!(beta > 0.0f)) return invalid(node, "parameter 'beta' is ", beta, ", expected > 0");
  if (kernel) {
    *kernel = neuron_operation_kernel(kNeuronSoftplus, 1.0f, beta, threshold, node.inputs[0].num_elements());
  }
  return Status::Ok();
}

}  // namespace

OpDef relu1_def() { return {"Relu1", &guarded_prepare<prepare_relu1>, op_flags::kAdaptTypes}; }
OpDef relu6_def() { return {"Relu6", &guarded_prepare<prepare_relu6>, op_flags::kAdaptTypes}; }
OpDef elu_def() { return {"Elu", &guarded_prepare<prepare_elu>, op_flags::kAdaptTypes}; }
OpDef elementwise_softplus_def() {
  return {"ElementWiseSoftplus", &guarded_prepare<prepare_softplus>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
