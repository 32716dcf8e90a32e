// Lrn (local response normalization), as Android NNAPI's and TensorFlow's
// LOCAL_RESPONSE_NORMALIZATION, which QNN's op follows:
//   y = x / (bias + alpha * sqr_sum) ^ beta
// sqr_sum is the sum of x^2 over a window of `radius` elements either side,
// clipped at the tensor's edges (alpha is not divided by the window size;
// ONNX's LRN, which is, converts as alpha / size):
//   region ACROSS_CHANNEL (0, default): along the channel (last) axis;
//   region WITHIN_CHANNEL (1): a (2r+1) x (2r+1) window over H and W of a
//   rank-4 [N,H,W,C] tensor, per channel.
// Defaults (TensorFlow's): alpha 1, beta 0.5, bias 1, radius 5. Float in,
// float out, same shape; FLOAT_16 and fixed point go through the type adapter.
#include <algorithm>
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;
constexpr uint32_t kAcrossChannel = 0;
constexpr uint32_t kWithinChannel = 1;

struct LrnParams {
  double alpha = 1.0, beta = 0.5, bias = 1.0;
  uint32_t radius = 5;
};

// The tensor seen as [n, h, w, c]: ACROSS_CHANNEL sums along c (h = w = 1 and
// n = everything before the last axis), WITHIN_CHANNEL over h and w.
class LrnKernel final : public OpKernel {
 public:
  LrnKernel(uint32_t region, size_t n, size_t h, size_t w, size_t c, const LrnParams& p)
      : region_(region), n_(n), h_(h), w_(w), c_(c), p_(p) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    const size_t r = p_.radius;
    for (size_t b = 0; b < n_; ++b) {
      for (size_t i = 0; i < h_; ++i) {
        for (size_t j = 0; j < w_; ++j) {
          for (size_t k = 0; k < c_; ++k) {
            const size_t at = ((b * h_ + i) * w_ + j) * c_ + k;
            double sum = 0.0;  // in double: the window's order does not matter
            if (region_ == kAcrossChannel) {
              const size_t lo = k > r ? k - r : 0, hi = std::min(c_ - 1, k + r);
              for (size_t q = lo; q <= hi; ++q) sum += double{x[at - k + q]} * x[at - k + q];
            } else {
              const size_t ilo = i > r ? i - r : 0, ihi = std::min(h_ - 1, i + r);
              const size_t jlo = j > r ? j - r : 0, jhi = std::min(w_ - 1, j + r);
              for (size_t ii = ilo; ii <= ihi; ++ii) {
                for (size_t jj = jlo; jj <= jhi; ++jj) {
                  const double v = x[((b * h_ + ii) * w_ + jj) * c_ + k];
                  sum += v * v;
                }
              }
            }
            y[at] = static_cast<float>(x[at] / std::pow(p_.bias + p_.alpha * sum, p_.beta));
          }
        }
      }
    }
  }

 private:
  uint32_t region_;
  size_t n_, h_, w_, c_;
  LrnParams p_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"alpha", "beta", "bias", "radius", "region"}); !s.ok()) return s;
  LrnParams p;
  float alpha = 1.0f, beta = 0.5f, bias = 1.0f;
  if (Status s = params.f32_scalar("alpha", 1.0f, &alpha); !s.ok()) return s;
  if (Status s = params.f32_scalar("beta", 0.5f, &beta); !s.ok()) return s;
  if (Status s = params.f32_scalar("bias", 1.0f, &bias); !s.ok()) return s;
  if (Status s = params.u32_scalar("radius", 5u, &p.radius); !s.ok()) return s;
  p.alpha = alpha;
  p.beta = beta;
  p.bias = bias;
  uint32_t region = kAcrossChannel;
  if (Status s = params.u32_scalar("region", kAcrossChannel, &region); !s.ok()) return s;
  if (region != kAcrossChannel && region != kWithinChannel) {
    return invalid(node, "parameter 'region' is ", region, ", expected 0 (ACROSS_CHANNEL) or 1 (WITHIN_CHANNEL)");
  }
  const TensorDesc& x = node.inputs[0];
  if (region == kWithinChannel) {
    if (Status s = check_rank(node, x, in_label(0, ""), 4, 4, StatusCode::kInvalidArgument); !s.ok()) {
      s.message += " ([N,H,W,C] for region WITHIN_CHANNEL)";
      return s;
    }
  } else if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) {
    return s;
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    const size_t rank = x.dims.size();
    const size_t c = x.dims[rank - 1];
    if (region == kWithinChannel) {
      *kernel = std::make_unique<LrnKernel>(region, x.dims[0], x.dims[1], x.dims[2], c, p);
    } else {
      *kernel = std::make_unique<LrnKernel>(region, product(x.dims, 0, rank - 1), 1, 1, c, p);
    }
  }
  return Status::Ok();
}

}  // namespace

OpDef lrn_def() { return {"Lrn", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
