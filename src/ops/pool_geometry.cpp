#include "ops/pool_geometry.h"

#include <vector>

#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops {

using detail::invalid;

namespace {

constexpr uint32_t kRoundFloor = 0;
constexpr uint32_t kRoundCeil = 1;

constexpr const char* kAxisName[] = {"depth", "height", "width"};
constexpr const char* kOutputName[] = {"output depth slice", "output row", "output column"};
// The padded length as the messages spell it, per axis (2-D ops keep the
// pt/pb/pl/pr names of their pad_amount rows).
constexpr const char* kPadded2d[] = {"", "pt+H+pb", "pl+W+pr"};
constexpr const char* kPadded3d[] = {"pad_begin+D+pad_end", "pad_begin+H+pad_end", "pad_begin+W+pad_end"};

}  // namespace

const char* pool_axis_name(size_t i) { return kAxisName[i]; }
const char* pool_output_name(size_t i) { return kOutputName[i]; }

Status read_pool_geometry(const NodeDesc& node, size_t spatial, PoolKind kind, PoolGeometry* g) {
  *g = PoolGeometry{};
  if (Status s = detail::check_io_count(node, 1, 1, 1); !s.ok()) return s;
  const detail::ParamReader params(node);
  if (Status s = kind == PoolKind::kAvg ? params.check_names({"filter_size", "stride", "pad_amount", "rounding_mode",
                                                              "count_pad_for_edges"})
                                        : params.check_names({"filter_size", "stride", "pad_amount", "rounding_mode"});
      !s.ok()) {
    return s;
  }
  if (kind == PoolKind::kAvg) {
    if (Status s = params.bool_scalar("count_pad_for_edges", false, &g->count_pad); !s.ok()) return s;
  }
  const uint32_t n = static_cast<uint32_t>(spatial);
  const uint32_t dims_n[] = {n};
  const uint32_t dims_n2[] = {n, 2};
  std::vector<uint32_t> filter, stride, pad;
  if (Status s = params.u32_tensor("filter_size", dims_n, {}, &filter); !s.ok()) return s;
  if (Status s = params.u32_tensor("stride", dims_n, {}, &stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", dims_n2, {}, &pad); !s.ok()) return s;
  uint32_t rounding = kRoundFloor;
  if (Status s = params.u32_scalar("rounding_mode", kRoundFloor, &rounding); !s.ok()) return s;
  if (rounding != kRoundFloor && rounding != kRoundCeil) {
    return invalid(node, "parameter 'rounding_mode' is ", rounding, ", expected 0 (FLOOR) or 1 (CEIL)");
  }
  for (size_t i = 0; i < spatial; ++i) {
    if (filter[i] == 0) return invalid(node, "parameter 'filter_size' element ", i, " is 0, expected >= 1");
    if (stride[i] == 0) return invalid(node, "parameter 'stride' element ", i, " is 0, expected >= 1");
  }
  const TensorDesc& x = node.inputs[0];
  const size_t rank = spatial + 2;
  if (Status s = detail::check_rank(node, x, detail::in_label(0, "input"), rank, rank, StatusCode::kInvalidArgument);
      !s.ok()) {
    return s;
  }
  g->spatial = spatial;
  g->N = x.dims[0];
  g->C = x.dims[rank - 1];
  const size_t first = 3 - spatial;  // axes[first..2] are the op's spatial axes
  std::vector<uint32_t> out_dims = {g->N};
  for (size_t k = 0; k < spatial; ++k) {
    const size_t i = first + k;
    PoolAxis& a = g->axes[i];
    a.in = x.dims[1 + k];
    a.filter = filter[k];
    a.stride = stride[k];
    a.pad_begin = pad[2 * k];
    a.pad_end = pad[2 * k + 1];
    const uint64_t padded = uint64_t{a.pad_begin} + a.in + a.pad_end;
    if (a.filter > padded) {
      return invalid(node, "filter ", kAxisName[i], " ", a.filter, " exceeds padded input ", kAxisName[i], " ",
                     spatial == 2 ? kPadded2d[i] : kPadded3d[i], " = ", padded);
    }
    // ROUND((begin + L + end - f) / s + 1) with ROUND = floor or ceil.
    const uint64_t span = padded - a.filter;
    const uint64_t out = (rounding == kRoundCeil ? (span + a.stride - 1) / a.stride : span / a.stride) + 1;
    if (out > UINT32_MAX) {
      return invalid(node, "output ", kAxisName[i], " ", out, " does not fit a 32-bit dimension");
    }
    a.out = static_cast<uint32_t>(out);
    out_dims.push_back(a.out);
  }
  out_dims.push_back(g->C);
  return detail::check_output_dims(node, 0, out_dims);
}

}  // namespace openhtp::ops
