// Relu: y = max(0, x), any shape.
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class ReluKernel final : public OpKernel {
 public:
  explicit ReluKernel(size_t n) : n_(n) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    // A comparison rather than std::max(0.0f, x): that would turn NaN into 0,
    // this passes NaN through.
    for (size_t i = 0; i < n_; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
  }

 private:
  size_t n_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, node.inputs[0].dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<ReluKernel>(node.inputs[0].num_elements());
  return Status::Ok();
}

}  // namespace

OpDef relu_def() { return {"Relu", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
