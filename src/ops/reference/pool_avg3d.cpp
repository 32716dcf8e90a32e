// PoolAvg3d, NDHWC: y[n][od][oh][ow][c] = (sum of x[n][id][ih][iw][c] over the
// input positions of the fd x fh x fw window at (od*sd - pd, oh*sh - pt,
// ow*sw - pl)) / divisor. The 3-D counterpart of PoolAvg2d:
//   count_pad_for_edges = 0: divisor = number of real input positions in the
//                            window (padding never counts);
//   count_pad_for_edges = 1: divisor = number of window positions inside the
//                            padded input; padding adds 0 to the sum but
//                            counts. Positions past the padded input (CEIL
//                            rounding's last window) count in neither case.
// The window and both regions are boxes, so the divisor is the product of one
// count per axis. pad_amount is [3, 2]: (begin, end) per axis in D, H, W
// order. Output size as PoolMax3d: ROUND((begin + L + end - f) / s + 1).
#include <algorithm>
#include <array>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr uint32_t kRoundFloor = 0;
constexpr uint32_t kRoundCeil = 1;

constexpr std::array<const char*, 3> kAxisName = {"depth", "height", "width"};
constexpr std::array<const char*, 3> kAxisLetter = {"D", "H", "W"};
constexpr std::array<const char*, 3> kOutputName = {"output depth slice", "output row", "output column"};

// Window positions inside [-pad_before, in_size + pad_after) for output o.
uint32_t padded_count(uint64_t o, uint32_t stride, uint32_t pad_before, uint32_t pad_after, uint32_t f,
                      uint32_t in_size) {
  const int64_t first = static_cast<int64_t>(o * stride) - pad_before;
  const int64_t lo = std::max<int64_t>(first, -int64_t{pad_before});
  const int64_t hi = std::min<int64_t>(first + f, int64_t{in_size} + pad_after);
  return static_cast<uint32_t>(std::max<int64_t>(hi - lo, 0));
}

// Per spatial axis: the valid window taps and the divisor factor of each
// output position.
struct AxisPlan {
  size_t in = 0, out = 0, stride = 1, pad_begin = 0;
  std::vector<TapRange> taps;
  std::vector<uint32_t> div;
};

