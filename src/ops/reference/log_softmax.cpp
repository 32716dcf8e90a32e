// LogSoftmax along one axis:
//   y_i = beta*x_i - log(sum_j exp(beta*x_j)),  i, j running along `axis`.
// Unlike Softmax (whose HTP only takes the last axis) any axis is accepted:
// the facts give no HTP restriction for LogSoftmax, and the strided loop
// below costs nothing extra.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/reference/softmax_params.h"

namespace openhtp::ops::detail {
namespace {

// The tensor seen as [outer, len, inner]: the softmax runs over `len`
// elements `inner` apart.
class LogSoftmaxKernel final : public OpKernel {
 public:
  LogSoftmaxKernel(size_t outer, size_t len, size_t inner, float beta)
      : outer_(outer), len_(len), inner_(inner), beta_(beta) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    const double beta = beta_;
    for (size_t o = 0; o < outer_; ++o) {
      for (size_t i = 0; i < inner_; ++i) {
        const size_t base = o * len_ * inner_ + i;
        // Shifting by the maximum of beta*x keeps exp() from overflowing and
        // makes the sum >= 1, so its log is finite. Double as in Softmax.
        double m = beta * x[base];
        for (size_t k = 1; k < len_; ++k) m = std::fmax(m, beta * x[base + k * inner_]);
        double sum = 0.0;
        for (size_t k = 0; k < len_; ++k) sum += std::exp(beta * x[base + k * inner_] - m);
        const double shift = m + std::log(sum);
        for (size_t k = 0; k < len_; ++k) {
          y[base + k * inner_] = static_cast<float>(beta * x[base + k * inner_] - shift);
        }
      }
    }
  }

 private:
  size_t outer_, len_, inner_;
  float beta_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  SoftmaxShape shape;
  if (Status s = read_softmax_node(node, /*axis_defaults_to_last=*/false, &shape); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<LogSoftmaxKernel>(shape.outer, shape.len, shape.inner, shape.beta);
  return Status::Ok();
}

}  // namespace

OpDef log_softmax_def() { return {"LogSoftmax", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
