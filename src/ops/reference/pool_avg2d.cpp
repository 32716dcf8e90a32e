// PoolAvg2d, NHWC: y[n][oh][ow][c] = (sum of x[n][ih][iw][c] over the input
// positions of the fh x fw window at (oh*sh - pt, ow*sw - pl)) / divisor.
//   count_pad_for_edges = 0: divisor = number of real input positions in the
//                            window (padding never counts);
//   count_pad_for_edges = 1: divisor = number of window positions inside the
//                            padded input [-pt, H+pb) x [-pl, W+pr); padding
//                            adds 0 to the sum but counts. Positions past
//                            the padded input (CEIL rounding's last window)
//                            count in neither case.
// Output size as PoolMax2d: ROUND((pt + H + pb - fh) / sh + 1), FLOOR or CEIL.
#include <algorithm>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr uint32_t kRoundFloor = 0;
constexpr uint32_t kRoundCeil = 1;

// Window positions inside [-pad_before, in_size + pad_after) for output o.
uint32_t padded_count(uint64_t o, uint32_t stride, uint32_t pad_before, uint32_t pad_after, uint32_t f,
                      uint32_t in_size) {
  const int64_t first = static_cast<int64_t>(o * stride) - pad_before;
  const int64_t lo = std::max<int64_t>(first, -int64_t{pad_before});
  const int64_t hi = std::min<int64_t>(first + f, int64_t{in_size} + pad_after);
  return static_cast<uint32_t>(std::max<int64_t>(hi - lo, 0));
}

class PoolAvg2dKernel final : public OpKernel {
 public:
  struct Geometry {
    size_t N, H, W, C, Ho, Wo, sh, sw, pt, pl;
  };

  PoolAvg2dKernel(const Geometry& g, std::vector<TapRange> rows, std::vector<TapRange> cols,
                  std::vector<uint32_t> row_div, std::vector<uint32_t> col_div)
      : g_(g), rows_(std::move(rows)), cols_(std::move(cols)), row_div_(std::move(row_div)),
        col_div_(std::move(col_div)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    const size_t C = g_.C;
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t oh = 0; oh < g_.Ho; ++oh) {
        const TapRange rh = rows_[oh];
        for (size_t ow = 0; ow < g_.Wo; ++ow) {
          const TapRange rw = cols_[ow];
          float* yp = y + ((n * g_.Ho + oh) * g_.Wo + ow) * C;
          for (size_t c = 0; c < C; ++c) yp[c] = 0.0f;
          for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
            const size_t ih = oh * g_.sh + kh - g_.pt;
            for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
              const size_t iw = ow * g_.sw + kw - g_.pl;
              const float* xp = x + ((n * g_.H + ih) * g_.W + iw) * C;
              for (size_t c = 0; c < C; ++c) yp[c] += xp[c];
            }
          }
          const float inv = 1.0f / static_cast<float>(uint64_t{row_div_[oh]} * col_div_[ow]);
          for (size_t c = 0; c < C; ++c) yp[c] *= inv;
        }
      }
    }
  }

 private:
  Geometry g_;
  std::vector<TapRange> rows_, cols_;       // valid window taps per output row / column
  std::vector<uint32_t> row_div_, col_div_; // divisor factors per output row / column
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"filter_size", "stride", "pad_amount", "rounding_mode", "count_pad_for_edges"});
      !s.ok())
    return s;
  static constexpr uint32_t kDims2[] = {2};
  static constexpr uint32_t kDims2x2[] = {2, 2};
  std::vector<uint32_t> filter, stride, pad;
  if (Status s = params.u32_tensor("filter_size", kDims2, {}, &filter); !s.ok()) return s;
  if (Status s = params.u32_tensor("stride", kDims2, {}, &stride); !s.ok()) return s;
  if (Status s = params.u32_tensor("pad_amount", kDims2x2, {}, &pad); !s.ok()) return s;
  uint32_t rounding = kRoundFloor;
  if (Status s = params.u32_scalar("rounding_mode", kRoundFloor, &rounding); !s.ok()) return s;
  if (rounding != kRoundFloor && rounding != kRoundCeil) {
    return invalid(node, "parameter 'rounding_mode' is ", rounding, ", expected 0 (FLOOR) or 1 (CEIL)");
  }
  bool count_pad = false;
  if (Status s = params.bool_scalar("count_pad_for_edges", false, &count_pad); !s.ok()) return s;
  for (size_t i = 0; i < 2; ++i) {
    if (filter[i] == 0) return invalid(node, "parameter 'filter_size' element ", i, " is 0, expected >= 1");
    if (stride[i] == 0) return invalid(node, "parameter 'stride' element ", i, " is 0, expected >= 1");
  }
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t N = x.dims[0], H = x.dims[1], W = x.dims[2], C = x.dims[3];
  const uint32_t pt = pad[0], pb = pad[1], pl = pad[2], pr = pad[3];
  const uint64_t padded_h = uint64_t{pt} + H + pb;
  const uint64_t padded_w = uint64_t{pl} + W + pr;
  if (filter[0] > padded_h) {
    return invalid(node, "filter height ", filter[0], " exceeds padded input height pt+H+pb = ", padded_h);
  }
  if (filter[1] > padded_w) {
    return invalid(node, "filter width ", filter[1], " exceeds padded input width pl+W+pr = ", padded_w);
  }
  auto out_size = [&](uint64_t span, uint32_t s) {
    return (rounding == kRoundCeil ? (span + s - 1) / s : span / s) + 1;
  };
  const uint64_t Ho = out_size(padded_h - filter[0], stride[0]);
  const uint64_t Wo = out_size(padded_w - filter[1], stride[1]);
  if (Ho > UINT32_MAX || Wo > UINT32_MAX) {
    return invalid(node, "output height/width ", Ho, "/", Wo, " do not fit a 32-bit dimension");
  }
  const uint32_t out_dims[] = {N, static_cast<uint32_t>(Ho), static_cast<uint32_t>(Wo), C};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  std::vector<TapRange> rows(Ho), cols(Wo);
  std::vector<uint32_t> row_div(Ho), col_div(Wo);
  for (uint64_t o = 0; o < Ho; ++o) {
    rows[o] = valid_taps(o, stride[0], pt, 1, filter[0], H);
    row_div[o] = count_pad ? padded_count(o, stride[0], pt, pb, filter[0], H) : rows[o].hi - rows[o].lo;
    // An average over no positions is undefined; the op text does not say
    // what it should produce, so such configurations are refused.
    if (row_div[o] == 0) {
      return unsupported(node, "output row ", o, " averages no ", count_pad ? "padded " : "", "input positions");
    }
  }
  for (uint64_t o = 0; o < Wo; ++o) {
    cols[o] = valid_taps(o, stride[1], pl, 1, filter[1], W);
    col_div[o] = count_pad ? padded_count(o, stride[1], pl, pr, filter[1], W) : cols[o].hi - cols[o].lo;
    if (col_div[o] == 0) {
      return unsupported(node, "output column ", o, " averages no ", count_pad ? "padded " : "", "input positions");
    }
  }
  if (kernel) {
    const PoolAvg2dKernel::Geometry g{N, H, W, C, Ho, Wo, stride[0], stride[1], pt, pl};
    *kernel = std::make_unique<PoolAvg2dKernel>(g, std::move(rows), std::move(cols), std::move(row_div),
                                                std::move(col_div));
  }
  return Status::Ok();
}

}  // namespace

OpDef pool_avg2d_def() { return {"PoolAvg2d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
