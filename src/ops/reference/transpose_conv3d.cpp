// TransposeConv3d (3-D deconvolution), NDHWC, filter [kd, kh, kw, Cin,
// Cout/group] (TransposeConv2d's layout with one more leading spatial axis).
// Input voxel (id, ih, iw) scatters into output
// (id*sd - pd + kd*dd, ih*sh - pt + kh*dh, iw*sw - pl + kw*dw); this kernel
// computes the equivalent gather:
//
//   y[n][od][oh][ow][g*Cg + c] = bias[g*Cg + c] + sum over kd, kh, kw, ci in
//     group g of x[n][id][ih][iw][ci] * w[kd][kh][kw][ci][c],
//     id = (od + pd - kd*dd) / sd  (likewise ih, iw)
//
// over the taps where the divisions are exact and the input position lies in
// the input; Cg = Cout/group. Per axis: out = s*(L-1) + d*(k-1) + 1 - begin -
// end + output_padding; output_padding only extends the end and must be <
// stride (as TransposeConv2d).
#include <array>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr std::array<const char*, 3> kAxisName = {"depth", "height", "width"};

// For one output position along one axis: the filter taps that reach it and
// the input position each reads.
struct Tap {
  uint32_t k;   // filter position along the axis
  uint32_t in;  // input position along the axis
};

// taps[offsets[o] .. offsets[o+1]) for output position o.
struct TapTable {
  std::vector<uint32_t> offsets;
  std::vector<Tap> taps;
};

TapTable build_taps(uint32_t out_size, uint32_t in_size, uint32_t k_size, uint32_t stride, uint32_t dilation,
                    uint32_t pad) {
  TapTable t;
  t.offsets.reserve(size_t{out_size} + 1);
  t.offsets.push_back(0);
  for (uint32_t o = 0; o < out_size; ++o) {
    for (uint32_t k = 0; k < k_size; ++k) {
      const int64_t pos = int64_t{o} + pad - int64_t{k} * dilation;  // = in * stride
      if (pos < 0 || pos % stride != 0) continue;
      const int64_t in = pos / stride;
      if (in >= in_size) continue;
      t.taps.push_back({k, static_cast<uint32_t>(in)});
    }
    t.offsets.push_back(static_cast<uint32_t>(t.taps.size()));
  }
  return t;
}

class TransposeConv3dKernel final : public OpKernel {
 public:
  struct Geometry {
    size_t N, D, H, W, Cin, Do, Ho, Wo, Cout, KH, KW, group;
    bool has_bias;
  };

