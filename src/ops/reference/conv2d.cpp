// Conv2d, NHWC activations and HWIO filters [kh, kw, Cin/group, Cout].
//
//   y[n][oh][ow][g*Cg + c] = bias[g*Cg + c] + sum over kh, kw, ci of
//     x[n][oh*sh - pt + kh*dh][ow*sw - pl + kw*dw][g*Cin_g + ci] * w[kh][kw][ci][g*Cg + c]
//
// with Cg = Cout/group, Cin_g = Cin/group; taps that fall in the padding read 0.
#include "ops/op_defs.h"
#include "ops/reference/conv2d_prepare.h"
#include "ops/parsed_params.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class Conv2dKernel final : public OpKernel {
 public:
  Conv2dKernel(const ConvGeometry& g, std::vector<TapRange> rows, std::vector<TapRange> cols)
      : g_(g), rows_(std::move(rows)), cols_(std::move(cols)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = static_cast<const float*>(in[1]);
    const float* bias = g_.has_bias ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t cin_g = g_.cin_g();
    const size_t cout_g = g_.cout_g();
    const size_t Cin = g_.Cin, Cout = g_.Cout, KW = g_.KW;

    // Loop order: one output pixel at a time; for each in-bounds tap the
    // innermost loop runs over output channels, which are contiguous both in
    // the output pixel and in the HWIO filter row w[kh][kw][ci][*].
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t oh = 0; oh < g_.Ho; ++oh) {
        const TapRange rh = rows_[oh];
        for (size_t ow = 0; ow < g_.Wo; ++ow) {
          const TapRange rw = cols_[ow];
          float* yp = y + ((n * g_.Ho + oh) * g_.Wo + ow) * Cout;
          for (size_t co = 0; co < Cout; ++co) yp[co] = bias ? bias[co] : 0.0f;

          for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
            const size_t ih = oh * g_.sh + kh * g_.dh - g_.pt;  // >= 0 by construction of rh
            for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
              const size_t iw = ow * g_.sw + kw * g_.dw - g_.pl;
              const float* xp = x + ((n * g_.H + ih) * g_.W + iw) * Cin;
              const float* wp = w + (kh * KW + kw) * cin_g * Cout;
              for (size_t grp = 0; grp < g_.group; ++grp) {
                float* yg = yp + grp * cout_g;
                for (size_t ci = 0; ci < cin_g; ++ci) {
                  const float xv = xp[grp * cin_g + ci];
                  const float* wr = wp + ci * Cout + grp * cout_g;
                  for (size_t co = 0; co < cout_g; ++co) yg[co] += xv * wr[co];
                }
              }
            }
          }
        }
      }
    }
  }

 private:
  ConvGeometry g_;
  std::vector<TapRange> rows_;  // valid kh taps for each output row
  std::vector<TapRange> cols_;  // valid kw taps for each output column
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  return prepare_windowed_conv<Conv2dKernel, read_conv2d_geometry>(node, kernel);
}

}  // namespace

OpDef conv2d_def() {
  return {"Conv2d", &guarded_prepare<prepare>, op_flags::kAdaptTypes, &parse_as<ConvGeometry, read_conv2d_geometry>};
}

}  // namespace openhtp::ops::detail
