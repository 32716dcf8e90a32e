// DepthWiseConv2d, NHWC activations, filter [kh, kw, 1, Cout] with
// Cout = M * Cin (channel multiplier M): output channel co filters input
// channel co / M alone,
//
//   y[n][oh][ow][co] = bias[co] + sum over kh, kw of
//     x[n][oh*sh - pt + kh*dh][ow*sw - pl + kw*dw][co / M] * w[kh][kw][0][co]
//
// taps in the padding read 0. Output size as Conv2d.
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class DepthWiseConv2dKernel final : public OpKernel {
 public:
  struct Geometry {
    size_t N, H, W, Cin, Ho, Wo, Cout, KW;
    size_t sh, sw, pt, pl, dh, dw;
    bool has_bias;
  };

  DepthWiseConv2dKernel(const Geometry& g, std::vector<TapRange> rows, std::vector<TapRange> cols)
      : g_(g), rows_(std::move(rows)), cols_(std::move(cols)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = static_cast<const float*>(in[1]);
    const float* bias = g_.has_bias ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t mult = g_.Cout / g_.Cin;
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t oh = 0; oh < g_.Ho; ++oh) {
        const TapRange rh = rows_[oh];
        for (size_t ow = 0; ow < g_.Wo; ++ow) {
          const TapRange rw = cols_[ow];
          float* yp = y + ((n * g_.Ho + oh) * g_.Wo + ow) * g_.Cout;
          for (size_t co = 0; co < g_.Cout; ++co) yp[co] = bias ? bias[co] : 0.0f;
          for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
            const size_t ih = oh * g_.sh + kh * g_.dh - g_.pt;
            for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
              const size_t iw = ow * g_.sw + kw * g_.dw - g_.pl;
              const float* xp = x + ((n * g_.H + ih) * g_.W + iw) * g_.Cin;
              const float* wp = w + (kh * g_.KW + kw) * g_.Cout;
              // Output channels are contiguous in both yp and the filter row.
              for (size_t ci = 0; ci < g_.Cin; ++ci) {
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
  Geometry g_;
  std::vector<TapRange> rows_, cols_;  // valid taps per output row / column
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "filter", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"stride", "pad_amount", "dilation"}); !s.ok()) return s;
  static constexpr uint32_t kDims2[] = {2};
  static constexpr uint32_t kDims2x2[] = {2, 2};
  static constexpr uint32_t kOnes[] = {1, 1};
  std::vector<uint32_t> stride, pad, dilation;
  if (Status s = params.u32_tensor("stride", kDims2, {}, &stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", kDims2x2, {}, &pad); !s.ok()) return s;
  if (Status s = params.u32_tensor("dilation", kDims2, kOnes, &dilation); !s.ok()) return s;
  for (size_t i = 0; i < 2; ++i) {
    if (stride[i] == 0) return invalid(node, "parameter 'stride' element ", i, " is 0, expected >= 1");
    if (dilation[i] == 0) return invalid(node, "parameter 'dilation' element ", i, " is 0, expected >= 1");
  }
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& f = node.inputs[1];
  if (Status s = check_rank(node, x, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (Status s = check_rank(node, f, in_label(1, "filter"), 4, 4, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t N = x.dims[0], H = x.dims[1], W = x.dims[2], Cin = x.dims[3];
  const uint32_t KH = f.dims[0], KW = f.dims[1], Cout = f.dims[3];
  if (f.dims[2] != 1) return invalid(node, "in[1] (filter) dim 2 is ", f.dims[2], ", expected 1");
  if (Cout % Cin != 0) {
    return invalid(node, "in[1] (filter) output channels Cout = dim 3 = ", Cout,
                   " is not a multiple of in[0] (input) channels Cin = ", Cin);
  }
  const bool has_bias = has_input(node, 2);
  if (has_bias) {
    const TensorDesc& bias = node.inputs[2];
    if (Status s = check_rank(node, bias, in_label(2, "bias"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (bias.dims[0] != Cout) return invalid(node, "in[2] (bias) dim 0 is ", bias.dims[0], ", expected Cout = ", Cout);
  }
  const uint32_t pt = pad[0], pb = pad[1], pl = pad[2], pr = pad[3];
  const uint64_t eff_h = uint64_t{KH - 1} * dilation[0] + 1;
  const uint64_t eff_w = uint64_t{KW - 1} * dilation[1] + 1;
  const uint64_t padded_h = uint64_t{pt} + H + pb;
  const uint64_t padded_w = uint64_t{pl} + W + pr;
  if (eff_h > padded_h) {
    return invalid(node, "dilated filter height (kh-1)*dh+1 = ", eff_h, " exceeds padded input height pt+H+pb = ", padded_h);
  }
  if (eff_w > padded_w) {
    return invalid(node, "dilated filter width (kw-1)*dw+1 = ", eff_w, " exceeds padded input width pl+W+pr = ", padded_w);
  }
  const uint64_t Ho = (padded_h - eff_h) / stride[0] + 1;
  const uint64_t Wo = (padded_w - eff_w) / stride[1] + 1;
  if (Ho > UINT32_MAX || Wo > UINT32_MAX) {
    return invalid(node, "output height/width ", Ho, "/", Wo, " do not fit a 32-bit dimension");
  }
  const uint32_t out_dims[] = {N, static_cast<uint32_t>(Ho), static_cast<uint32_t>(Wo), Cout};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    std::vector<TapRange> rows(Ho), cols(Wo);
    for (uint64_t o = 0; o < Ho; ++o) rows[o] = valid_taps(o, stride[0], pt, dilation[0], KH, H);
    for (uint64_t o = 0; o < Wo; ++o) cols[o] = valid_taps(o, stride[1], pl, dilation[1], KW, W);
    const DepthWiseConv2dKernel::Geometry g{N, H, W, Cin, Ho, Wo, Cout, KW,
                                            stride[0], stride[1], pt, pl, dilation[0], dilation[1], has_bias};
    *kernel = std::make_unique<DepthWiseConv2dKernel>(g, std::move(rows), std::move(cols));
  }
  return Status::Ok();
}

}  // namespace

OpDef depthwise_conv2d_def() { return {"DepthWiseConv2d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
