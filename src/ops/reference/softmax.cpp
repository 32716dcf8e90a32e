// Softmax along the last axis: y_i = exp(beta*x_i) / sum_j exp(beta*x_j).
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

class SoftmaxKernel final : public OpKernel {
 public:
  SoftmaxKernel(size_t rows, size_t cols, float beta) : rows_(rows), cols_(cols), beta_(beta) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    for (size_t r = 0; r < rows_; ++r, x += cols_, y += cols_) {
      // Subtracting the row maximum of beta*x keeps every exponent <= 0, so
      // nothing overflows; the largest term is exactly 1, so the sum is >= 1.
      // (With a negative beta the maximum of beta*x is at the smallest x.)
      // The exponent is formed in double, where beta*x is exact: in float its
      // rounding alone would cost ~1e-6 relative error once |beta*x| ~ 40.
      const double beta = beta_;
      double m = beta * x[0];
      for (size_t c = 1; c < cols_; ++c) m = std::fmax(m, beta * x[c]);
      double sum = 0.0;
      for (size_t c = 0; c < cols_; ++c) {
        const double e = std::exp(beta * x[c] - m);
        y[c] = static_cast<float>(e);
        sum += e;
      }
      const double inv = 1.0 / sum;
      for (size_t c = 0; c < cols_; ++c) y[c] = static_cast<float>(y[c] * inv);
    }
  }

 private:
  size_t rows_, cols_;
  float beta_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axis", "beta"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  uint32_t axis = 0;
  if (Status s = params.u32_scalar("axis", rank - 1, &axis); !s.ok()) return s;
  if (axis >= rank) {
    return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);
  }
  if (axis != rank - 1) {
    return unsupported(node, "parameter 'axis' is ", axis, "; only the last axis (", rank - 1,
                       ") is supported");
  }
  float beta = 1.0f;
  if (Status s = params.f32_scalar("beta", 1.0f, &beta); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    const size_t cols = x.dims.back();
    *kernel = std::make_unique<SoftmaxKernel>(x.num_elements() / cols, cols, beta);
  }
  return Status::Ok();
}

}  // namespace

OpDef softmax_def() { return {"Softmax", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
