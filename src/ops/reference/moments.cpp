// Moments: the mean (out[0]) and the population variance (out[1]) of the
// input over `axes` (u32[M], mandatory), as TensorFlow's tf.nn.moments.
// Both outputs have the reduced dims of ReduceMean: with `keep_dims` the
// reduced axes stay as 1s, without (the default) they are dropped, and a
// reduction over every axis gives [1]. Float in, float out; FLOAT_16 and
// fixed point go through the type adapter.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/op_defs.h"
#include "ops/reference/reduction_axes.h"

namespace openhtp::ops::detail {
namespace {

class MomentsKernel final : public OpKernel {
 public:
  explicit MomentsKernel(ReductionWalk walk)
      : walk_(std::move(walk)), mean_(walk_.num_out()), sq_(walk_.num_out()) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* mean = static_cast<float*>(out[0]);
    float* var = static_cast<float*>(out[1]);
    // In double, two passes (the mean first, then squared deviations from
    // it): no cancellation when |mean| >> standard deviation.
    const double n = static_cast<double>(walk_.reduced_count());
    std::fill(mean_.begin(), mean_.end(), 0.0);
    std::fill(sq_.begin(), sq_.end(), 0.0);
    walk_.for_each([&](size_t e, size_t o) { mean_[o] += x[e]; });
    for (double& m : mean_) m /= n;
    walk_.for_each([&](size_t e, size_t o) { sq_[o] += (x[e] - mean_[o]) * (x[e] - mean_[o]); });
    for (size_t o = 0; o < mean_.size(); ++o) {
      mean[o] = static_cast<float>(mean_[o]);
      var[o] = static_cast<float>(sq_[o] / n);
    }
  }

 private:
  ReductionWalk walk_;
  std::vector<double> mean_, sq_;  // per output position; sized at prepare
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  ReductionWalk walk;
  if (Status s = plan_axes_reduction(node, 2, &walk); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<MomentsKernel>(std::move(walk));
  return Status::Ok();
}

}  // namespace

OpDef moments_def() { return {"Moments", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
