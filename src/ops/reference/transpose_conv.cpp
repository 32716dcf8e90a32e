// TransposeConv2d (NHWC, filter [kh, kw, Cin, Cout/group]) and
// TransposeConv3d (NDHWC, filter [kd, kh, kw, Cin, Cout/group]): the
// deconvolution. Input position i scatters along each spatial axis into
// output i*s - pad_begin + k*d; this kernel computes the equivalent gather:
//
//   y[n][o...][g*Cg + c] = bias[g*Cg + c] + sum over filter taps k... and ci
//     in group g of x[n][i...][ci] * w[k...][ci][c],   i = (o + pad_begin - k*d) / s
//
// over the taps where the divisions are exact and the input position lies in
// the input; Cg = Cout/group. Per axis: out = s*(L-1) + d*(k-1) + 1 -
// pad_begin - pad_end + output_padding; output_padding only extends the end
// and must be < stride. TransposeConv2d has no dilation parameter (d = 1);
// it runs as the 3-D kernel with depth 1.
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

// taps[offsets[o] .. offsets[o+1]) for output position o. The default is
// the depth axis of a 2-D op: one output, one tap.
struct TapTable {
  std::vector<uint32_t> offsets{0, 1};
  std::vector<Tap> taps{Tap{0, 0}};
};

