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
#include "ops/parsed_params.h"
#include "ops/transpose_conv_geometry.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

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

template <size_t kSpatial, Status (*Read)(const NodeDesc&, TransposeConvGeometry*)>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "filter", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  // Parameters, ranks, channels, bias and output dims:
  // transpose_conv_geometry.cpp, read once by prepare_node.
  TransposeConvGeometry local;
  const TransposeConvGeometry* tg = nullptr;
  if (Status s = geometry_of<TransposeConvGeometry, Read>(node, &local, &tg); !s.ok()) return s;

  if (kernel) {
    TransposeConvKernel::Geometry g{tg->N, tg->Cin, tg->Cout, tg->group, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, tg->has_bias};
    std::array<TapTable, 3> taps;
    for (size_t i = 3 - kSpatial; i < 3; ++i) {
      const TransposeConvAxis& a = tg->axes[i];
      g.in[i] = a.in;
      g.out[i] = a.out;
      g.k[i] = a.k;
      taps[i] = build_taps(a.out, a.in, a.k, a.stride, a.dilation, a.pad_begin);
    }
    *kernel = with_epilogue(node, std::make_unique<TransposeConvKernel>(g, std::move(taps)));
  }
  return Status::Ok();
}

}  // namespace

OpDef transpose_conv2d_def() {
  return {"TransposeConv2d", &guarded_prepare<prepare<2, read_transpose_conv2d_geometry>>, op_flags::kAdaptTypes,
          &parse_as<TransposeConvGeometry, read_transpose_conv2d_geometry>};
}
OpDef transpose_conv3d_def() {
  return {"TransposeConv3d", &guarded_prepare<prepare<3, read_transpose_conv3d_geometry>>, op_flags::kAdaptTypes,
          &parse_as<TransposeConvGeometry, read_transpose_conv3d_geometry>};
}

}  // namespace openhtp::ops::detail
