// The prepare shared by the reference Conv2d and DepthWiseConv2d: float
// tensors, the geometry read once by prepare_node (conv_geometry.cpp: the
// parameters, ranks, channels, bias and output dims), and for each output row
// and column the window taps that land inside the image, computed here so
// that the kernels' loops carry no bounds checks.
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/conv_geometry.h"
#include "ops/op.h"
#include "ops/parsed_params.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

// Kernel(const ConvGeometry&, rows, cols) is the op's kernel; Read its
// geometry reader.
template <typename Kernel, Status (*Read)(const NodeDesc&, ConvGeometry*)>
Status prepare_windowed_conv(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "filter", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ConvGeometry local;
  const ConvGeometry* g = nullptr;
  if (Status s = geometry_of<ConvGeometry, Read>(node, &local, &g); !s.ok()) return s;
  if (kernel) {
    std::vector<TapRange> rows(g->Ho), cols(g->Wo);
    for (uint64_t o = 0; o < g->Ho; ++o) rows[o] = valid_taps(o, g->sh, g->pt, g->dh, g->KH, g->H);
    for (uint64_t o = 0; o < g->Wo; ++o) cols[o] = valid_taps(o, g->sw, g->pl, g->dw, g->KW, g->W);
    *kernel = with_epilogue(node, std::make_unique<Kernel>(*g, std::move(rows), std::move(cols)));
  }
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
