// Filter layout conversions the kernel libraries need; the geometry itself
// is read once, in src/ops (ops/conv_geometry.h).
#pragma once

#include <cstddef>
#include <vector>

#include "ops/conv_geometry.h"

namespace openhtp::kernels {

// HWIO [kh][kw][Cin/g][Cout] -> OHWI [Cout][kh][kw][Cin/g] (XNNPACK's layout).
template <typename T>
std::vector<T> hwio_to_ohwi(const T* w, const ops::ConvGeometry& g) {
  const size_t cin_g = g.cin_g();
  std::vector<T> out(size_t{g.Cout} * g.KH * g.KW * cin_g);
  for (size_t kh = 0; kh < g.KH; ++kh)
    for (size_t kw = 0; kw < g.KW; ++kw)
      for (size_t ci = 0; ci < cin_g; ++ci)
        for (size_t co = 0; co < g.Cout; ++co)
          out[((co * g.KH + kh) * g.KW + kw) * cin_g + ci] = w[((kh * g.KW + kw) * cin_g + ci) * g.Cout + co];
  return out;
}

}  // namespace openhtp::kernels
