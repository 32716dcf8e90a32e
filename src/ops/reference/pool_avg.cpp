// PoolAvg2d (NHWC) and PoolAvg3d (NDHWC): y = (sum of x over the input
// positions of the filter window at (o * stride - pad_begin) per spatial
// axis) / divisor.
//   count_pad_for_edges = 0: divisor = number of real input positions in the
//                            window (padding never counts);
//   count_pad_for_edges = 1: divisor = number of window positions inside the
//                            padded input [-begin, L + end) per axis; padding
//                            adds 0 to the sum but counts. Positions past the
//                            padded input (CEIL rounding's last window) count
//                            in neither case.
// The window and both regions are boxes, so the divisor is the product of one
// count per axis. Output size as PoolMax (pool_geometry.h). An average over no
// positions is undefined; the op text does not say what it should produce,
// so such configurations are refused.
#include "ops/op_defs.h"
#include "ops/parsed_params.h"
#include "ops/reference/pool_window.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

// A 2-D pool runs with D = 1 (divisor factor 1).
class PoolAvgKernel final : public OpKernel {
 public:
  PoolAvgKernel(const PoolGeometry& g, PoolTaps taps, std::array<std::vector<uint32_t>, 3> div)
      : g_(g), taps_(std::move(taps)), div_(std::move(div)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    const PoolAxis &ad = g_.axes[0], &ah = g_.axes[1], &aw = g_.axes[2];
    const size_t C = g_.C;
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t od = 0; od < ad.out; ++od) {
        const TapRange rd = taps_[0][od];
        for (size_t oh = 0; oh < ah.out; ++oh) {
          const TapRange rh = taps_[1][oh];
          for (size_t ow = 0; ow < aw.out; ++ow) {
            const TapRange rw = taps_[2][ow];
            float* yp = y + (((n * ad.out + od) * ah.out + oh) * aw.out + ow) * C;
            for (size_t c = 0; c < C; ++c) yp[c] = 0.0f;
            for (size_t kd = rd.lo; kd < rd.hi; ++kd) {
              const size_t id = od * ad.stride + kd - ad.pad_begin;
              for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
                const size_t ih = oh * ah.stride + kh - ah.pad_begin;
                for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
                  const size_t iw = ow * aw.stride + kw - aw.pad_begin;
                  const float* xp = x + (((n * ad.in + id) * ah.in + ih) * aw.in + iw) * C;
                  for (size_t c = 0; c < C; ++c) yp[c] += xp[c];
                }
              }
            }
            const float inv = 1.0f / static_cast<float>(uint64_t{div_[0][od]} * div_[1][oh] * div_[2][ow]);
            for (size_t c = 0; c < C; ++c) yp[c] *= inv;
          }
        }
      }
    }
  }

 private:
  PoolGeometry g_;
  PoolTaps taps_;
  std::array<std::vector<uint32_t>, 3> div_;  // divisor factor per output position, per axis
};

template <size_t kSpatial>
Status read_geometry(const NodeDesc& node, PoolGeometry* g) {
  return read_pool_geometry(node, kSpatial, PoolKind::kAvg, g);
}

template <size_t kSpatial>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  // Parameters, input rank and output dims: pool_geometry.cpp, read once by
  // prepare_node.
  PoolGeometry local;
  const PoolGeometry* g = nullptr;
  if (Status s = geometry_of<PoolGeometry, read_geometry<kSpatial>>(node, &local, &g); !s.ok()) return s;
  const bool count_pad = g->count_pad;
  PoolTaps taps = pool_taps(*g);
  std::array<std::vector<uint32_t>, 3> div;
  for (size_t i = 0; i < 3; ++i) {
    const PoolAxis& a = g->axes[i];
    div[i].resize(a.out);
    for (uint64_t o = 0; o < a.out; ++o) {
      div[i][o] = count_pad ? padded_count(a, o) : taps[i][o].hi - taps[i][o].lo;
      if (div[i][o] == 0) {
        return unsupported(node, pool_output_name(i), " ", o, " averages no ", count_pad ? "padded " : "",
                           "input positions");
      }
    }
  }
  if (kernel) *kernel = std::make_unique<PoolAvgKernel>(*g, std::move(taps), std::move(div));
  return Status::Ok();
}

}  // namespace

OpDef pool_avg2d_def() {
  return {"PoolAvg2d", &guarded_prepare<prepare<2>>, op_flags::kAdaptTypes,
          &parse_as<PoolGeometry, read_geometry<2>>};
}
OpDef pool_avg3d_def() {
  return {"PoolAvg3d", &guarded_prepare<prepare<3>>, op_flags::kAdaptTypes,
          &parse_as<PoolGeometry, read_geometry<3>>};
}

}  // namespace openhtp::ops::detail