TapTable build_taps(uint32_t out_size, uint32_t in_size, uint32_t k_size, uint32_t stride, uint32_t dilation,
                    uint32_t pad) {
  TapTable t;
  t.offsets.assign(1, 0);
  t.taps.clear();
  t.offsets.reserve(size_t{out_size} + 1);
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

class TransposeConvKernel final : public OpKernel {
 public:
  struct Geometry {
    size_t N, Cin, Cout, group;
    std::array<size_t, 3> in, out, k;  // D, H, W (D = 1 for a 2-D op)
    bool has_bias;
  };

  TransposeConvKernel(const Geometry& g, std::array<TapTable, 3> taps) : g_(g), taps_(std::move(taps)) {}

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
      for (size_t od = 0; od < g_.out[0]; ++od) {
        for (size_t oh = 0; oh < g_.out[1]; ++oh) {
          for (size_t ow = 0; ow < g_.out[2]; ++ow) {
            float* yp = y + (((n * g_.out[0] + od) * g_.out[1] + oh) * g_.out[2] + ow) * g_.Cout;
            for (size_t co = 0; co < g_.Cout; ++co) yp[co] = bias ? bias[co] : 0.0f;
            for (uint32_t a = td.offsets[od]; a < td.offsets[od + 1]; ++a) {
              const Tap tap_d = td.taps[a];
              for (uint32_t b = th.offsets[oh]; b < th.offsets[oh + 1]; ++b) {
                const Tap tap_h = th.taps[b];
                for (uint32_t c = tw.offsets[ow]; c < tw.offsets[ow + 1]; ++c) {
                  const Tap tap_w = tw.taps[c];
                  const float* xp =
                      x + (((n * g_.in[0] + tap_d.in) * g_.in[1] + tap_h.in) * g_.in[2] + tap_w.in) * g_.Cin;
                  const float* wp =
                      w + ((size_t{tap_d.k} * g_.k[1] + tap_h.k) * g_.k[2] + tap_w.k) * g_.Cin * cout_g;
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

template <size_t kSpatial>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  constexpr bool kIs3d = kSpatial == 3;
  constexpr uint32_t kRank = kSpatial + 2;
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "filter", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = kIs3d ? params.check_names({"stride", "pad_amount", "dilation", "group", "output_padding"})
                       : params.check_names({"stride", "pad_amount", "group", "output_padding"});
      !s.ok())
    return s;
  static constexpr uint32_t kDims[] = {kSpatial};
  static constexpr uint32_t kDimsX2[] = {kSpatial, 2};
  static constexpr uint32_t kZeros[] = {0, 0, 0};
  static constexpr uint32_t kOnes[] = {1, 1, 1};
  std::vector<uint32_t> stride, pad, out_pad, dilation(kOnes, kOnes + kSpatial);
  if (Status s = params.u32_tensor("stride", kDims, {}, &stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", kDimsX2, {}, &pad); !s.ok()) return s;
  if constexpr (kIs3d) {
    if (Status s = params.u32_tensor("dilation", kDims, std::span(kOnes, kSpatial), &dilation); !s.ok()) return s;
  }
  if (Status s = params.u32_tensor("output_padding", kDims, std::span(kZeros, kSpatial), &out_pad); !s.ok())
    return s;
  uint32_t group = 1;
  if (Status s = params.u32_scalar("group", 1u, &group); !s.ok()) return s;
  for (size_t i = 0; i < kSpatial; ++i) {
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
  if (Status s = check_rank(node, x, in_label(0, "input"), kRank, kRank, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (Status s = check_rank(node, f, in_label(1, "filter"), kRank, kRank, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t N = x.dims[0], Cin = x.dims[kRank - 1];
  if (Cin % group != 0) {
    return invalid(node, "in[0] (input) channels Cin = ", Cin, " not divisible by parameter 'group' = ", group);
  }
  if (f.dims[kSpatial] != Cin) {
    return invalid(node, "in[1] (filter) dim ", kSpatial, " is ", f.dims[kSpatial], ", expected Cin = ", Cin);
  }
  const uint64_t cout64 = uint64_t{f.dims[kSpatial + 1]} * group;
  if (cout64 > UINT32_MAX) return invalid(node, "output channels Cout = ", cout64, " do not fit 32 bits");
  const uint32_t Cout = static_cast<uint32_t>(cout64);
  const bool has_bias = has_input(node, 2);
  if (has_bias) {
    const TensorDesc& bias = node.inputs[2];
    if (Status s = check_rank(node, bias, in_label(2, "bias"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (bias.dims[0] != Cout) {
      return invalid(node, "in[2] (bias) dim 0 is ", bias.dims[0], ", expected Cout = group * in[1] dim ",
                     kSpatial + 1, " = ", Cout);
    }
  }
  constexpr size_t kFirst = 3 - kSpatial;  // axes[kFirst..2] are the op's spatial axes
  std::array<int64_t, 3> out_size{1, 1, 1};
  for (size_t j = 0; j < kSpatial; ++j) {
    const int64_t L = x.dims[1 + j], k = f.dims[j];
    out_size[kFirst + j] = int64_t{stride[j]} * (L - 1) + int64_t{dilation[j]} * (k - 1) + 1 - pad[2 * j] -
                           pad[2 * j + 1] + out_pad[j];
  }
  for (size_t i = kFirst; i < 3; ++i) {
    if (out_size[i] < 1) {
      if constexpr (!kIs3d) {  // the 2-D op's message names both axes
        return invalid(node, "output height/width sh*(H-1)+kh-pt-pb+oph = ", out_size[1], " / ", out_size[2],
                       ", expected >= 1 (padding larger than the full output)");
      }
      return invalid(node, "output ", kAxisName[i], " s*(L-1)+d*(k-1)+1-pad_begin-pad_end+output_padding = ",
                     out_size[i], ", expected >= 1 (padding larger than the full output)");
    }
    if (out_size[i] > UINT32_MAX) {
      return invalid(node, "output ", kAxisName[i], " ", out_size[i], " does not fit a 32-bit dimension");
    }
  }
  std::vector<uint32_t> out_dims = {N};
  for (size_t i = kFirst; i < 3; ++i) out_dims.push_back(static_cast<uint32_t>(out_size[i]));
  out_dims.push_back(Cout);
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    TransposeConvKernel::Geometry g{N, Cin, Cout, group, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, has_bias};
    std::array<TapTable, 3> taps;
    for (size_t j = 0; j < kSpatial; ++j) {
      const size_t i = kFirst + j;
      g.in[i] = x.dims[1 + j];
      g.out[i] = static_cast<size_t>(out_size[i]);
      g.k[i] = f.dims[j];
      taps[i] = build_taps(static_cast<uint32_t>(out_size[i]), x.dims[1 + j], f.dims[j], stride[j], dilation[j],
                           pad[2 * j]);
    }
    *kernel = with_epilogue(node, std::make_unique<TransposeConvKernel>(g, std::move(taps)));
  }
  return Status::Ok();
}

}  // namespace

OpDef transpose_conv2d_def() {
  return {"TransposeConv2d", &guarded_prepare<prepare<2>>, op_flags::kAdaptTypes};
}
OpDef transpose_conv3d_def() {
  return {"TransposeConv3d", &guarded_prepare<prepare<3>>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
