// Logit: y = log(z / (1 - z)), the inverse of Sigmoid, element-wise.
// With `eps` given, z = clamp(x, eps, 1 - eps) (PyTorch's torch.logit, which
// QNN's op mirrors); without it z = x, so x outside [0, 1] gives NaN and
// 0 / 1 give -inf / +inf. Float in, float out, same shape; FLOAT_16 and fixed
// point go through the type adapter.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class LogitKernel final : public OpKernel {
 public:
  // clamp == false: no eps given, x used as is.
  LogitKernel(size_t n, bool clamp, float eps) : n_(n), clamp_(clamp), lo_(eps), hi_(1.0 - double{eps}) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    for (size_t i = 0; i < n_; ++i) {
      double z = x[i];
      // Comparisons rather than std::clamp so a NaN input stays NaN.
      if (clamp_) z = z < lo_ ? lo_ : (z > hi_ ? hi_ : z);
      // In double: 1 - z and the quotient are then exact enough that only the
      // final rounding to float remains.
      y[i] = static_cast<float>(std::log(z / (1.0 - z)));
    }
  }

 private:
  size_t n_;
  bool clamp_;
  double lo_, hi_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"eps"}); !s.ok()) return s;
  const bool has_eps = node.find_param("eps") != nullptr;
  float eps = 0.0f;
  if (Status s = params.f32_scalar("eps", 0.0f, &eps); !s.ok()) return s;
  if (has_eps && !(eps >= 0.0f && eps <= 0.5f)) {
    return invalid(node, "parameter 'eps' is ", eps, ", expected in [0, 0.5] (inputs are clamped to [eps, 1 - eps])");
  }
  if (Status s = check_output_dims(node, 0, node.inputs[0].dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<LogitKernel>(node.inputs[0].num_elements(), has_eps, eps);
  return Status::Ok();
}

}  // namespace

OpDef logit_def() { return {"Logit", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
