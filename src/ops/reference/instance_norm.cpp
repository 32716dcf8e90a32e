// InstanceNorm on a channel-last tensor [N, spatial..., C]:
//   y = normalize(x) * gamma[c] + beta[c]
// where normalize() uses statistics over one `region` of each batch item:
//   ACROSS_SPATIAL (0): per (n, c), over the spatial positions;
//   ACROSS_CHANNEL (1): per (n, spatial position), over the channels;
//   ACROSS_ALL     (2): per n, over spatial positions and channels.
// and `mode` picks the statistics:
//   MU_SIGMA (0): (x - mean) / sqrt(var + epsilon)
//   RMS      (1): x / sqrt(mean(x^2) + epsilon)
// With normalize_variance = 0 the division is dropped: MU_SIGMA only
// subtracts the mean and RMS leaves x as it is (our reading of the flag: it
// switches off the variance/RMS scaling, nothing else).
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

enum Mode : uint32_t { kMuSigma = 0, kRms = 1 };
enum Region : uint32_t { kAcrossSpatial = 0, kAcrossChannel = 1, kAcrossAll = 2 };

struct Config {
  size_t batch = 0, spatial = 0, channels = 0;
  float epsilon = 0.0f;
  uint32_t mode = kMuSigma;
  uint32_t region = kAcrossSpatial;
  bool normalize_variance = true;
  bool has_beta = false;
};

class InstanceNormKernel final : public OpKernel {
 public:
  explicit InstanceNormKernel(const Config& cfg) : cfg_(cfg) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* gamma = static_cast<const float*>(in[1]);
    const float* beta = cfg_.has_beta ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t S = cfg_.spatial, C = cfg_.channels;
    for (size_t n = 0; n < cfg_.batch; ++n) {
      const size_t item = n * S * C;
      // Each region is a strided run of elements of this batch item.
      switch (cfg_.region) {
        case kAcrossSpatial:
          for (size_t c = 0; c < C; ++c) normalize(x, y, gamma, beta, item + c, S, C);
          break;
        case kAcrossChannel:
          for (size_t s = 0; s < S; ++s) normalize(x, y, gamma, beta, item + s * C, C, 1);
          break;
        default:
          normalize(x, y, gamma, beta, item, S * C, 1);
          break;
      }
    }
  }

 private:
  // Normalizes elements start + k*stride, k < count; the channel of an
  // element is its flat index mod C.
  void normalize(const float* x, float* y, const float* gamma, const float* beta, size_t start,
                 size_t count, size_t stride) const {
    const double n = static_cast<double>(count);
    double center = 0.0;
    if (cfg_.mode == kMuSigma) {
      double sum = 0.0;
      for (size_t k = 0; k < count; ++k) sum += x[start + k * stride];
      center = sum / n;
    }
    double inv = 1.0;
    if (cfg_.normalize_variance) {
      double sq = 0.0;
      for (size_t k = 0; k < count; ++k) {
        const double d = x[start + k * stride] - center;
        sq += d * d;
      }
      inv = 1.0 / std::sqrt(sq / n + cfg_.epsilon);
    }
    for (size_t k = 0; k < count; ++k) {
      const size_t i = start + k * stride;
      const size_t c = i % cfg_.channels;
      double v = (x[i] - center) * inv * gamma[c];
      if (beta) v += beta[c];
      y[i] = static_cast<float>(v);
    }
  }

  Config cfg_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"", "gamma", "beta"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"epsilon", "mode", "normalize_variance", "region"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  // Rank > 2: batch, at least one spatial dim, channel.
  if (Status s = check_rank(node, x, in_label(0, ""), 3, kMaxRank, StatusCode::kInvalidArgument); !s.ok())
    return s;
  Config cfg;
  if (Status s = params.f32_scalar("epsilon", 1e-12f, &cfg.epsilon); !s.ok()) return s;
  if (cfg.epsilon < 0.0f) return invalid(node, "parameter 'epsilon' is ", cfg.epsilon, ", expected >= 0");
  if (Status s = params.u32_scalar("mode", kMuSigma, &cfg.mode); !s.ok()) return s;
  if (cfg.mode > kRms) return invalid(node, "parameter 'mode' is ", cfg.mode, ", expected 0 (MU_SIGMA) or 1 (RMS)");
  if (Status s = params.bool_scalar("normalize_variance", true, &cfg.normalize_variance); !s.ok()) return s;
  if (Status s = params.u32_scalar("region", kAcrossSpatial, &cfg.region); !s.ok()) return s;
  if (cfg.region > kAcrossAll) {
    return invalid(node, "parameter 'region' is ", cfg.region,
                   ", expected 0 (ACROSS_SPATIAL), 1 (ACROSS_CHANNEL) or 2 (ACROSS_ALL)");
  }
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  if (Status s = check_per_channel_inputs(node, kRoles); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    cfg.batch = x.dims[0];
    cfg.spatial = product(x.dims, 1, rank - 1);
    cfg.channels = x.dims.back();
    cfg.has_beta = has_input(node, 2);
    *kernel = std::make_unique<InstanceNormKernel>(cfg);
  }
  return Status::Ok();
}

}  // namespace

OpDef instance_norm_def() { return {"InstanceNorm", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
