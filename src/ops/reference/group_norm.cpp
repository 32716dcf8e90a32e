// GroupNorm on a channel-last tensor [N, spatial..., C]: the C channels are
// split into `group` groups of C/group consecutive channels; each (n, group)
// is normalized with its own mean and population variance over all its
// spatial positions and channels, then scaled and shifted per channel:
//   y = (x - mean) / sqrt(var + epsilon) * gamma[c] + beta[c]
// gamma and beta are optional ([C]; defaults 1 and 0).
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

class GroupNormKernel final : public OpKernel {
 public:
  GroupNormKernel(size_t batch, size_t spatial, size_t channels, size_t groups, float epsilon,
                  bool has_gamma, bool has_beta)
      : batch_(batch), spatial_(spatial), channels_(channels), groups_(groups), epsilon_(epsilon),
        has_gamma_(has_gamma), has_beta_(has_beta) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* gamma = has_gamma_ ? static_cast<const float*>(in[1]) : nullptr;
    const float* beta = has_beta_ ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t C = channels_, per_group = channels_ / groups_;
    const double n = static_cast<double>(spatial_ * per_group);
    for (size_t b = 0; b < batch_; ++b) {
      const size_t item = b * spatial_ * C;
      for (size_t g = 0; g < groups_; ++g) {
        const size_t c0 = g * per_group;
        // A group is per_group consecutive channels at every spatial position.
        double sum = 0.0;
        for (size_t s = 0; s < spatial_; ++s) {
          for (size_t c = c0; c < c0 + per_group; ++c) sum += x[item + s * C + c];
        }
        const double mean = sum / n;
        double sq = 0.0;
        for (size_t s = 0; s < spatial_; ++s) {
          for (size_t c = c0; c < c0 + per_group; ++c) {
            const double d = x[item + s * C + c] - mean;
            sq += d * d;
          }
        }
        const double inv = 1.0 / std::sqrt(sq / n + epsilon_);
        for (size_t s = 0; s < spatial_; ++s) {
          for (size_t c = c0; c < c0 + per_group; ++c) {
            const size_t i = item + s * C + c;
            double v = (x[i] - mean) * inv;
            if (gamma) v *= gamma[c];
            if (beta) v += beta[c];
            y[i] = static_cast<float>(v);
          }
        }
      }
    }
  }

 private:
  size_t batch_, spatial_, channels_, groups_;
  double epsilon_;
  bool has_gamma_, has_beta_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"", "gamma", "beta"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"epsilon", "group"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  // Batch first, channel last.
  if (Status s = check_rank(node, x, in_label(0, ""), 2, kMaxRank, StatusCode::kInvalidArgument); !s.ok())
    return s;
  float epsilon = 0.0f;
  if (Status s = params.f32_scalar("epsilon", std::nullopt, &epsilon); !s.ok()) return s;
  if (epsilon < 0.0f) return invalid(node, "parameter 'epsilon' is ", epsilon, ", expected >= 0");
  uint32_t group = 0;
  if (Status s = params.u32_scalar("group", std::nullopt, &group); !s.ok()) return s;
  const uint32_t channels = x.dims.back();
  if (group == 0 || channels % group != 0) {
    return invalid(node, "parameter 'group' is ", group, ", expected >= 1 and dividing the channel count ",
                   channels);
  }
  if (Status s = check_per_channel_inputs(node, kRoles); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    const size_t rank = x.dims.size();
    *kernel = std::make_unique<GroupNormKernel>(x.dims[0], product(x.dims, 1, rank - 1), channels, group,
                                                epsilon, has_input(node, 1), has_input(node, 2));
  }
  return Status::Ok();
}

}  // namespace

OpDef group_norm_def() { return {"GroupNorm", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
