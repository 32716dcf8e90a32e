// Moments: the mean (out[0]) and the population variance (out[1]) of the
// input over `axes` (u32[M], mandatory), as TensorFlow's tf.nn.moments.
// Both outputs have the reduced dims of ReduceMean: with `keep_dims` the
// reduced axes stay as 1s, without (the default) they are dropped, and a
// reduction over every axis gives [1]. Float in, float out; FLOAT_16 and
// fixed point go through the type adapter.
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

class MomentsKernel final : public OpKernel {
 public:
  // out_strides: per input axis, the output stride (0 on the reduced axes),
  // so every element of a reduced slice lands on one output position.
  MomentsKernel(std::span<const uint32_t> dims, std::span<const size_t> out_strides, size_t num_out,
                size_t reduced_count)
      : rank_(dims.size()), mean_(num_out), sq_(num_out), reduced_count_(reduced_count) {
    for (size_t i = 0; i < rank_; ++i) {
      dims_[i] = dims[i];
      strides_[i] = out_strides[i];
    }
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* mean = static_cast<float*>(out[0]);
    float* var = static_cast<float*>(out[1]);
    // In double, two passes (the mean first, then squared deviations from
    // it): no cancellation when |mean| >> standard deviation.
    const double n = static_cast<double>(reduced_count_);
    std::fill(mean_.begin(), mean_.end(), 0.0);
    std::fill(sq_.begin(), sq_.end(), 0.0);
    walk([&](size_t e, size_t o) { mean_[o] += x[e]; });
    for (double& m : mean_) m /= n;
    walk([&](size_t e, size_t o) { sq_[o] += (x[e] - mean_[o]) * (x[e] - mean_[o]); });
    for (size_t o = 0; o < mean_.size(); ++o) {
      mean[o] = static_cast<float>(mean_[o]);
      var[o] = static_cast<float>(sq_[o] / n);
    }
  }

 private:
  // fn(element, output position) for every element in row-major order.
  template <typename Fn>
  void walk(Fn fn) const {
    size_t total = 1;
    for (size_t i = 0; i < rank_; ++i) total *= dims_[i];
    std::array<size_t, kMaxRank> idx{};
    size_t o = 0;
    for (size_t e = 0; e < total; ++e) {
      fn(e, o);
      for (size_t ax = rank_; ax-- > 0;) {
        o += strides_[ax];
        if (++idx[ax] < dims_[ax]) break;
        o -= strides_[ax] * dims_[ax];
        idx[ax] = 0;
      }
    }
  }

  size_t rank_;
  std::array<size_t, kMaxRank> dims_{};
  std::array<size_t, kMaxRank> strides_{};
  std::vector<double> mean_, sq_;  // per output position; sized at prepare
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
  if (Status s = check_io_count(node, 1, 1, 2); !s.ok()) return s;
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
  for (size_t i = 0; i < 2; ++i) {
    if (Status s = check_output_dims(node, i, out_dims); !s.ok()) return s;
  }

  if (kernel) {
    const std::vector<size_t> kept_strides = row_major_strides(kept_dims);
    std::array<size_t, kMaxRank> out_strides{};
    for (uint32_t i = 0, k = 0; i < rank; ++i) {
      if (!reduced[i]) out_strides[i] = kept_strides[k++];
    }
    *kernel = std::make_unique<MomentsKernel>(x.dims, std::span<const size_t>(out_strides.data(), rank),
                                              product(out_dims, 0, out_dims.size()), reduced_count);
  }
  return Status::Ok();
}

}  // namespace

OpDef moments_def() { return {"Moments", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
