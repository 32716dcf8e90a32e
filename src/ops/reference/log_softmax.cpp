// LogSoftmax along one axis:
//   y_i = beta*x_i - log(sum_j exp(beta*x_j)),  i, j running along `axis`.
// Unlike Softmax (whose HTP only takes the last axis) any axis is accepted:
// the facts give no HTP restriction for LogSoftmax, and the strided loop
// below costs nothing extra.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

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
  if (Status s = params.u32_scalar("axis", std::nullopt, &axis); !s.ok()) return s;
  if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);
  float beta = 1.0f;
  if (Status s = params.f32_scalar("beta", 1.0f, &beta); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    *kernel = std::make_unique<LogSoftmaxKernel>(product(x.dims, 0, axis), x.dims[axis],
                                                 product(x.dims, axis + 1, rank), beta);
  }
  return Status::Ok();
}

}  // namespace

OpDef log_softmax_def() { return {"LogSoftmax", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
