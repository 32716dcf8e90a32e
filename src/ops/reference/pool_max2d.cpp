// PoolMax2d, NHWC: y[n][oh][ow][c] = max over the fh x fw window at
// (oh*sh - pt, ow*sw - pl) of x[n][ih][iw][c]; padded positions never count.
// Float (FLOAT_16 and fixed point through the type adapter), or one plain
// integer type in and out, compared natively.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr uint32_t kRoundFloor = 0;
constexpr uint32_t kRoundCeil = 1;

struct Geometry {
  size_t N, H, W, C, Ho, Wo;
};

// T is float or a plain integer type.
template <typename T>
class PoolMax2dKernel final : public OpKernel {
 public:

  PoolMax2dKernel(const Geometry& g, std::vector<TapRange> rows, std::vector<TapRange> cols,
                  uint32_t sh, uint32_t sw, uint32_t pt, uint32_t pl)
      : g_(g), rows_(std::move(rows)), cols_(std::move(cols)), sh_(sh), sw_(sw), pt_(pt), pl_(pl) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const T* x = static_cast<const T*>(in[0]);
    T* y = static_cast<T*>(out[0]);
    // Prepare guaranteed every window holds at least one real input, so the
    // start value is always replaced (or is itself the true maximum).
    constexpr T kStart = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                                     : std::numeric_limits<T>::lowest();
    const size_t C = g_.C;
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t oh = 0; oh < g_.Ho; ++oh) {
        const TapRange rh = rows_[oh];
        for (size_t ow = 0; ow < g_.Wo; ++ow) {
          const TapRange rw = cols_[ow];
          T* yp = y + ((n * g_.Ho + oh) * g_.Wo + ow) * C;
          for (size_t c = 0; c < C; ++c) yp[c] = kStart;
          for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
            const size_t ih = oh * sh_ + kh - pt_;
            for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
              const size_t iw = ow * sw_ + kw - pl_;
              const T* xp = x + ((n * g_.H + ih) * g_.W + iw) * C;
              for (size_t c = 0; c < C; ++c) {
                if constexpr (std::is_floating_point_v<T>) {
                  // NaN propagates: once yp[c] is NaN no comparison replaces it.
                  if (xp[c] > yp[c] || std::isnan(xp[c])) yp[c] = xp[c];
                } else if (xp[c] > yp[c]) {
                  yp[c] = xp[c];
                }
              }
            }
          }
        }
      }
    }
  }

 private:
  Geometry g_;
  std::vector<TapRange> rows_;  // valid window rows (taps) for each output row
  std::vector<TapRange> cols_;
  size_t sh_, sw_, pt_, pl_;
};

// The kernel for plain integer type `int_type`, or float when it is 0.
std::unique_ptr<OpKernel> make_pool_max2d(uint32_t int_type, const Geometry& g, std::vector<TapRange> rows,
                                          std::vector<TapRange> cols, uint32_t sh, uint32_t sw, uint32_t pt,
                                          uint32_t pl) {
  auto make = [&](auto zero) -> std::unique_ptr<OpKernel> {
    using T = decltype(zero);
    return std::make_unique<PoolMax2dKernel<T>>(g, std::move(rows), std::move(cols), sh, sw, pt, pl);
  };
  switch (int_type) {
    case dtype::kInt8: return make(int8_t{});
    case dtype::kInt16: return make(int16_t{});
    case dtype::kInt32: return make(int32_t{});
    case dtype::kUint8: return make(uint8_t{});
    case dtype::kUint16: return make(uint16_t{});
    case dtype::kUint32: return make(uint32_t{});
    default: return make(float{});
  }
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  uint32_t int_type = 0;
  if (Status s = common_integer_type(node, 1, true, &int_type); !s.ok()) return s;
  if (int_type == 0) {
    static constexpr std::string_view kRoles[] = {"input"};
    if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  }
  ParamReader params(node);
  if (Status s = params.check_names({"filter_size", "stride", "pad_amount", "rounding_mode"}); !s.ok())
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
  // Ho = ROUND((pt + H + pb - fh) / sh + 1) with ROUND = floor or ceil.
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

  // A window made only of padding has no defined maximum. The op text does not
  // say what it should produce, so such configurations are refused. Only the
  // first and last windows along an axis can be the empty ones.
  for (uint64_t o : {uint64_t{0}, Ho - 1}) {
    const TapRange r = valid_taps(o, stride[0], pt, 1, filter[0], H);
    if (r.lo == r.hi) {
      return unsupported(node, "output row ", o, " pools only padding (window rows ",
                         static_cast<int64_t>(o * stride[0]) - pt, "..",
                         static_cast<int64_t>(o * stride[0] + filter[0]) - pt - 1, " of input height ", H, ")");
    }
  }
  for (uint64_t o : {uint64_t{0}, Wo - 1}) {
    const TapRange r = valid_taps(o, stride[1], pl, 1, filter[1], W);
    if (r.lo == r.hi) {
      return unsupported(node, "output column ", o, " pools only padding (window columns ",
                         static_cast<int64_t>(o * stride[1]) - pl, "..",
                         static_cast<int64_t>(o * stride[1] + filter[1]) - pl - 1, " of input width ", W, ")");
    }
  }

  if (kernel) {
    std::vector<TapRange> rows(Ho), cols(Wo);
    for (uint64_t o = 0; o < Ho; ++o) rows[o] = valid_taps(o, stride[0], pt, 1, filter[0], H);
    for (uint64_t o = 0; o < Wo; ++o) cols[o] = valid_taps(o, stride[1], pl, 1, filter[1], W);
    const Geometry g{N, H, W, C, Ho, Wo};
    *kernel = make_pool_max2d(int_type, g, std::move(rows), std::move(cols), stride[0], stride[1], pt, pl);
  }
  return Status::Ok();
}

}  // namespace

OpDef pool_max2d_def() { return {"PoolMax2d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
