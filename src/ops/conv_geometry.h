// The typed parameters of Conv2d and DepthWiseConv2d: shapes, stride,
// padding, dilation and groups, read and checked once from a node
// (prepare_node does it, see parsed_params.h) and then consumed as they are
// by the reference kernels and by every fast path (src/kernels), so the
// QNN parameters are read in exactly one place.
#pragma once

#include <cstdint>

#include "ops/op.h"

namespace openhtp::ops {

// NHWC input [N,H,W,Cin], HWIO filter [KH,KW,Cin/group,Cout], output
// [N,Ho,Wo,Cout]. A DepthWiseConv2d is described as the Conv2d it is: group
// = Cin, one input channel per group, so its filter [KH,KW,1,Cout] is HWIO
// too and a kernel that handles groups handles it unchanged.
struct ConvGeometry {
  uint32_t N = 0, H = 0, W = 0, Cin = 0, KH = 0, KW = 0, Cout = 0, Ho = 0, Wo = 0;
  uint32_t sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pb = 0, pl = 0, pr = 0, group = 1;
  bool has_bias = false;  // in[2] given and not a NULL tensor
  uint32_t cin_g() const { return Cin / group; }
  uint32_t cout_g() const { return Cout / group; }
};

// Read and check the node's parameters (names, values), its tensor ranks,
// channel counts and bias length, and its output dims; each broken rule is
// reported as kInvalidArgument with the wording the op has always used.
// Data types are not looked at: those rules belong to the reference prepare
// and the type adapter, and a geometry is the same for a quantized node and
// its float twin.
Status read_conv2d_geometry(const NodeDesc& node, ConvGeometry* g);
Status read_depthwise_conv2d_geometry(const NodeDesc& node, ConvGeometry* g);

}  // namespace openhtp::ops
