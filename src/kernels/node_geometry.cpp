#include "kernels/node_geometry.h"

#include "ops/param_reader.h"

namespace openhtp::kernels {

using ops::detail::ParamReader;

bool read_conv_geometry(const ops::NodeDesc& node, ConvGeometry* g) {
  if (node.inputs.size() < 2 || node.outputs.size() != 1) return false;
  const auto& x = node.inputs[0].dims;
  const auto& f = node.inputs[1].dims;
  const auto& y = node.outputs[0].dims;
  if (x.size() != 4 || f.size() != 4 || y.size() != 4) return false;
  ParamReader params(node);
  static constexpr uint32_t kDims2[] = {2};
  static constexpr uint32_t kDims2x2[] = {2, 2};
  static constexpr uint32_t kOnes[] = {1, 1};
  std::vector<uint32_t> stride, pad, dilation;
  if (!params.u32_tensor("stride", kDims2, {}, &stride).ok()) return false;
  if (!params.u32_tensor("pad_amount", kDims2x2, {}, &pad).ok()) return false;
  if (!params.u32_tensor("dilation", kDims2, kOnes, &dilation).ok()) return false;
  uint32_t group = 1;
  if (node.type == "DepthWiseConv2d") {
    group = x[3];
  } else if (!params.u32_scalar("group", 1u, &group).ok()) {
    return false;
  }
  *g = ConvGeometry{x[0], x[1], x[2], x[3], f[0], f[1], f[3], y[1], y[2], stride[0], stride[1],
                    dilation[0], dilation[1], pad[0], pad[1], pad[2], pad[3], group,
                    node.inputs.size() > 2 && node.inputs[2].present};
  return group > 0 && g->Cin % group == 0 && g->Cout % group == 0 && f[2] == g->Cin / group;
}

bool read_pool_geometry(const ops::NodeDesc& node, PoolGeometry* g) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const auto& x = node.inputs[0].dims;
  const auto& y = node.outputs[0].dims;
  if (x.size() != 4 || y.size() != 4) return false;
  ParamReader params(node);
  static constexpr uint32_t kDims2[] = {2};
  static constexpr uint32_t kDims2x2[] = {2, 2};
  std::vector<uint32_t> filter, stride, pad;
  if (!params.u32_tensor("filter_size", kDims2, {}, &filter).ok()) return false;
  if (!params.u32_tensor("stride", kDims2, {}, &stride).ok()) return false;
  if (!params.u32_tensor("pad_amount", kDims2x2, {}, &pad).ok()) return false;
  bool count_pad = false;
  if (node.find_param("count_pad_for_edges") != nullptr &&
      !params.bool_scalar("count_pad_for_edges", false, &count_pad).ok()) {
    return false;
  }
  *g = PoolGeometry{x[0], x[1], x[2], x[3], y[1], y[2], filter[0], filter[1], stride[0], stride[1],
                    pad[0], pad[1], pad[2], pad[3], pad[1], pad[3], count_pad};
  // Extra bottom/right padding so that floor((H + pt + pb_eff - fh) / sh) + 1 == Ho.
  const uint64_t need_h = uint64_t{g->Ho - 1} * g->sh + g->fh;  // padded height the output reads
  const uint64_t need_w = uint64_t{g->Wo - 1} * g->sw + g->fw;
  const uint64_t have_h = uint64_t{g->pt} + g->H + g->pb;
  const uint64_t have_w = uint64_t{g->pl} + g->W + g->pr;
  if (need_h > have_h) g->pb_eff = static_cast<uint32_t>(g->pb + (need_h - have_h));
  if (need_w > have_w) g->pr_eff = static_cast<uint32_t>(g->pr + (need_w - have_w));
  return g->fh > 0 && g->fw > 0 && g->sh > 0 && g->sw > 0;
}

}  // namespace openhtp::kernels
