// Correlation1D: the horizontal correlation layer of stereo networks
// (DispNetC's "Correlation1D", FlowNetC's correlation restricted to one
// row), kernel size 1:
//
//   in[0] left features [n, h, w, c], in[1] right features, the same dims
//   params displacement (u32, mandatory): the largest horizontal shift;
//          shift (u32, default 1, >= 1): the step between shifts
//   out[0] [n, h, w, K], K = 2 * floor(displacement / shift) + 1
//
//   out[n, y, x, k] = (1 / c) * sum over ch of in0[n, y, x, ch] * in1[n, y, x + d_k, ch]
//   d_k = (k - floor(displacement / shift)) * shift, k = 0 .. K-1
//
// QNN documents neither the displacement set nor the channel count, so this
// is DispNet/FlowNet's Caffe correlation layer (max_displacement =
// displacement, stride_2 = shift, kernel_size 1, stride_1 1, padding =
// displacement so the output keeps the input's width): shifts from
// -displacement to +displacement, channel k the k-th shift from the most
// negative, in1 read at x + d (outside the row: 0), the sum divided by the
// channel count. An out[0] with another channel count (a one-sided set) is
// refused.
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct CorrGeometry {
  size_t n = 0, h = 0, w = 0, c = 0, radius = 0, shift = 1;
};

class Correlation1DKernel final : public OpKernel {
 public:
  explicit Correlation1DKernel(const CorrGeometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* a = static_cast<const float*>(in[0]);
    const float* b = static_cast<const float*>(in[1]);
    float* o = static_cast<float*>(out[0]);
    const size_t W = g_.w, C = g_.c, K = 2 * g_.radius + 1;
    const float inv_c = 1.0f / static_cast<float>(C);
    for (size_t row = 0; row < g_.n * g_.h; ++row) {
      const float* ar = a + row * W * C;
      const float* br = b + row * W * C;
      for (size_t x = 0; x < W; ++x) {
        float* ox = o + (row * W + x) * K;
        for (size_t k = 0; k < K; ++k) {
          const int64_t xs = static_cast<int64_t>(x) + (static_cast<int64_t>(k) - static_cast<int64_t>(g_.radius)) *
                                                           static_cast<int64_t>(g_.shift);
          if (xs < 0 || xs >= static_cast<int64_t>(W)) {
            ox[k] = 0.0f;
            continue;
          }
          const float* p = ar + x * C;
          const float* q = br + static_cast<size_t>(xs) * C;
          float acc = 0.0f;
          for (size_t ch = 0; ch < C; ++ch) acc += p[ch] * q[ch];
          ox[k] = acc * inv_c;
        }
      }
    }
  }

 private:
  CorrGeometry g_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  const TensorDesc& a = node.inputs[0];
  const TensorDesc& b = node.inputs[1];
  if (Status s = check_f32_tensor(node, a, in_label(0, "left")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, b, in_label(1, "right")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"displacement", "shift"}); !s.ok()) return s;
  uint32_t displacement = 0, shift = 1;
  if (Status s = params.u32_scalar("displacement", std::nullopt, &displacement); !s.ok()) return s;
  if (Status s = params.u32_scalar("shift", 1u, &shift); !s.ok()) return s;
  if (shift == 0) return invalid(node, "parameter 'shift' is 0, expected >= 1");
  if (Status s = check_rank(node, a, in_label(0, "left"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (b.dims != a.dims) {
    return invalid(node, "in[1] (right) dims are ", dims_str(b.dims), ", expected ", dims_str(a.dims),
                   " (those of in[0])");
  }
  CorrGeometry g;
  g.n = a.dims[0];
  g.h = a.dims[1];
  g.w = a.dims[2];
  g.c = a.dims[3];
  g.radius = displacement / shift;
  g.shift = shift;
  const uint64_t K = 2 * uint64_t{g.radius} + 1;
  if (K > UINT32_MAX) return invalid(node, "parameter 'displacement' is ", displacement, ": too many shifts");
  const uint32_t want[] = {a.dims[0], a.dims[1], a.dims[2], static_cast<uint32_t>(K)};
  if (Status s = check_output_dims(node, 0, want); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<Correlation1DKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef correlation_1d_def() { return {"Correlation1D", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
