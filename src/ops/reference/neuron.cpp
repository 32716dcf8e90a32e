// Activation functions: the generic ElementWiseNeuron (`operation` ELU 0 ..
// TANH 8, with alpha/beta/min_value/max_value/threshold) and the standalone
// ops that are one of its cases: ReluMinMax, Sigmoid, Tanh, Gelu, HardSwish.
// Float in, float out, same shape; FLOAT_16 and fixed point go through the
// type adapter. Transcendental functions are evaluated in double and rounded
// once, so the reference is as close to the real function as float allows.
// ReluMinMax also clamps plain integer tensors natively (ONNX Clip on ints).
// Relu1, Relu6, Elu and ElementWiseSoftplus (activation_standalone.cpp) share
// these kernels through the two functions after the anonymous namespace.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

enum class NeuronOp : uint32_t {
  kElu = 0, kGelu, kHardSigmoid, kHardSwish, kRelu, kReluMinMax, kSigmoid, kSoftplus, kTanh,
};
constexpr uint32_t kNumNeuronOps = 9;
constexpr std::string_view kNeuronOpNames[kNumNeuronOps] = {
    "ELU", "GELU", "HARD_SIGMOID", "HARD_SWISH", "RELU", "RELU_MIN_MAX", "SIGMOID", "SOFTPLUS", "TANH",
};

struct NeuronParams {
  float alpha = 0.0f;
  float beta = 0.0f;
  float min_value = 0.0f;
  float max_value = 0.0f;
  float threshold = -1.0f;  // Softplus: negative disables the linear cut-over
};

// y[i] = fn(x[i]) over n floats.
template <typename Fn>
class MapKernel final : public OpKernel {
 public:
  MapKernel(size_t n, Fn fn) : n_(n), fn_(fn) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    for (size_t i = 0; i < n_; ++i) y[i] = fn_(x[i]);
  }

 private:
  size_t n_;
  Fn fn_;
};

template <typename Fn>
std::unique_ptr<OpKernel> make_map(size_t n, Fn fn) {
  return std::make_unique<MapKernel<Fn>>(n, fn);
}

// Comparisons rather than std::min/std::max so a NaN input stays NaN.
float clamp(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

float sigmoid(float x) { return static_cast<float>(1.0 / (1.0 + std::exp(-double{x}))); }
float gelu(float x) {
  const double v = x;
  return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
}
float hard_swish(float x) { return x * clamp(x + 3.0f, 0.0f, 6.0f) / 6.0f; }

std::unique_ptr<OpKernel> neuron_kernel(NeuronOp op, const NeuronParams& p, size_t n) {
  switch (op) {
    case NeuronOp::kElu:
      return make_map(n, [a = p.alpha](float x) {
        return x > 0.0f ? x : static_cast<float>(a * std::expm1(double{x}));
      });
    case NeuronOp::kGelu: return make_map(n, gelu);
    case NeuronOp::kHardSigmoid:
      return make_map(n, [a = p.alpha, b = p.beta](float x) { return clamp(a * x + b, 0.0f, 1.0f); });
    case NeuronOp::kHardSwish: return make_map(n, hard_swish);
    case NeuronOp::kRelu: return make_map(n, [](float x) { return x < 0.0f ? 0.0f : x; });
    case NeuronOp::kReluMinMax:
      return make_map(n, [lo = p.min_value, hi = p.max_value](float x) { return clamp(x, lo, hi); });
    case NeuronOp::kSigmoid: return make_map(n, sigmoid);
    case NeuronOp::kSoftplus:
      return make_map(n, [b = p.beta, t = p.threshold](float x) {
        const double bx = double{b} * x;
        if (t >= 0.0f && bx > t) return x;  // linear region, as in PyTorch's Softplus
        // log(1 + e^bx) written so that e^bx never overflows.
        return static_cast<float>((std::fmax(bx, 0.0) + std::log1p(std::exp(-std::fabs(bx)))) / b);
      });
    case NeuronOp::kTanh: return make_map(n, [](float x) { return std::tanh(x); });
  }
  return nullptr;
}

// The shape/type rules every activation shares: one float input, one float
// output of the same dims.
Status check_activation_io(const NodeDesc& node) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  return check_output_dims(node, 0, node.inputs[0].dims);
}

