// TransposeConv2d (deconvolution), NHWC, filter [kh, kw, Cin, Cout/group].
// Input pixel (ih, iw) scatters into output (ih*sh - pt + kh, iw*sw - pl + kw);
// this kernel computes the equivalent gather:
//
//   y[n][oh][ow][g*Cg + c] = bias[g*Cg + c] + sum over kh, kw, ci in group g of
//     x[n][ih][iw][ci] * w[kh][kw][ci][c],   ih = (oh + pt - kh) / sh,
//                                            iw = (ow + pl - kw) / sw
//
// over the taps where the divisions are exact and (ih, iw) lies in the input;
// Cg = Cout/group. Ho = sh*(H-1) + kh - pt - pb + output_padding_h (likewise
// Wo); output_padding only extends the bottom/right edge and must be < stride.
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

// For one output row (or column): the filter taps that reach it and the input
// row each reads.
struct Tap {
  uint32_t k;   // filter row / column
  uint32_t in;  // input row / column
};

// taps[offsets[o] .. offsets[o+1]) for output position o.
struct TapTable {
  std::vector<uint32_t> offsets;
  std::vector<Tap> taps;
};

TapTable build_taps(uint32_t out_size, uint32_t in_size, uint32_t k_size, uint32_t stride, uint32_t pad) {
  TapTable t;
  t.offsets.reserve(size_t{out_size} + 1);
  t.offsets.push_back(0);
  for (uint32_t o = 0; o < out_size; ++o) {
    for (uint32_t k = 0; k < k_size; ++k) {
      const int64_t pos = int64_t{o} + pad - k;  // = in * stride
      if (pos < 0 || pos % stride != 0) continue;
      const int64_t in = pos / stride;
      if (in >= in_size) continue;
      t.taps.push_back({k, static_cast<uint32_t>(in)});
    }
    t.offsets.push_back(static_cast<uint32_t>(t.taps.size()));
  }
  return t;
}

class TransposeConv2dKernel final : public OpKernel {
 public:
  struct Geometry {
    size_t N, H, W, Cin, Ho, Wo, Cout, KW, group;
    bool has_bias;
  };

