// L2Norm: y = x / sqrt(max(sum(x^2), epsilon)), the sum running over the
// normalized axes of each slice (the elements that share every other index).
// The axes are `axes` (u32[M]) when given, else `axis` (default the last);
// `epsilon` (default 1e-12) keeps an all-zero slice from dividing by zero.
// The max() form and the default are TensorFlow's l2_normalize and Android
// NNAPI's L2_NORMALIZATION, which QNN's op follows. Float in, float out, same
// shape; FLOAT_16 and fixed point go through the type adapter.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

class L2NormKernel final : public OpKernel {
 public:
  // group_strides: per input axis, the stride of the slice index (0 on the
  // normalized axes), so every element of a slice lands on one accumulator.
  L2NormKernel(std::span<const uint32_t> dims, std::span<const size_t> group_strides, size_t num_groups,
               float epsilon)
      : rank_(dims.size()), sums_(num_groups), epsilon_(epsilon) {
    for (size_t i = 0; i < rank_; ++i) {
      dims_[i] = dims[i];
      strides_[i] = group_strides[i];
    }
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    std::fill(sums_.begin(), sums_.end(), 0.0);
    walk([&](size_t e, size_t g) { sums_[g] += double{x[e]} * x[e]; });  // in double: order-independent
    for (double& s : sums_) s = 1.0 / std::sqrt(std::fmax(s, epsilon_));
    walk([&](size_t e, size_t g) { y[e] = static_cast<float>(x[e] * sums_[g]); });
  }

 private:
  // fn(element, slice) for every element in row-major order.
  template <typename Fn>
  void walk(Fn fn) const {
    size_t total = 1;
    for (size_t i = 0; i < rank_; ++i) total *= dims_[i];
    std::array<size_t, kMaxRank> idx{};
    size_t g = 0;
    for (size_t e = 0; e < total; ++e) {
      fn(e, g);
      for (size_t ax = rank_; ax-- > 0;) {
        g += strides_[ax];
        if (++idx[ax] < dims_[ax]) break;
        g -= strides_[ax] * dims_[ax];
        idx[ax] = 0;
      }
    }
  }

  size_t rank_;
  std::array<size_t, kMaxRank> dims_{};
  std::array<size_t, kMaxRank> strides_{};
  std::vector<double> sums_;  // per slice; sized at prepare
  double epsilon_;
};

// The normalized axes: `axes` (u32[M], 1 <= M <= rank, entries < rank, no
// repeats) when given, else the scalar `axis` (default rank - 1). With both,
// `axes` wins: it is the newer, more general form of the same parameter.
Status read_axes(const NodeDesc& node, const ParamReader& params, uint32_t rank, std::vector<uint32_t>* axes) {
  const Param* p = node.find_param("axes");
  if (p == nullptr) {
    uint32_t axis = 0;
    if (Status s = params.u32_scalar("axis", rank - 1, &axis); !s.ok()) return s;
    if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);
    axes->assign(1, axis);
    return Status::Ok();
  }
  if (p->is_tensor && p->dims.size() != 1) {
    return invalid(node, "parameter 'axes' dims are ", dims_str(p->dims), ", expected [M] (rank 1)");
  }
  const uint32_t m = p->is_tensor ? p->dims[0] : 1;  // a scalar is refused by u32_tensor below
  if (m == 0 || m > rank) return invalid(node, "parameter 'axes' has ", m, " entries, expected 1 to rank ", rank);
  const uint32_t dims[1] = {m};
  if (Status s = params.u32_tensor("axes", dims, {}, axes); !s.ok()) return s;
  for (size_t k = 0; k < axes->size(); ++k) {
    const uint32_t a = (*axes)[k];
    if (a >= rank) return invalid(node, "parameter 'axes' element ", k, " is ", a, ", expected < rank ", rank);
    for (size_t j = 0; j < k; ++j) {
      if ((*axes)[j] == a) return invalid(node, "parameter 'axes' lists axis ", a, " twice");
    }
  }
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axis", "axes", "epsilon"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  std::vector<uint32_t> axes;
  if (Status s = read_axes(node, params, rank, &axes); !s.ok()) return s;
  float epsilon = 0.0f;
  if (Status s = params.f32_scalar("epsilon", 1e-12f, &epsilon); !s.ok()) return s;
  if (epsilon < 0.0f) return invalid(node, "parameter 'epsilon' is ", epsilon, ", expected >= 0");
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    std::array<bool, kMaxRank> normalized{};
    for (uint32_t a : axes) normalized[a] = true;
    std::vector<uint32_t> kept;
    for (uint32_t i = 0; i < rank; ++i) {
      if (!normalized[i]) kept.push_back(x.dims[i]);
    }
    const std::vector<size_t> kept_strides = row_major_strides(kept);
    std::array<size_t, kMaxRank> strides{};
    for (uint32_t i = 0, k = 0; i < rank; ++i) {
      if (!normalized[i]) strides[i] = kept_strides[k++];
    }
    *kernel = std::make_unique<L2NormKernel>(x.dims, std::span<const size_t>(strides.data(), rank),
                                             product(kept, 0, kept.size()), epsilon);
  }
  return Status::Ok();
}

}  // namespace

OpDef l2_norm_def() { return {"L2Norm", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
