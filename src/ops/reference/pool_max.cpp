// PoolMax2d (NHWC) and PoolMax3d (NDHWC): y = max over the filter window at
// (o * stride - pad_begin) per spatial axis of x; padded positions never
// count. Float (FLOAT_16 and fixed point through the type adapter), or one
// plain integer type in and out, compared natively. pad_amount is
// [spatial, 2]: (begin, end) per axis. Output size per axis:
// ROUND((begin + L + end - f) / s + 1), FLOOR or CEIL (pool_geometry.h).
// A window made only of padding has no defined maximum; the op text does not
// say what it should produce, so such configurations are refused.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/op_defs.h"
#include "ops/parsed_params.h"
#include "ops/reference/pool_window.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

// T is float or a plain integer type. A 2-D pool runs with D = 1.
template <typename T>
class PoolMaxKernel final : public OpKernel {
 public:
  PoolMaxKernel(const PoolGeometry& g, PoolTaps taps) : g_(g), taps_(std::move(taps)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const T* x = static_cast<const T*>(in[0]);
    T* y = static_cast<T*>(out[0]);
    // Prepare guaranteed every window holds at least one real input, so the
    // start value is always replaced (or is itself the true maximum).
    constexpr T kStart = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                                     : std::numeric_limits<T>::lowest();
    const PoolAxis &ad = g_.axes[0], &ah = g_.axes[1], &aw = g_.axes[2];
    const size_t C = g_.C;
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t od = 0; od < ad.out; ++od) {
        const TapRange rd = taps_[0][od];
        for (size_t oh = 0; oh < ah.out; ++oh) {
          const TapRange rh = taps_[1][oh];
          for (size_t ow = 0; ow < aw.out; ++ow) {
            const TapRange rw = taps_[2][ow];
            T* yp = y + (((n * ad.out + od) * ah.out + oh) * aw.out + ow) * C;
            for (size_t c = 0; c < C; ++c) yp[c] = kStart;
            for (size_t kd = rd.lo; kd < rd.hi; ++kd) {
              const size_t id = od * ad.stride + kd - ad.pad_begin;
              for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
                const size_t ih = oh * ah.stride + kh - ah.pad_begin;
                for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
                  const size_t iw = ow * aw.stride + kw - aw.pad_begin;
                  const T* xp = x + (((n * ad.in + id) * ah.in + ih) * aw.in + iw) * C;
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
  PoolGeometry g_;
  PoolTaps taps_;
};

// The kernel for plain integer type `int_type`, or float when it is 0.
std::unique_ptr<OpKernel> make_pool_max(uint32_t int_type, const PoolGeometry& g, PoolTaps taps) {
  auto make = [&](auto zero) -> std::unique_ptr<OpKernel> {
    return std::make_unique<PoolMaxKernel<decltype(zero)>>(g, std::move(taps));
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

template <size_t kSpatial>
Status read_geometry(const NodeDesc& node, PoolGeometry* g) {
  return read_pool_geometry(node, kSpatial, PoolKind::kMax, g);
}

template <size_t kSpatial>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  uint32_t int_type = 0;
  if (Status s = common_integer_type(node, 1, true, &int_type); !s.ok()) return s;
  if (int_type == 0) {
    static constexpr std::string_view kRoles[] = {"input"};
    if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  }
  // Parameters, input rank and output dims: pool_geometry.cpp, read once by
  // prepare_node.
  PoolGeometry local;
  const PoolGeometry* g = nullptr;
  if (Status s = geometry_of<PoolGeometry, read_geometry<kSpatial>>(node, &local, &g); !s.ok()) return s;
  PoolTaps taps = pool_taps(*g);
  if (Status s = check_no_padding_only_window(node, *g, taps); !s.ok()) return s;
  if (kernel) *kernel = make_pool_max(int_type, *g, std::move(taps));
  return Status::Ok();
}

}  // namespace

OpDef pool_max2d_def() {
  return {"PoolMax2d", &guarded_prepare<prepare<2>>, op_flags::kAdaptTypes,
          &parse_as<PoolGeometry, read_geometry<2>>};
}
OpDef pool_max3d_def() {
  return {"PoolMax3d", &guarded_prepare<prepare<3>>, op_flags::kAdaptTypes,
          &parse_as<PoolGeometry, read_geometry<3>>};
}

}  // namespace openhtp::ops::detail
