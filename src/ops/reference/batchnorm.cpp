// Batchnorm at inference: a per-channel affine map on a channel-last tensor,
//   y = x * weights[c] + biases[c]    (c = index along the last dim)
// The converter folds mean, variance, epsilon and the learned scale/shift
// into weights and biases, so there are no statistics and no parameters.
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

class BatchnormKernel final : public OpKernel {
 public:
  BatchnormKernel(size_t positions, size_t channels, bool has_bias)
      : positions_(positions), channels_(channels), has_bias_(has_bias) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = static_cast<const float*>(in[1]);
    const float* b = has_bias_ ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    for (size_t p = 0; p < positions_; ++p, x += channels_, y += channels_) {
      for (size_t c = 0; c < channels_; ++c) y[c] = b ? x[c] * w[c] + b[c] : x[c] * w[c];
    }
  }

 private:
  size_t positions_, channels_;
  bool has_bias_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"", "weights", "biases"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  if (Status s = check_per_channel_inputs(node, kRoles); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    const size_t channels = x.dims.back();
    *kernel = std::make_unique<BatchnormKernel>(x.num_elements() / channels, channels, has_input(node, 2));
  }
  return Status::Ok();
}

}  // namespace

OpDef batchnorm_def() { return {"Batchnorm", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