  TransposeConv3dKernel(const Geometry& g, std::array<TapTable, 3> taps) : g_(g), taps_(std::move(taps)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = static_cast<const float*>(in[1]);
    const float* bias = g_.has_bias ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t cin_g = g_.Cin / g_.group, cout_g = g_.Cout / g_.group;
    const TapTable& td = taps_[0];
    const TapTable& th = taps_[1];
    const TapTable& tw = taps_[2];
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t od = 0; od < g_.Do; ++od) {
        for (size_t oh = 0; oh < g_.Ho; ++oh) {
          for (size_t ow = 0; ow < g_.Wo; ++ow) {
            float* yp = y + (((n * g_.Do + od) * g_.Ho + oh) * g_.Wo + ow) * g_.Cout;
            for (size_t co = 0; co < g_.Cout; ++co) yp[co] = bias ? bias[co] : 0.0f;
            for (uint32_t a = td.offsets[od]; a < td.offsets[od + 1]; ++a) {
              const Tap tap_d = td.taps[a];
              for (uint32_t b = th.offsets[oh]; b < th.offsets[oh + 1]; ++b) {
                const Tap tap_h = th.taps[b];
                for (uint32_t c = tw.offsets[ow]; c < tw.offsets[ow + 1]; ++c) {
                  const Tap tap_w = tw.taps[c];
                  const float* xp = x + (((n * g_.D + tap_d.in) * g_.H + tap_h.in) * g_.W + tap_w.in) * g_.Cin;
                  const float* wp =
                      w + ((size_t{tap_d.k} * g_.KH + tap_h.k) * g_.KW + tap_w.k) * g_.Cin * cout_g;
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
    }
  }

 private:
  Geometry g_;
  std::array<TapTable, 3> taps_;  // D, H, W
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "filter", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"stride", "pad_amount", "dilation", "group", "output_padding"}); !s.ok())
    return s;
  static constexpr uint32_t kDims3[] = {3};
  static constexpr uint32_t kDims3x2[] = {3, 2};
  static constexpr uint32_t kZeros[] = {0, 0, 0};
  static constexpr uint32_t kOnes[] = {1, 1, 1};
  std::vector<uint32_t> stride, pad, dilation, out_pad;
  if (Status s = params.u32_tensor("stride", kDims3, {}, &stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", kDims3x2, {}, &pad); !s.ok()) return s;
  if (Status s = params.u32_tensor("dilation", kDims3, kOnes, &dilation); !s.ok()) return s;
  if (Status s = params.u32_tensor("output_padding", kDims3, kZeros, &out_pad); !s.ok()) return s;
  uint32_t group = 1;
  if (Status s = params.u32_scalar("group", 1u, &group); !s.ok()) return s;
  for (size_t i = 0; i < 3; ++i) {
    if (stride[i] == 0) return invalid(node, "parameter 'stride' element ", i, " is 0, expected >= 1");
    if (dilation[i] == 0) return invalid(node, "parameter 'dilation' element ", i, " is 0, expected >= 1");
    if (out_pad[i] >= stride[i]) {
      return invalid(node, "parameter 'output_padding' element ", i, " is ", out_pad[i],
                     ", expected < stride ", stride[i]);
    }
  }
  if (group == 0) return invalid(node, "parameter 'group' is 0, expected >= 1");

  const TensorDesc& x = node.inputs[0];
  const TensorDesc& f = node.inputs[1];
  if (Status s = check_rank(node, x, in_label(0, "input"), 5, 5, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (Status s = check_rank(node, f, in_label(1, "filter"), 5, 5, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t N = x.dims[0], Cin = x.dims[4];
  if (Cin % group != 0) {
    return invalid(node, "in[0] (input) channels Cin = ", Cin, " not divisible by parameter 'group' = ", group);
  }
  if (f.dims[3] != Cin) return invalid(node, "in[1] (filter) dim 3 is ", f.dims[3], ", expected Cin = ", Cin);
  const uint64_t cout64 = uint64_t{f.dims[4]} * group;
  if (cout64 > UINT32_MAX) return invalid(node, "output channels Cout = ", cout64, " do not fit 32 bits");
  const uint32_t Cout = static_cast<uint32_t>(cout64);
  const bool has_bias = has_input(node, 2);
  if (has_bias) {
    const TensorDesc& bias = node.inputs[2];
    if (Status s = check_rank(node, bias, in_label(2, "bias"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (bias.dims[0] != Cout) {
      return invalid(node, "in[2] (bias) dim 0 is ", bias.dims[0], ", expected Cout = group * in[1] dim 4 = ", Cout);
    }
  }
  std::array<int64_t, 3> out_size{};
  for (size_t i = 0; i < 3; ++i) {
    const int64_t L = x.dims[1 + i], k = f.dims[i];
    out_size[i] = int64_t{stride[i]} * (L - 1) + int64_t{dilation[i]} * (k - 1) + 1 - pad[2 * i] - pad[2 * i + 1] +
                  out_pad[i];
    if (out_size[i] < 1) {
      return invalid(node, "output ", kAxisName[i], " s*(L-1)+d*(k-1)+1-pad_begin-pad_end+output_padding = ",
                     out_size[i], ", expected >= 1 (padding larger than the full output)");
    }
    if (out_size[i] > UINT32_MAX) {
      return invalid(node, "output ", kAxisName[i], " ", out_size[i], " does not fit a 32-bit dimension");
    }
  }
  const uint32_t out_dims[] = {N, static_cast<uint32_t>(out_size[0]), static_cast<uint32_t>(out_size[1]),
                               static_cast<uint32_t>(out_size[2]), Cout};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    std::array<TapTable, 3> taps;
    for (size_t i = 0; i < 3; ++i) {
      taps[i] = build_taps(static_cast<uint32_t>(out_size[i]), x.dims[1 + i], f.dims[i], stride[i], dilation[i],
                           pad[2 * i]);
    }
    const TransposeConv3dKernel::Geometry g{N,
                                            x.dims[1],
                                            x.dims[2],
                                            x.dims[3],
                                            Cin,
                                            static_cast<size_t>(out_size[0]),
                                            static_cast<size_t>(out_size[1]),
                                            static_cast<size_t>(out_size[2]),
                                            Cout,
                                            f.dims[1],
                                            f.dims[2],
                                            group,
                                            has_bias};
    *kernel = std::make_unique<TransposeConv3dKernel>(g, std::move(taps));
  }
  return Status::Ok();
}

}  // namespace

OpDef transpose_conv3d_def() { return {"TransposeConv3d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
