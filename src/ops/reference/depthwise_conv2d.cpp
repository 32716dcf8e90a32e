// DepthWiseConv2d, NHWC activations, filter [kh, kw, 1, Cout] with
// Cout = M * Cin (channel multiplier M): output channel co filters input
// channel co / M alone,
//
//   y[n][oh][ow][co] = bias[co] + sum over kh, kw of
//     x[n][oh*sh - pt + kh*dh][ow*sw - pl + kw*dw][co / M] * w[kh][kw][0][co]
//
// taps in the padding read 0. Output size as Conv2d.
#include "ops/op_defs.h"
#include "ops/reference/conv2d_prepare.h"
#include "ops/parsed_params.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class DepthWiseConv2dKernel final : public OpKernel {
 public:
  DepthWiseConv2dKernel(const ConvGeometry& g, std::vector<TapRange> rows, std::vector<TapRange> cols)
      : g_(g), rows_(std::move(rows)), cols_(std::move(cols)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = static_cast<const float*>(in[1]);
    const float* bias = g_.has_bias ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t Cin = g_.Cin, Cout = g_.Cout;
    const size_t mult = Cout / Cin;
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t oh = 0; oh < g_.Ho; ++oh) {
        const TapRange rh = rows_[oh];
        for (size_t ow = 0; ow < g_.Wo; ++ow) {
          const TapRange rw = cols_[ow];
          float* yp = y + ((n * g_.Ho + oh) * g_.Wo + ow) * Cout;
          for (size_t co = 0; co < Cout; ++co) yp[co] = bias ? bias[co] : 0.0f;
          for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
            const size_t ih = oh * g_.sh + kh * g_.dh - g_.pt;
            for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
              const size_t iw = ow * g_.sw + kw * g_.dw - g_.pl;
              const float* xp = x + ((n * g_.H + ih) * g_.W + iw) * Cin;
              const float* wp = w + (kh * g_.KW + kw) * Cout;
              // Output channels are contiguous in both yp and the filter row.
              for (size_t ci = 0; ci < Cin; ++ci) {
                const float xv = xp[ci];
                for (size_t m = 0; m < mult; ++m) yp[ci * mult + m] += xv * wp[ci * mult + m];
              }
            }
          }
        }
      }
    }
  }

 private:
  ConvGeometry g_;
  std::vector<TapRange> rows_, cols_;  // valid taps per output row / column
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  return prepare_windowed_conv<DepthWiseConv2dKernel, read_depthwise_conv2d_geometry>(node, kernel);
}

}  // namespace

OpDef depthwise_conv2d_def() {
  return {"DepthWiseConv2d", &guarded_prepare<prepare>, op_flags::kAdaptTypes,
          &parse_as<ConvGeometry, read_depthwise_conv2d_geometry>};
}

}  // namespace openhtp::ops::detail