Status read_min_max(const NodeDesc& node, const ParamReader& params, NeuronParams* p) {
  if (Status s = params.f32_scalar("min_value", std::nullopt, &p->min_value); !s.ok()) return s;
  if (Status s = params.f32_scalar("max_value", std::nullopt, &p->max_value); !s.ok()) return s;
  if (p->min_value > p->max_value) {
    return invalid(node, "parameter 'min_value' (", p->min_value, ") exceeds 'max_value' (", p->max_value, ")");
  }
  return Status::Ok();
}

Status prepare_neuron(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_activation_io(node); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"operation", "alpha", "beta", "min_value", "max_value", "threshold"}); !s.ok())
    return s;
  uint32_t op_code = 0;
  if (Status s = params.u32_scalar("operation", std::nullopt, &op_code); !s.ok()) return s;
  if (op_code >= kNumNeuronOps) {
    return invalid(node, "parameter 'operation' is ", op_code,
                   ", not an ElementWiseNeuron operation (0 ELU .. 8 TANH)");
  }
  const auto op = static_cast<NeuronOp>(op_code);
  NeuronParams p;
  // alpha and beta mean different things per operation, hence their defaults.
  const float alpha_default = op == NeuronOp::kHardSigmoid ? 0.2f : 1.0f;
  const float beta_default = op == NeuronOp::kHardSigmoid ? 0.5f : 1.0f;
  if (Status s = params.f32_scalar("alpha", alpha_default, &p.alpha); !s.ok()) return s;
  if (Status s = params.f32_scalar("beta", beta_default, &p.beta); !s.ok()) return s;
  if (Status s = params.f32_scalar("threshold", -1.0f, &p.threshold); !s.ok()) return s;
  if (op == NeuronOp::kReluMinMax) {
    if (Status s = read_min_max(node, params, &p); !s.ok()) return s;
  }
  if (op == NeuronOp::kSoftplus && !(p.beta > 0.0f)) {
    return invalid(node, "parameter 'beta' is ", p.beta, ", expected > 0 for operation SOFTPLUS");
  }
  if (kernel) *kernel = neuron_kernel(op, p, node.inputs[0].num_elements());
  return Status::Ok();
}

// y[i] = clamp(x[i], lo, hi) on a plain integer type T.
template <typename T>
class IntegerClampKernel final : public OpKernel {
 public:
  IntegerClampKernel(size_t n, T lo, T hi) : n_(n), lo_(lo), hi_(hi) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const T* x = static_cast<const T*>(in[0]);
    T* y = static_cast<T*>(out[0]);
    for (size_t i = 0; i < n_; ++i) y[i] = x[i] < lo_ ? lo_ : (x[i] > hi_ ? hi_ : x[i]);
  }

 private:
  size_t n_;
  T lo_, hi_;
};

// The float bounds as T: the integers of T inside [min_value, max_value]
// (bounds rounded inward, then limited to T's range, so the importer's
// +-FLT_MAX "no bound" becomes T's own limits). Refused when that set is
// empty. (The bounds are float parameters, NaN already refused by the reader,
// so an int32 bound beyond 2^24 is as exact as the float it came in.)
template <typename T>
Status integer_clamp_kernel(const NodeDesc& node, const NeuronParams& p, std::unique_ptr<OpKernel>* kernel) {
  constexpr double kLo = std::numeric_limits<T>::min();
  constexpr double kHi = std::numeric_limits<T>::max();
  const double lo = std::clamp(std::ceil(double{p.min_value}), kLo, kHi);
  const double hi = std::clamp(std::floor(double{p.max_value}), kLo, kHi);
  if (lo > hi) {
    return unsupported(node, "no ", dtype::name(node.inputs[0].dtype), " value lies in [min_value, max_value] = [",
                       p.min_value, ", ", p.max_value, "]");
  }
  if (kernel) {
    *kernel = std::make_unique<IntegerClampKernel<T>>(node.inputs[0].num_elements(), static_cast<T>(lo),
                                                      static_cast<T>(hi));
  }
  return Status::Ok();
}

