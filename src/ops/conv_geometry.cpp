#include "ops/conv_geometry.h"

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

// stride, pad_amount and dilation, which both ops share: read first, checked
// by set_window (Conv2d reads its group in between, as it always has).
struct Window {
  std::vector<uint32_t> stride, pad, dilation;
};

Status read_window(const ParamReader& params, Window* w) {
  static constexpr uint32_t kDims2[] = {2};
  static constexpr uint32_t kDims2x2[] = {2, 2};
  static constexpr uint32_t kOnes[] = {1, 1};
  if (Status s = params.u32_tensor("stride", kDims2, {}, &w->stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", kDims2x2, {}, &w->pad); !s.ok()) return s;
  return params.u32_tensor("dilation", kDims2, kOnes, &w->dilation);
}

Status set_window(const NodeDesc& node, const Window& w, ConvGeometry* g) {
  for (size_t i = 0; i < 2; ++i) {
    if (w.stride[i] == 0) return invalid(node, "parameter 'stride' element ", i, " is 0, expected >= 1");
    if (w.dilation[i] == 0) return invalid(node, "parameter 'dilation' element ", i, " is 0, expected >= 1");
  }
  g->sh = w.stride[0];
  g->sw = w.stride[1];
  g->dh = w.dilation[0];
  g->dw = w.dilation[1];
  g->pt = w.pad[0];
  g->pb = w.pad[1];
  g->pl = w.pad[2];
  g->pr = w.pad[3];
  return Status::Ok();
}

// Input and filter ranks; fills the shape fields.
Status read_shapes(const NodeDesc& node, ConvGeometry* g) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& f = node.inputs[1];
  if (Status s = check_rank(node, x, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, f, in_label(1, "filter"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  g->N = x.dims[0];
  g->H = x.dims[1];
  g->W = x.dims[2];
  g->Cin = x.dims[3];
  g->KH = f.dims[0];
  g->KW = f.dims[1];
  g->Cout = f.dims[3];
  return Status::Ok();
}

// The bias length, the output size and the output dims.
Status finish(const NodeDesc& node, ConvGeometry* g) {
  g->has_bias = has_input(node, 2);
  if (g->has_bias) {
    const TensorDesc& bias = node.inputs[2];
    if (Status s = check_rank(node, bias, in_label(2, "bias"), 1, 1, StatusCode::kInvalidArgument); !s.ok()) return s;
    if (bias.dims[0] != g->Cout) {
      return invalid(node, "in[2] (bias) dim 0 is ", bias.dims[0], ", expected Cout = ", g->Cout);
    }
  }
  // Output size: floor((pt + H + pb - ((k-1)*d + 1)) / s) + 1, in 64 bits.
  // (A zero KH wraps KH - 1 to a huge height, refused below; the reference
  // prepare refuses zero dims before it gets here anyway.)
  const uint64_t eff_h = uint64_t{g->KH - 1} * g->dh + 1;
  const uint64_t eff_w = uint64_t{g->KW - 1} * g->dw + 1;
  const uint64_t padded_h = uint64_t{g->pt} + g->H + g->pb;
  const uint64_t padded_w = uint64_t{g->pl} + g->W + g->pr;
  if (eff_h > padded_h) {
    return invalid(node, "dilated filter height (kh-1)*dh+1 = ", eff_h,
                   " exceeds padded input height pt+H+pb = ", padded_h);
  }
  if (eff_w > padded_w) {
    return invalid(node, "dilated filter width (kw-1)*dw+1 = ", eff_w,
                   " exceeds padded input width pl+W+pr = ", padded_w);
  }
  const uint64_t Ho = (padded_h - eff_h) / g->sh + 1;
  const uint64_t Wo = (padded_w - eff_w) / g->sw + 1;
  if (Ho > UINT32_MAX || Wo > UINT32_MAX) {
    return invalid(node, "output height/width ", Ho, "/", Wo, " do not fit a 32-bit dimension");
  }
  g->Ho = static_cast<uint32_t>(Ho);
  g->Wo = static_cast<uint32_t>(Wo);
  const uint32_t out_dims[] = {g->N, g->Ho, g->Wo, g->Cout};
  return check_output_dims(node, 0, out_dims);
}

}  // namespace

Status read_conv2d_geometry(const NodeDesc& node, ConvGeometry* g) {
  *g = ConvGeometry{};
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"stride", "pad_amount", "group", "dilation"}); !s.ok()) return s;
  // The reading order (and so which of several broken rules is reported)
  // is the order the op has always checked them in.
  Window w;
  if (Status s = read_window(params, &w); !s.ok()) return s;
  uint32_t group = 1;
  if (Status s = params.u32_scalar("group", 1u, &group); !s.ok()) return s;
  if (Status s = set_window(node, w, g); !s.ok()) return s;
  if (group == 0) return invalid(node, "parameter 'group' is 0, expected >= 1");
  g->group = group;
  if (Status s = read_shapes(node, g); !s.ok()) return s;
  if (g->Cin % group != 0) {
    return invalid(node, "in[0] (input) channels Cin = ", g->Cin, " not divisible by parameter 'group' = ", group);
  }
  if (g->Cout % group != 0) {
    return invalid(node, "in[1] (filter) output channels Cout = dim 3 = ", g->Cout,
                   " not divisible by parameter 'group' = ", group);
  }
  const uint32_t f2 = node.inputs[1].dims[2];
  if (f2 != g->Cin / group) return invalid(node, "in[1] (filter) dim 2 is ", f2, ", expected Cin/group = ", g->Cin / group);
  return finish(node, g);
}

Status read_depthwise_conv2d_geometry(const NodeDesc& node, ConvGeometry* g) {
  *g = ConvGeometry{};
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"stride", "pad_amount", "dilation"}); !s.ok()) return s;
  Window w;
  if (Status s = read_window(params, &w); !s.ok()) return s;
  if (Status s = set_window(node, w, g); !s.ok()) return s;
  if (Status s = read_shapes(node, g); !s.ok()) return s;
  const uint32_t f2 = node.inputs[1].dims[2];
  if (f2 != 1) return invalid(node, "in[1] (filter) dim 2 is ", f2, ", expected 1");
  // The reference prepare refuses zero dims first; this only keeps the
  // modulo below defined for a caller that reads the geometry on its own.
  if (g->Cin == 0) return invalid(node, "in[0] (input) channels Cin is 0");
  if (g->Cout % g->Cin != 0) {
    return invalid(node, "in[1] (filter) output channels Cout = dim 3 = ", g->Cout,
                   " is not a multiple of in[0] (input) channels Cin = ", g->Cin);
  }
  g->group = g->Cin;
  return finish(node, g);
}

}  // namespace openhtp::ops
