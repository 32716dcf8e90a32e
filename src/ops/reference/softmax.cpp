// Softmax along one axis: y_i = exp(beta*x_i) / sum_j exp(beta*x_j), i and j
// running over that axis. QNN's HTP documents only the last axis; any axis is
// accepted here, since ONNX models (and their tests) use others.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/reference/softmax_params.h"

namespace openhtp::ops::detail {
namespace {

class SoftmaxKernel final : public OpKernel {
 public:
  // The tensor viewed as [outer, cols, inner]; the softmax runs along cols.
  SoftmaxKernel(size_t outer, size_t cols, size_t inner, float beta)
      : outer_(outer), cols_(cols), inner_(inner), beta_(beta) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    for (size_t o = 0; o < outer_; ++o) {
      for (size_t i = 0; i < inner_; ++i) {
        const size_t base = o * cols_ * inner_ + i;
        one_row(static_cast<const float*>(in[0]) + base, static_cast<float*>(out[0]) + base);
      }
    }
  }

 private:
  // x[c * inner_] for c < cols_.
  void one_row(const float* x, float* y) const {
    const size_t st = inner_;
    {
      // Subtracting the row maximum of beta*x keeps every exponent <= 0, so
      // nothing overflows; the largest term is exactly 1, so the sum is >= 1.
      // (With a negative beta the maximum of beta*x is at the smallest x.)
      // The exponent is formed in double, where beta*x is exact: in float its
      // rounding alone would cost ~1e-6 relative error once |beta*x| ~ 40.
      const double beta = beta_;
      double m = beta * x[0];
      for (size_t c = 1; c < cols_; ++c) m = std::fmax(m, beta * x[c * st]);
      double sum = 0.0;
      for (size_t c = 0; c < cols_; ++c) {
        const double e = std::exp(beta * x[c * st] - m);
        y[c * st] = static_cast<float>(e);
        sum += e;
      }
      const double inv = 1.0 / sum;
      for (size_t c = 0; c < cols_; ++c) y[c * st] = static_cast<float>(y[c * st] * inv);
    }
  }

  size_t outer_, cols_, inner_;
  float beta_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  SoftmaxShape shape;
  if (Status s = read_softmax_node(node, /*axis_defaults_to_last=*/true, &shape); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<SoftmaxKernel>(shape.outer, shape.len, shape.inner, shape.beta);
  return Status::Ok();
}

}  // namespace

OpDef softmax_def() { return {"Softmax", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
