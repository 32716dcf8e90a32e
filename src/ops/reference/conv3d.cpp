// Conv3d, NDHWC activations and filters [kd, kh, kw, Cin/group, Cout] (the
// DHWIO order of TransposeConv3d, with Conv2d's channel split):
//
//   y[n][od][oh][ow][g*Cg + c] = bias[g*Cg + c] + sum over kd, kh, kw, ci of
//     x[n][od*sd - pd + kd*dd][oh*sh - pt + kh*dh][ow*sw - pl + kw*dw][g*Cin_g + ci]
//       * w[kd][kh][kw][ci][g*Cg + c]
//
// with Cg = Cout/group, Cin_g = Cin/group; taps in the padding read 0. Per
// axis: out = floor((pad_begin + L + pad_end - ((k-1)*d + 1)) / s) + 1, as
// Conv2d.
#include <array>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr std::array<const char*, 3> kAxisName = {"depth", "height", "width"};

struct Geometry3d {
  size_t N = 0, Cin = 0, Cout = 0, group = 1;
  std::array<size_t, 3> in{}, out{}, k{}, stride{}, dilation{}, pad{};  // D, H, W; pad = pad_begin
  bool has_bias = false;
};

class Conv3dKernel final : public OpKernel {
 public:
  Conv3dKernel(const Geometry3d& g, std::array<std::vector<TapRange>, 3> taps) : g_(g), taps_(std::move(taps)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = static_cast<const float*>(in[1]);
    const float* bias = g_.has_bias ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t Cin = g_.Cin, Cout = g_.Cout;
    const size_t cin_g = Cin / g_.group, cout_g = Cout / g_.group;
    // As Conv2d: one output voxel at a time, the innermost loop over output
    // channels, contiguous in the output and in the filter row w[k...][ci][*].
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t od = 0; od < g_.out[0]; ++od) {
        const TapRange rd = taps_[0][od];
        for (size_t oh = 0; oh < g_.out[1]; ++oh) {
          const TapRange rh = taps_[1][oh];
          for (size_t ow = 0; ow < g_.out[2]; ++ow) {
            const TapRange rw = taps_[2][ow];
            float* yp = y + (((n * g_.out[0] + od) * g_.out[1] + oh) * g_.out[2] + ow) * Cout;
            for (size_t co = 0; co < Cout; ++co) yp[co] = bias ? bias[co] : 0.0f;
            for (size_t kd = rd.lo; kd < rd.hi; ++kd) {
              const size_t id = od * g_.stride[0] + kd * g_.dilation[0] - g_.pad[0];
              for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
                const size_t ih = oh * g_.stride[1] + kh * g_.dilation[1] - g_.pad[1];
                for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
                  const size_t iw = ow * g_.stride[2] + kw * g_.dilation[2] - g_.pad[2];
                  const float* xp = x + (((n * g_.in[0] + id) * g_.in[1] + ih) * g_.in[2] + iw) * Cin;
                  const float* wp = w + ((kd * g_.k[1] + kh) * g_.k[2] + kw) * cin_g * Cout;
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
    }
  }

 private:
  Geometry3d g_;
  std::array<std::vector<TapRange>, 3> taps_;  // valid taps per output position, per axis
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "filter", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"stride", "pad_amount", "group", "dilation", "reuse_sparse_indicies"}); !s.ok())
    return s;
  static constexpr uint32_t kDims3[] = {3};
  static constexpr uint32_t kDims3x2[] = {3, 2};
  static constexpr uint32_t kOnes[] = {1, 1, 1};
  std::vector<uint32_t> stride, pad, dilation;
  if (Status s = params.u32_tensor("stride", kDims3, {}, &stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", kDims3x2, {}, &pad); !s.ok()) return s;
  if (Status s = params.u32_tensor("dilation", kDims3, kOnes, &dilation); !s.ok()) return s;
  uint32_t group = 1;
  if (Status s = params.u32_scalar("group", 1u, &group); !s.ok()) return s;
  // A hint for sparse weights (reuse the previous node's sparsity indices);
  // a dense kernel has none to reuse, so either value computes the same.
  bool reuse_sparse = false;
  if (Status s = params.bool_scalar("reuse_sparse_indicies", false, &reuse_sparse); !s.ok()) return s;
  for (size_t i = 0; i < 3; ++i) {
    if (stride[i] == 0) return invalid(node, "parameter 'stride' element ", i, " is 0, expected >= 1");
    if (dilation[i] == 0) return invalid(node, "parameter 'dilation' element ", i, " is 0, expected >= 1");
  }
  if (group == 0) return invalid(node, "parameter 'group' is 0, expected >= 1");

  const TensorDesc& x = node.inputs[0];
  const TensorDesc& f = node.inputs[1];
  if (Status s = check_rank(node, x, in_label(0, "input"), 5, 5, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, f, in_label(1, "filter"), 5, 5, StatusCode::kInvalidArgument); !s.ok()) return s;
  const uint32_t N = x.dims[0], Cin = x.dims[4], Cout = f.dims[4];
  if (Cin % group != 0) {
    return invalid(node, "in[0] (input) channels Cin = ", Cin, " not divisible by parameter 'group' = ", group);
  }
  if (Cout % group != 0) {
    return invalid(node, "in[1] (filter) output channels Cout = dim 4 = ", Cout,
                   " not divisible by parameter 'group' = ", group);
  }
  if (f.dims[3] != Cin / group) {
    return invalid(node, "in[1] (filter) dim 3 is ", f.dims[3], ", expected Cin/group = ", Cin / group);
  }
  const bool has_bias = has_input(node, 2);
  if (has_bias) {
    const TensorDesc& bias = node.inputs[2];
    if (Status s = check_rank(node, bias, in_label(2, "bias"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (bias.dims[0] != Cout) {
      return invalid(node, "in[2] (bias) dim 0 is ", bias.dims[0], ", expected Cout = ", Cout);
    }
  }
  Geometry3d g;
  g.N = N;
  g.Cin = Cin;
  g.Cout = Cout;
  g.group = group;
  g.has_bias = has_bias;
  std::vector<uint32_t> out_dims = {N};
  for (size_t i = 0; i < 3; ++i) {
    const uint64_t eff = uint64_t{f.dims[i] - 1} * dilation[i] + 1;  // zero dims were refused above
    const uint64_t padded = uint64_t{pad[2 * i]} + x.dims[1 + i] + pad[2 * i + 1];
    if (eff > padded) {
      return invalid(node, "dilated filter ", kAxisName[i], " (k-1)*d+1 = ", eff, " exceeds padded input ",
                     kAxisName[i], " pad_begin+L+pad_end = ", padded);
    }
    const uint64_t o = (padded - eff) / stride[i] + 1;
    if (o > UINT32_MAX) return invalid(node, "output ", kAxisName[i], " ", o, " does not fit a 32-bit dimension");
    g.in[i] = x.dims[1 + i];
    g.out[i] = o;
    g.k[i] = f.dims[i];
    g.stride[i] = stride[i];
    g.dilation[i] = dilation[i];
    g.pad[i] = pad[2 * i];
    out_dims.push_back(static_cast<uint32_t>(o));
  }
  out_dims.push_back(Cout);
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    std::array<std::vector<TapRange>, 3> taps;
    for (size_t i = 0; i < 3; ++i) {
      taps[i].resize(g.out[i]);
      for (uint64_t o = 0; o < g.out[i]; ++o) {
        taps[i][o] = valid_taps(o, stride[i], pad[2 * i], dilation[i], f.dims[i], x.dims[1 + i]);
      }
    }
    *kernel = std::make_unique<Conv3dKernel>(g, std::move(taps));
  }
  return Status::Ok();
}

}  // namespace

OpDef conv3d_def() { return {"Conv3d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
