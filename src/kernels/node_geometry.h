// Shapes and parameters of convolution and pooling nodes as the fast paths
// need them. Only called on nodes the reference prepare has already
// validated, so reading cannot fail except on impossible input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ops/op.h"

namespace openhtp::kernels {

// Conv2d and DepthWiseConv2d (a DepthWiseConv2d is a Conv2d with group = Cin
// and one input channel per group; its filter [kh,kw,1,Cout] is then HWIO).
struct ConvGeometry {
  uint32_t N, H, W, Cin, KH, KW, Cout, Ho, Wo;
  uint32_t sh, sw, dh, dw, pt, pb, pl, pr, group;
  bool has_bias;
  uint32_t cin_g() const { return Cin / group; }
  uint32_t cout_g() const { return Cout / group; }
};
bool read_conv_geometry(const ops::NodeDesc& node, ConvGeometry* g);

// HWIO [kh][kw][Cin/g][Cout] -> OHWI [Cout][kh][kw][Cin/g] (XNNPACK's layout).
template <typename T>
std::vector<T> hwio_to_ohwi(const T* w, const ConvGeometry& g) {
  const size_t cin_g = g.cin_g();
  std::vector<T> out(size_t{g.Cout} * g.KH * g.KW * cin_g);
  for (size_t kh = 0; kh < g.KH; ++kh)
    for (size_t kw = 0; kw < g.KW; ++kw)
      for (size_t ci = 0; ci < cin_g; ++ci)
        for (size_t co = 0; co < g.Cout; ++co)
          out[((co * g.KH + kh) * g.KW + kw) * cin_g + ci] = w[((kh * g.KW + kw) * cin_g + ci) * g.Cout + co];
  return out;
}

// PoolMax2d / PoolAvg2d.
struct PoolGeometry {
  uint32_t N, H, W, C, Ho, Wo;
  uint32_t fh, fw, sh, sw, pt, pb, pl, pr;
  // Bottom/right padding that makes floor-mode output sizes equal Ho/Wo: the
  // windows CEIL rounding adds extend past pb/pr, and are read as padding.
  uint32_t pb_eff, pr_eff;
  bool count_pad;  // PoolAvg2d count_pad_for_edges
  bool any_padding() const { return (pt | pl | pb_eff | pr_eff) != 0; }
};
bool read_pool_geometry(const ops::NodeDesc& node, PoolGeometry* g);

}  // namespace openhtp::kernels
