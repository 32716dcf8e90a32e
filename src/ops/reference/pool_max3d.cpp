// PoolMax3d, NDHWC: y[n][od][oh][ow][c] = max over the fd x fh x fw window at
// (od*sd - pd, oh*sh - pt, ow*sw - pl) of x[n][id][ih][iw][c]; padded
// positions never count. The 3-D counterpart of PoolMax2d, with the same
// conventions: float (FLOAT_16 and fixed point through the type adapter), or
// one plain integer type in and out, compared natively.
// pad_amount is [3, 2]: (begin, end) per spatial axis in D, H, W order.
// Output size per axis: ROUND((begin + L + end - f) / s + 1), FLOOR or CEIL.
#include <array>
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

// Spatial axis names for messages, in D, H, W order.
constexpr std::array<const char*, 3> kAxisName = {"depth", "height", "width"};
constexpr std::array<const char*, 3> kAxisLetter = {"D", "H", "W"};
constexpr std::array<const char*, 3> kOutputName = {"output depth slice", "output row", "output column"};

struct Geometry {
  size_t N, C;
  std::array<size_t, 3> in;   // D, H, W
  std::array<size_t, 3> out;  // Do, Ho, Wo
  std::array<size_t, 3> stride;
  std::array<size_t, 3> pad_begin;
};

// T is float or a plain integer type.
template <typename T>
class PoolMax3dKernel final : public OpKernel {
 public:
  PoolMax3dKernel(const Geometry& g, std::array<std::vector<TapRange>, 3> taps) : g_(g), taps_(std::move(taps)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const T* x = static_cast<const T*>(in[0]);
    T* y = static_cast<T*>(out[0]);
    // Prepare guaranteed every window holds at least one real input, so the
    // start value is always replaced (or is itself the true maximum).
    constexpr T kStart = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                                     : std::numeric_limits<T>::lowest();
    const size_t C = g_.C;
    const size_t D = g_.in[0], H = g_.in[1], W = g_.in[2];
    const size_t Do = g_.out[0], Ho = g_.out[1], Wo = g_.out[2];
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t od = 0; od < Do; ++od) {
        const TapRange rd = taps_[0][od];
        for (size_t oh = 0; oh < Ho; ++oh) {
          const TapRange rh = taps_[1][oh];
          for (size_t ow = 0; ow < Wo; ++ow) {
            const TapRange rw = taps_[2][ow];
            T* yp = y + (((n * Do + od) * Ho + oh) * Wo + ow) * C;
            for (size_t c = 0; c < C; ++c) yp[c] = kStart;
            for (size_t kd = rd.lo; kd < rd.hi; ++kd) {
              const size_t id = od * g_.stride[0] + kd - g_.pad_begin[0];
              for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
                const size_t ih = oh * g_.stride[1] + kh - g_.pad_begin[1];
                for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
                  const size_t iw = ow * g_.stride[2] + kw - g_.pad_begin[2];
                  const T* xp = x + (((n * D + id) * H + ih) * W + iw) * C;
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
    }
  }

 private:
  Geometry g_;
  std::array<std::vector<TapRange>, 3> taps_;  // valid window taps per output position, per axis
};

// The kernel for plain integer type `int_type`, or float when it is 0.
std::unique_ptr<OpKernel> make_pool_max3d(uint32_t int_type, const Geometry& g,
                                          std::array<std::vector<TapRange>, 3> taps) {
  auto make = [&](auto zero) -> std::unique_ptr<OpKernel> {
    using T = decltype(zero);
    return std::make_unique<PoolMax3dKernel<T>>(g, std::move(taps));
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
    // ROUND((begin + L + end - f) / s + 1) with ROUND = floor or ceil.
    const uint64_t span = padded - filter[i];
    out_size[i] = (rounding == kRoundCeil ? (span + stride[i] - 1) / stride[i] : span / stride[i]) + 1;
    if (out_size[i] > UINT32_MAX) {
      return invalid(node, "output ", kAxisName[i], " ", out_size[i], " does not fit a 32-bit dimension");
    }
  }
  const uint32_t out_dims[] = {N, static_cast<uint32_t>(out_size[0]), static_cast<uint32_t>(out_size[1]),
                               static_cast<uint32_t>(out_size[2]), C};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  // A window made only of padding has no defined maximum. The op text does not
  // say what it should produce, so such configurations are refused. A window
  // is empty when its range along any one axis is, and only the first and
  // last windows along an axis can be the empty ones.
  for (size_t i = 0; i < 3; ++i) {
    const uint32_t L = x.dims[1 + i];
    for (uint64_t o : {uint64_t{0}, out_size[i] - 1}) {
      const TapRange r = valid_taps(o, stride[i], pad[2 * i], 1, filter[i], L);
      if (r.lo == r.hi) {
        return unsupported(node, kOutputName[i], " ", o, " pools only padding (window ", kAxisName[i], " ",
                           static_cast<int64_t>(o * stride[i]) - pad[2 * i], "..",
                           static_cast<int64_t>(o * stride[i] + filter[i]) - pad[2 * i] - 1, " of input ",
                           kAxisName[i], " ", L, ")");
      }
    }
  }

  if (kernel) {
    Geometry g{N, C, {}, {}, {}, {}};
    std::array<std::vector<TapRange>, 3> taps;
    for (size_t i = 0; i < 3; ++i) {
      const uint32_t L = x.dims[1 + i];
      g.in[i] = L;
      g.out[i] = out_size[i];
      g.stride[i] = stride[i];
      g.pad_begin[i] = pad[2 * i];
      taps[i].resize(out_size[i]);
      for (uint64_t o = 0; o < out_size[i]; ++o) taps[i][o] = valid_taps(o, stride[i], pad[2 * i], 1, filter[i], L);
    }
    *kernel = make_pool_max3d(int_type, g, std::move(taps));
  }
  return Status::Ok();
}

}  // namespace

OpDef pool_max3d_def() { return {"PoolMax3d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
