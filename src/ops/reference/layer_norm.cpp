// LayerNorm and RmsNorm: normalization over a block of trailing axes, with an
// optional per-element scale gamma and shift beta over that block.
//   LayerNorm: y = (x - mean) / sqrt(var + epsilon) * gamma + beta
//   RmsNorm:   y = x / sqrt(mean(x^2) + epsilon) * gamma + beta
// mean/var (population variance) are taken over the `axes` of each row.
//
// QNN allows any `axes`; the HTP normalizes the last dim only. The reference
// accepts any set of trailing axes (given in any order), which covers every
// LayerNorm a converter emits for channel-last tensors, and reports other
// sets as unsupported. gamma and beta have the dims of that trailing block
// (rank = number of axes, as the op definition says).
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/trailing_norm.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

enum class Kind { kLayerNorm, kRmsNorm };

// The tensor seen as [rows, cols], cols = the normalized trailing block.
class TrailingNormKernel final : public OpKernel {
 public:
  TrailingNormKernel(Kind kind, size_t rows, size_t cols, float epsilon, bool has_gamma, bool has_beta)
      : kind_(kind), rows_(rows), cols_(cols), epsilon_(epsilon), has_gamma_(has_gamma), has_beta_(has_beta) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* gamma = has_gamma_ ? static_cast<const float*>(in[1]) : nullptr;
    const float* beta = has_beta_ ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    for (size_t r = 0; r < rows_; ++r, x += cols_, y += cols_) {
      // The statistics every fast path shares (ops/trailing_norm.h).
      const NormStats st = norm_stats(cols_, kind_ == Kind::kLayerNorm, epsilon_, [&](size_t c) { return x[c]; });
      for (size_t c = 0; c < cols_; ++c) {
        double v = (x[c] - st.center) * st.inv;
        if (gamma) v *= gamma[c];
        if (beta) v += beta[c];
        y[c] = static_cast<float>(v);
      }
    }
  }

 private:
  Kind kind_;
  size_t rows_, cols_;
  double epsilon_;
  bool has_gamma_, has_beta_;
};

// Reads `axes` (u32[M], mandatory): entries < rank, no repeats, and (this
// backend) together the last M axes. Sets *first to rank - M.
Status read_trailing_axes(const NodeDesc& node, const ParamReader& params, uint32_t rank, uint32_t* first) {
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
  std::vector<uint32_t> axes;
  if (Status s = params.u32_tensor("axes", dims, {}, &axes); !s.ok()) return s;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (axes[k] >= rank) {
      return invalid(node, "parameter 'axes' element ", k, " is ", axes[k], ", expected < rank ", rank);
    }
    for (size_t j = 0; j < k; ++j) {
      if (axes[j] == axes[k]) return invalid(node, "parameter 'axes' lists axis ", axes[k], " twice");
    }
  }
  // Distinct and all >= rank - m means exactly the trailing block.
  for (uint32_t a : axes) {
    if (a < rank - m) {
      return unsupported(node, "parameter 'axes' includes axis ", a, "; only a block of trailing axes (",
                         rank - m, " to ", rank - 1, " for ", m, " axes) is supported");
    }
  }
  *first = rank - m;
  return Status::Ok();
}

template <Kind K>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"", "gamma", "beta"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"epsilon", "axes"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  float epsilon = 0.0f;
  if (Status s = params.f32_scalar("epsilon", K == Kind::kLayerNorm ? 0.001f : 1e-6f, &epsilon); !s.ok())
    return s;
  if (epsilon < 0.0f) return invalid(node, "parameter 'epsilon' is ", epsilon, ", expected >= 0");
  uint32_t first = 0;
  if (Status s = read_trailing_axes(node, params, rank, &first); !s.ok()) return s;

  const std::span<const uint32_t> block = std::span<const uint32_t>(x.dims).subspan(first);
  for (size_t i = 1; i <= 2; ++i) {
    if (!has_input(node, i)) continue;
    const TensorDesc& t = node.inputs[i];
    if (!std::equal(t.dims.begin(), t.dims.end(), block.begin(), block.end())) {
      return invalid(node, in_label(i, kRoles[i]), " dims are ", dims_str(t.dims), ", expected ",
                     dims_str(block), " (the dims of the normalized axes)");
    }
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    const size_t cols = product(x.dims, first, rank);
    *kernel = std::make_unique<TrailingNormKernel>(K, x.num_elements() / cols, cols, epsilon,
                                                   has_input(node, 1), has_input(node, 2));
  }
  return Status::Ok();
}

}  // namespace

OpDef layer_norm_def() {
  return {"LayerNorm", &guarded_prepare<prepare<Kind::kLayerNorm>>, op_flags::kAdaptTypes};
}
OpDef rms_norm_def() { return {"RmsNorm", &guarded_prepare<prepare<Kind::kRmsNorm>>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