// ReluMinMax's tensor rules: one input and one output of the same dims,
// float or one plain integer type. Sets *int_type as common_integer_type does.
Status check_clamp_io(const NodeDesc& node, uint32_t* int_type) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  if (Status s = common_integer_type(node, 1, true, int_type); !s.ok()) return s;
  if (*int_type == 0) return check_activation_io(node);
  return check_output_dims(node, 0, node.inputs[0].dims);
}

// The clamp to [p.min_value, p.max_value] on the node's type.
Status clamp_kernel(const NodeDesc& node, uint32_t int_type, const NeuronParams& p,
                    std::unique_ptr<OpKernel>* kernel) {
  switch (int_type) {
    case dtype::kInt8: return integer_clamp_kernel<int8_t>(node, p, kernel);
    case dtype::kInt16: return integer_clamp_kernel<int16_t>(node, p, kernel);
    case dtype::kInt32: return integer_clamp_kernel<int32_t>(node, p, kernel);
    case dtype::kUint8: return integer_clamp_kernel<uint8_t>(node, p, kernel);
    case dtype::kUint16: return integer_clamp_kernel<uint16_t>(node, p, kernel);
    case dtype::kUint32: return integer_clamp_kernel<uint32_t>(node, p, kernel);
    default: break;
  }
  if (kernel) *kernel = neuron_kernel(NeuronOp::kReluMinMax, p, node.inputs[0].num_elements());
  return Status::Ok();
}

Status prepare_relu_min_max(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  uint32_t int_type = 0;
  if (Status s = check_clamp_io(node, &int_type); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"min_value", "max_value"}); !s.ok()) return s;
  NeuronParams p;
  if (Status s = read_min_max(node, params, &p); !s.ok()) return s;
  return clamp_kernel(node, int_type, p, kernel);
}

// Sigmoid, Tanh, Gelu, HardSwish: no parameters.
template <NeuronOp Op>
Status prepare_plain(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_activation_io(node); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  if (kernel) *kernel = neuron_kernel(Op, NeuronParams{}, node.inputs[0].num_elements());
  return Status::Ok();
}

}  // namespace

// Shared with the standalone activations of activation_standalone.cpp (which
// declares these two), so each activation's math lives here only.
// The float kernel of ElementWiseNeuron operation `operation` (< 9, ELU 0 ..
// TANH 8) with its parameters, over n elements.
std::unique_ptr<OpKernel> neuron_operation_kernel(uint32_t operation, float alpha, float beta, float threshold,
                                                  size_t n) {
  if (operation >= kNumNeuronOps) return nullptr;
  NeuronParams p;
  p.alpha = alpha;
  p.beta = beta;
  p.threshold = threshold;
  return neuron_kernel(static_cast<NeuronOp>(operation), p, n);
}

// ReluMinMax's rules and kernels with fixed bounds and no parameters
// (Relu1, Relu6): float through the type adapter, plain integers natively.
Status prepare_fixed_clamp(const NodeDesc& node, float lo, float hi, std::unique_ptr<OpKernel>* kernel) {
  uint32_t int_type = 0;
  if (Status s = check_clamp_io(node, &int_type); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  NeuronParams p;
  p.min_value = lo;
  p.max_value = hi;
  return clamp_kernel(node, int_type, p, kernel);
}

OpDef elementwise_neuron_def() {
  return {"ElementWiseNeuron", &guarded_prepare<prepare_neuron>, op_flags::kAdaptTypes};
}
OpDef relu_min_max_def() { return {"ReluMinMax", &guarded_prepare<prepare_relu_min_max>, op_flags::kAdaptTypes}; }
OpDef sigmoid_def() { return {"Sigmoid", &guarded_prepare<prepare_plain<NeuronOp::kSigmoid>>, op_flags::kAdaptTypes}; }
OpDef tanh_def() { return {"Tanh", &guarded_prepare<prepare_plain<NeuronOp::kTanh>>, op_flags::kAdaptTypes}; }
OpDef gelu_def() { return {"Gelu", &guarded_prepare<prepare_plain<NeuronOp::kGelu>>, op_flags::kAdaptTypes}; }
OpDef hard_swish_def() {
  return {"HardSwish", &guarded_prepare<prepare_plain<NeuronOp::kHardSwish>>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
