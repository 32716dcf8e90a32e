#include "ops/transpose_conv_geometry.h"

#include <string_view>
#include <vector>

#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops {

using detail::check_io_count;
using detail::check_output_dims;
using detail::check_rank;
using detail::has_input;
using detail::in_label;
using detail::invalid;
using detail::ParamReader;

namespace {

constexpr std::array<const char*, 3> kAxisName = {"depth", "height", "width"};

template <size_t kSpatial>
Status read_geometry(const NodeDesc& node, TransposeConvGeometry* g) {
  constexpr bool kIs3d = kSpatial == 3;
  constexpr uint32_t kRank = kSpatial + 2;
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
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


  g->N = N;
  g->Cin = Cin;
  g->Cout = Cout;
  g->group = group;
  g->spatial = kSpatial;
  g->has_bias = has_bias;
  for (size_t j = 0; j < kSpatial; ++j) {
    TransposeConvAxis& a = g->axes[kFirst + j];
    a.in = x.dims[1 + j];
    a.out = static_cast<uint32_t>(out_size[kFirst + j]);
    a.k = f.dims[j];
    a.stride = stride[j];
    a.dilation = dilation[j];
    a.pad_begin = pad[2 * j];
    a.pad_end = pad[2 * j + 1];
    a.out_pad = out_pad[j];
  }
  return Status::Ok();
}

}  // namespace

Status read_transpose_conv2d_geometry(const NodeDesc& node, TransposeConvGeometry* g) {
  return read_geometry<2>(node, g);
}
Status read_transpose_conv3d_geometry(const NodeDesc& node, TransposeConvGeometry* g) {
  return read_geometry<3>(node, g);
}

}  // namespace openhtp::ops
