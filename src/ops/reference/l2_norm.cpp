// L2Norm: y = x / sqrt(max(sum(x^2), epsilon)), the sum running over the
// normalized axes of each slice (the elements that share every other index).
// The axes are `axes` (u32[M]) when given, else `axis` (default the last);
// `epsilon` (default 1e-12) keeps an all-zero slice from dividing by zero.
// The max() form and the default are TensorFlow's l2_normalize and Android
// NNAPI's L2_NORMALIZATION, which QNN's op follows. Float in, float out, same
// shape; FLOAT_16 and fixed point go through the type adapter.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/reduction_axes.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class L2NormKernel final : public OpKernel {
 public:
  // The walk's output positions are the slices: every element of a slice
  // lands on one accumulator.
  L2NormKernel(ReductionWalk walk, float epsilon) : walk_(std::move(walk)), sums_(walk_.num_out()), epsilon_(epsilon) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    std::fill(sums_.begin(), sums_.end(), 0.0);
    walk_.for_each([&](size_t e, size_t g) { sums_[g] += double{x[e]} * x[e]; });  // in double: order-independent
    for (double& s : sums_) s = 1.0 / std::sqrt(std::fmax(s, epsilon_));
    walk_.for_each([&](size_t e, size_t g) { y[e] = static_cast<float>(x[e] * sums_[g]); });
  }

 private:
  ReductionWalk walk_;
  std::vector<double> sums_;  // per slice; sized at prepare
  double epsilon_;
};

// The normalized axes: `axes` (u32[M], 1 <= M <= rank, entries < rank, no
// repeats) when given, else the scalar `axis` (default rank - 1). With both,
// `axes` wins: it is the newer, more general form of the same parameter.
Status read_axes(const NodeDesc& node, const ParamReader& params, uint32_t rank, std::vector<uint32_t>* axes) {
  if (node.find_param("axes") != nullptr) return read_reduction_axes(node, params, rank, axes);
  uint32_t axis = 0;
  if (Status s = params.u32_scalar("axis", rank - 1, &axis); !s.ok()) return s;
  if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);
  axes->assign(1, axis);
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axis", "axes", "epsilon"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kReductionMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  std::vector<uint32_t> axes;
  if (Status s = read_axes(node, params, rank, &axes); !s.ok()) return s;
  float epsilon = 0.0f;
  if (Status s = params.f32_scalar("epsilon", 1e-12f, &epsilon); !s.ok()) return s;
  if (epsilon < 0.0f) return invalid(node, "parameter 'epsilon' is ", epsilon, ", expected >= 0");
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<L2NormKernel>(ReductionWalk(x.dims, axes), epsilon);
  return Status::Ok();
}

}  // namespace

OpDef l2_norm_def() { return {"L2Norm", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