class PoolAvg3dKernel final : public OpKernel {
 public:
  PoolAvg3dKernel(size_t N, size_t C, std::array<AxisPlan, 3> axes) : N_(N), C_(C), ax_(std::move(axes)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    const size_t C = C_;
    const size_t D = ax_[0].in, H = ax_[1].in, W = ax_[2].in;
    const size_t Do = ax_[0].out, Ho = ax_[1].out, Wo = ax_[2].out;
    for (size_t n = 0; n < N_; ++n) {
      for (size_t od = 0; od < Do; ++od) {
        const TapRange rd = ax_[0].taps[od];
        for (size_t oh = 0; oh < Ho; ++oh) {
          const TapRange rh = ax_[1].taps[oh];
          for (size_t ow = 0; ow < Wo; ++ow) {
            const TapRange rw = ax_[2].taps[ow];
            float* yp = y + (((n * Do + od) * Ho + oh) * Wo + ow) * C;
            for (size_t c = 0; c < C; ++c) yp[c] = 0.0f;
            for (size_t kd = rd.lo; kd < rd.hi; ++kd) {
              const size_t id = od * ax_[0].stride + kd - ax_[0].pad_begin;
              for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
                const size_t ih = oh * ax_[1].stride + kh - ax_[1].pad_begin;
                for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
                  const size_t iw = ow * ax_[2].stride + kw - ax_[2].pad_begin;
                  const float* xp = x + (((n * D + id) * H + ih) * W + iw) * C;
                  for (size_t c = 0; c < C; ++c) yp[c] += xp[c];
                }
              }
            }
            const float inv =
                1.0f / static_cast<float>(uint64_t{ax_[0].div[od]} * ax_[1].div[oh] * ax_[2].div[ow]);
            for (size_t c = 0; c < C; ++c) yp[c] *= inv;
          }
        }
      }
    }
  }

 private:
  size_t N_, C_;
  std::array<AxisPlan, 3> ax_;  // D, H, W
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"filter_size", "stride", "pad_amount", "rounding_mode", "count_pad_for_edges"});
      !s.ok())
    return s;
  static constexpr uint32_t kDims3[] = {3};
  static constexpr uint32_t kDims3x2[] = {3, 2};
  std::vector<uint32_t> filter, stride, pad;
  if (Status s = params.u32_tensor("filter_size", kDims3, {}, &filter); !s.ok()) return s;
  if (Status s = params.u32_tensor("stride", kDims3, {}, &stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", kDims3x2, {}, &pad); !s.ok()) return s;
  uint32_t rounding = kRoundFloor;
  if (Status s = params.u32_scalar("rounding_mode", kRoundFloor, &rounding); !s.ok()) return s;
  if (rounding != kRoundFloor && rounding != kRoundCeil) {
    return invalid(node, "parameter 'rounding_mode' is ", rounding, ", expected 0 (FLOOR) or 1 (CEIL)");
  }
  bool count_pad = false;
  if (Status s = params.bool_scalar("count_pad_for_edges", false, &count_pad); !s.ok()) return s;
  for (size_t i = 0; i < 3; ++i) {
    if (filter[i] == 0) return invalid(node, "parameter 'filter_size' element ", i, " is 0, expected >= 1");
    if (stride[i] == 0) return invalid(node, "parameter 'stride' element ", i, " is 0, expected >= 1");
  }
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, "input"), 5, 5, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t N = x.dims[0], C = x.dims[4];
  std::array<uint64_t, 3> out_size{};
  for (size_t i = 0; i < 3; ++i) {
    const uint32_t L = x.dims[1 + i];
    const uint64_t padded = uint64_t{pad[2 * i]} + L + pad[2 * i + 1];
    if (filter[i] > padded) {
      return invalid(node, "filter ", kAxisName[i], " ", filter[i], " exceeds padded input ", kAxisName[i],
                     " pad_begin+", kAxisLetter[i], "+pad_end = ", padded);
    }
    const uint64_t span = padded - filter[i];
    out_size[i] = (rounding == kRoundCeil ? (span + stride[i] - 1) / stride[i] : span / stride[i]) + 1;
    if (out_size[i] > UINT32_MAX) {
      return invalid(node, "output ", kAxisName[i], " ", out_size[i], " does not fit a 32-bit dimension");
    }
  }
  const uint32_t out_dims[] = {N, static_cast<uint32_t>(out_size[0]), static_cast<uint32_t>(out_size[1]),
                               static_cast<uint32_t>(out_size[2]), C};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  std::array<AxisPlan, 3> axes;
  for (size_t i = 0; i < 3; ++i) {
    AxisPlan& a = axes[i];
    const uint32_t L = x.dims[1 + i], pb = pad[2 * i], pe = pad[2 * i + 1];
    a.in = L;
    a.out = out_size[i];
    a.stride = stride[i];
    a.pad_begin = pb;
    a.taps.resize(out_size[i]);
    a.div.resize(out_size[i]);
    for (uint64_t o = 0; o < out_size[i]; ++o) {
      a.taps[o] = valid_taps(o, stride[i], pb, 1, filter[i], L);
      a.div[o] = count_pad ? padded_count(o, stride[i], pb, pe, filter[i], L) : a.taps[o].hi - a.taps[o].lo;
      // An average over no positions is undefined; the op text does not say
      // what it should produce, so such configurations are refused.
      if (a.div[o] == 0) {
        return unsupported(node, kOutputName[i], " ", o, " averages no ", count_pad ? "padded " : "",
                           "input positions");
      }
    }
  }
  if (kernel) *kernel = std::make_unique<PoolAvg3dKernel>(N, C, std::move(axes));
  return Status::Ok();
}

}  // namespace

OpDef pool_avg3d_def() { return {"PoolAvg3d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
