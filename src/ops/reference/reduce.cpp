// ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceSumSquare
// over any set of `axes`.
// Output dims: with keep_dims the reduced axes stay as 1s; without, they are
// dropped, and a reduction over every axis gives [1] (rank max(1, N - M)).
// Either way the output elements are in the row-major order of the kept axes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/op_defs.h"
#include "ops/reference/reduction_axes.h"

namespace openhtp::ops::detail {
namespace {

enum class Reduction { kMean, kSum, kMax, kMin, kProd, kSumSquare };

// One pass over the input in row-major order; each element is folded into
// the accumulator of its output position (ReductionWalk).
class ReduceKernel final : public OpKernel {
 public:
  ReduceKernel(Reduction op, ReductionWalk walk) : op_(op), walk_(std::move(walk)), acc_(walk_.num_out()) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    // Sums and products in double: the reference should not depend on the
    // order of accumulation. Max/min start from NaN so fmax/fmin take the
    // first element (and skip NaN inputs, as fmax does).
    std::fill(acc_.begin(), acc_.end(), initial_value(op_));
    walk_.for_each([&](size_t e, size_t o) {
      const double v = x[e];
      switch (op_) {
        case Reduction::kMean:
        case Reduction::kSum: acc_[o] += v; break;
        case Reduction::kMax: acc_[o] = std::fmax(acc_[o], v); break;
        case Reduction::kMin: acc_[o] = std::fmin(acc_[o], v); break;
        case Reduction::kProd: acc_[o] *= v; break;
        case Reduction::kSumSquare: acc_[o] += v * v; break;
      }
    });
    const double scale = op_ == Reduction::kMean ? 1.0 / static_cast<double>(walk_.reduced_count()) : 1.0;
    for (size_t i = 0; i < acc_.size(); ++i) y[i] = static_cast<float>(acc_[i] * scale);
  }

 private:
  // The identity of each fold (NaN for max/min: see run()).
  static double initial_value(Reduction op) {
    switch (op) {
      case Reduction::kProd: return 1.0;
      case Reduction::kMax:
      case Reduction::kMin: return std::numeric_limits<double>::quiet_NaN();
      default: return 0.0;
    }
  }

  Reduction op_;
  ReductionWalk walk_;
  std::vector<double> acc_;  // sized at prepare
};

template <Reduction R>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  ReductionWalk walk;
  if (Status s = plan_axes_reduction(node, 1, &walk); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<ReduceKernel>(R, std::move(walk));
  return Status::Ok();
}

OpDef reduce_def(std::string_view name, PrepareFn fn) { return {name, fn, op_flags::kAdaptTypes}; }

}  // namespace

OpDef reduce_mean_def() { return reduce_def("ReduceMean", &guarded_prepare<prepare<Reduction::kMean>>); }
OpDef reduce_sum_def() { return reduce_def("ReduceSum", &guarded_prepare<prepare<Reduction::kSum>>); }
OpDef reduce_max_def() { return reduce_def("ReduceMax", &guarded_prepare<prepare<Reduction::kMax>>); }
OpDef reduce_min_def() { return reduce_def("ReduceMin", &guarded_prepare<prepare<Reduction::kMin>>); }
OpDef reduce_prod_def() { return reduce_def("ReduceProd", &guarded_prepare<prepare<Reduction::kProd>>); }
OpDef reduce_sum_square_def() {
  return reduce_def("ReduceSumSquare", &guarded_prepare<prepare<Reduction::kSumSquare>>);
}

}  // namespace openhtp::ops::detail
