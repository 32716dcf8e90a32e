// The typed parameters of TransposeConv2d and TransposeConv3d: shapes,
// stride, padding, output_padding, dilation (3-D only) and groups, read and
// checked once from a node (prepare_node does it, see parsed_params.h) and
// consumed as they are by the reference kernel and the oneDNN deconvolution
// (src/kernels), so the QNN parameters are read in one place.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "ops/op.h"

namespace openhtp::ops {

// One spatial axis: input position i scatters into output positions
// i * stride - pad_begin + k * dilation. Per axis, out = stride * (in - 1) +
// dilation * (k - 1) + 1 - pad_begin - pad_end + out_pad; out_pad only
// extends the end and is < stride.
struct TransposeConvAxis {
  uint32_t in = 1, out = 1, k = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0, out_pad = 0;
};

// Input [N, (D,) H, W, Cin], filter [(kd,) kh, kw, Cin, Cout/group], output
// [N, (Do,) Ho, Wo, Cout]. A 2-D op has a leading depth axis of size 1 (one
// tap), so one description serves both ranks.
struct TransposeConvGeometry {
  uint32_t N = 0, Cin = 0, Cout = 0, group = 1;
  std::array<TransposeConvAxis, 3> axes;  // D, H, W
  size_t spatial = 2;                     // 2 or 3: how many axes the op has
  bool has_bias = false;                  // in[2] given and not a NULL tensor
  uint32_t cin_g() const { return Cin / group; }
  uint32_t cout_g() const { return Cout / group; }
};

// Read and check the node's parameter names and values, its ranks, channel
// counts, bias length and output dims, each broken rule reported as
// kInvalidArgument with the wording the ops have always used. Data types are
// not looked at (the reference prepare and the type adapter own those).
Status read_transpose_conv2d_geometry(const NodeDesc& node, TransposeConvGeometry* g);
Status read_transpose_conv3d_geometry(const NodeDesc& node, TransposeConvGeometry* g);

}  // namespace openhtp::ops