  TransposeConv2dKernel(const Geometry& g, TapTable rows, TapTable cols)
      : g_(g), rows_(std::move(rows)), cols_(std::move(cols)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = static_cast<const float*>(in[1]);
    const float* bias = g_.has_bias ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t cin_g = g_.Cin / g_.group, cout_g = g_.Cout / g_.group;
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t oh = 0; oh < g_.Ho; ++oh) {
        for (size_t ow = 0; ow < g_.Wo; ++ow) {
          float* yp = y + ((n * g_.Ho + oh) * g_.Wo + ow) * g_.Cout;
          for (size_t co = 0; co < g_.Cout; ++co) yp[co] = bias ? bias[co] : 0.0f;
          for (uint32_t r = rows_.offsets[oh]; r < rows_.offsets[oh + 1]; ++r) {
            const Tap th = rows_.taps[r];
            for (uint32_t c = cols_.offsets[ow]; c < cols_.offsets[ow + 1]; ++c) {
              const Tap tw = cols_.taps[c];
              const float* xp = x + ((n * g_.H + th.in) * g_.W + tw.in) * g_.Cin;
              const float* wp = w + (size_t{th.k} * g_.KW + tw.k) * g_.Cin * cout_g;
              for (size_t grp = 0; grp < g_.group; ++grp) {
                float* yg = yp + grp * cout_g;
                for (size_t ci = grp * cin_g; ci < (grp + 1) * cin_g; ++ci) {
                  const float xv = xp[ci];
                  const float* wr = wp + ci * cout_g;
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
  Geometry g_;
  TapTable rows_, cols_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "filter", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"stride", "pad_amount", "group", "output_padding"}); !s.ok()) return s;
  static constexpr uint32_t kDims2[] = {2};
  static constexpr uint32_t kDims2x2[] = {2, 2};
  static constexpr uint32_t kZeros[] = {0, 0};
  std::vector<uint32_t> stride, pad, out_pad;
  if (Status s = params.u32_tensor("stride", kDims2, {}, &stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", kDims2x2, {}, &pad); !s.ok()) return s;
  if (Status s = params.u32_tensor("output_padding", kDims2, kZeros, &out_pad); !s.ok()) return s;
  uint32_t group = 1;
  if (Status s = params.u32_scalar("group", 1u, &group); !s.ok()) return s;
  for (size_t i = 0; i < 2; ++i) {
    if (stride[i] == 0) return invalid(node, "parameter 'stride' element ", i, " is 0, expected >= 1");
    if (out_pad[i] >= stride[i]) {
      return invalid(node, "parameter 'output_padding' element ", i, " is ", out_pad[i],
                     ", expected < stride ", stride[i]);
    }
  }
  if (group == 0) return invalid(node, "parameter 'group' is 0, expected >= 1");

  const TensorDesc& x = node.inputs[0];
  const TensorDesc& f = node.inputs[1];
  if (Status s = check_rank(node, x, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (Status s = check_rank(node, f, in_label(1, "filter"), 4, 4, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t N = x.dims[0], H = x.dims[1], W = x.dims[2], Cin = x.dims[3];
  const uint32_t KH = f.dims[0], KW = f.dims[1];
  if (Cin % group != 0) {
    return invalid(node, "in[0] (input) channels Cin = ", Cin, " not divisible by parameter 'group' = ", group);
  }
  if (f.dims[2] != Cin) return invalid(node, "in[1] (filter) dim 2 is ", f.dims[2], ", expected Cin = ", Cin);
  const uint64_t cout64 = uint64_t{f.dims[3]} * group;
  if (cout64 > UINT32_MAX) return invalid(node, "output channels Cout = ", cout64, " do not fit 32 bits");
  const uint32_t Cout = static_cast<uint32_t>(cout64);
  const bool has_bias = has_input(node, 2);
  if (has_bias) {
    const TensorDesc& bias = node.inputs[2];
    if (Status s = check_rank(node, bias, in_label(2, "bias"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (bias.dims[0] != Cout) {
      return invalid(node, "in[2] (bias) dim 0 is ", bias.dims[0], ", expected Cout = group * in[1] dim 3 = ", Cout);
    }
  }
  const uint32_t pt = pad[0], pb = pad[1], pl = pad[2], pr = pad[3];
  const int64_t Ho = int64_t{stride[0]} * (H - 1) + KH - pt - pb + out_pad[0];
  const int64_t Wo = int64_t{stride[1]} * (W - 1) + KW - pl - pr + out_pad[1];
  if (Ho < 1 || Wo < 1) {
    return invalid(node, "output height/width sh*(H-1)+kh-pt-pb+oph = ", Ho, " / ", Wo,
                   ", expected >= 1 (padding larger than the full output)");
  }
  if (Ho > UINT32_MAX || Wo > UINT32_MAX) {
    return invalid(node, "output height/width ", Ho, "/", Wo, " do not fit a 32-bit dimension");
  }
  const uint32_t out_dims[] = {N, static_cast<uint32_t>(Ho), static_cast<uint32_t>(Wo), Cout};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    TapTable rows = build_taps(static_cast<uint32_t>(Ho), H, KH, stride[0], pt);
    TapTable cols = build_taps(static_cast<uint32_t>(Wo), W, KW, stride[1], pl);
    const TransposeConv2dKernel::Geometry g{N, H, W, Cin, static_cast<size_t>(Ho), static_cast<size_t>(Wo),
                                            Cout, KW, group, has_bias};
    *kernel = std::make_unique<TransposeConv2dKernel>(g, std::move(rows), std::move(cols));
  }
  return Status::Ok();
}

}  // namespace

OpDef transpose_conv2d_def() { return {"TransposeConv2d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
