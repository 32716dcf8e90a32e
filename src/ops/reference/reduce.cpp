// ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceSumSquare
// over any set of `axes`.
// Output dims: with keep_dims the reduced axes stay as 1s; without, they are
// dropped, and a reduction over every axis gives [1] (rank max(1, N - M)).
// Either way the output elements are in the row-major order of the kept axes.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

enum class Reduction { kMean, kSum, kMax, kMin, kProd, kSumSquare };

// One pass over the input in row-major order; each element is folded into
// the accumulator of its output position. out_strides_ is 0 on the reduced
// axes, so the odometer lands every element of a reduced slice on one slot.
class ReduceKernel final : public OpKernel {
 public:
  ReduceKernel(Reduction op, std::span<const uint32_t> in_dims, std::span<const size_t> out_strides,
               size_t num_out, size_t reduced_count)
      : op_(op), rank_(in_dims.size()), acc_(num_out), reduced_count_(reduced_count) {
    for (size_t i = 0; i < rank_; ++i) {
      dims_[i] = in_dims[i];
      out_strides_[i] = out_strides[i];
    }
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    // Sums and products in double: the reference should not depend on the
    // order of accumulation. Max/min start from NaN so fmax/fmin take the
    // first element (and skip NaN inputs, as fmax does).
    std::fill(acc_.begin(), acc_.end(), initial_value(op_));
    size_t total = 1;
    for (size_t i = 0; i < rank_; ++i) total *= dims_[i];
    std::array<size_t, kMaxRank> idx{};
    size_t o = 0;
    for (size_t e = 0; e < total; ++e) {
      const double v = x[e];
      switch (op_) {
        case Reduction::kMean:
        case Reduction::kSum: acc_[o] += v; break;
        case Reduction::kMax: acc_[o] = std::fmax(acc_[o], v); break;
        case Reduction::kMin: acc_[o] = std::fmin(acc_[o], v); break;
        case Reduction::kProd: acc_[o] *= v; break;
        case Reduction::kSumSquare: acc_[o] += v * v; break;
      }
      for (size_t ax = rank_; ax-- > 0;) {
        o += out_strides_[ax];
        if (++idx[ax] < dims_[ax]) break;
        o -= out_strides_[ax] * dims_[ax];
        idx[ax] = 0;
      }
    }
    const double scale = op_ == Reduction::kMean ? 1.0 / static_cast<double>(reduced_count_) : 1.0;
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
  size_t rank_;
  std::array<size_t, kMaxRank> dims_{};
  std::array<size_t, kMaxRank> out_strides_{};
  std::vector<double> acc_;  // sized at prepare
  size_t reduced_count_;
};

// Reads `axes` (u32[M], mandatory): 1 <= M <= rank, entries < rank, no repeats.
Status read_axes(const NodeDesc& node, const ParamReader& params, uint32_t rank, std::vector<uint32_t>* axes) {
  const Param* p = node.find_param("axes");
  if (p != nullptr && p->is_tensor && p->dims.size() != 1) {
    return invalid(node, "parameter 'axes' dims are ", dims_str(p->dims), ", expected [M] (rank 1)");
  }
  // M is the parameter's own length; u32_tensor then checks kind, type and bytes.
  const uint32_t m = (p != nullptr && p->is_tensor) ? p->dims[0] : 1;
  if (m == 0 || m > rank) {
    return invalid(node, "parameter 'axes' has ", m, " entries, expected 1 to rank ", rank);
  }
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

template <Reduction R>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axes", "keep_dims"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  std::vector<uint32_t> axes;
  if (Status s = read_axes(node, params, rank, &axes); !s.ok()) return s;
  bool keep_dims = false;
  if (Status s = params.bool_scalar("keep_dims", false, &keep_dims); !s.ok()) return s;

  std::array<bool, kMaxRank> reduced{};
  for (uint32_t a : axes) reduced[a] = true;
  std::vector<uint32_t> kept_dims, out_dims;
  size_t reduced_count = 1;
  for (uint32_t i = 0; i < rank; ++i) {
    if (reduced[i]) {
      reduced_count *= x.dims[i];
      if (keep_dims) out_dims.push_back(1);
    } else {
      kept_dims.push_back(x.dims[i]);
      out_dims.push_back(x.dims[i]);
    }
  }
  if (out_dims.empty()) out_dims.push_back(1);
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    // Output strides of the kept axes, spread back onto the input's axes.
    const std::vector<size_t> kept_strides = row_major_strides(kept_dims);
    std::array<size_t, kMaxRank> out_strides{};
    for (uint32_t i = 0, k = 0; i < rank; ++i) {
      if (!reduced[i]) out_strides[i] = kept_strides[k++];
    }
    *kernel = std::make_unique<ReduceKernel>(R, x.dims, std::span<const size_t>(out_strides.data(), rank),
                                             product(out_dims, 0, out_dims.size()), reduced_count);
  }
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
