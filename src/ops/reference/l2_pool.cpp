// L2Pool2d (NHWC): y = sqrt(mean of x^2 over the input positions of the
// filter window at (o * stride - pad_begin) per axis). The window and output
// size are PoolMax2d's with FLOOR rounding (pool_geometry.h; L2Pool2d has no
// rounding_mode). Padding never counts in the mean: as NNAPI's and TFLite's
// L2_POOL_2D, which QNN's op mirrors, divide by the real positions only. A
// window of only padding has no mean and is refused, as PoolAvg2d does.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/pool_window.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class L2PoolKernel final : public OpKernel {
 public:
  L2PoolKernel(const PoolGeometry& g, PoolTaps taps) : g_(g), taps_(std::move(taps)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    const PoolAxis &ah = g_.axes[1], &aw = g_.axes[2];
    const size_t C = g_.C;
    for (size_t n = 0; n < g_.N; ++n) {
      for (size_t oh = 0; oh < ah.out; ++oh) {
        const TapRange rh = taps_[1][oh];
        for (size_t ow = 0; ow < aw.out; ++ow) {
          const TapRange rw = taps_[2][ow];
          float* yp = y + ((n * ah.out + oh) * aw.out + ow) * C;
          for (size_t c = 0; c < C; ++c) yp[c] = 0.0f;
          for (size_t kh = rh.lo; kh < rh.hi; ++kh) {
            const size_t ih = oh * ah.stride + kh - ah.pad_begin;
            for (size_t kw = rw.lo; kw < rw.hi; ++kw) {
              const size_t iw = ow * aw.stride + kw - aw.pad_begin;
              const float* xp = x + ((n * ah.in + ih) * aw.in + iw) * C;
              for (size_t c = 0; c < C; ++c) yp[c] += xp[c] * xp[c];
            }
          }
          const float inv = 1.0f / static_cast<float>(uint64_t{rh.hi - rh.lo} * (rw.hi - rw.lo));
          for (size_t c = 0; c < C; ++c) yp[c] = std::sqrt(yp[c] * inv);
        }
      }
    }
  }

 private:
  PoolGeometry g_;
  PoolTaps taps_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  // L2Pool2d's own names first (it has no rounding_mode); the rest is
  // PoolMax2d's window, whose rounding then defaults to FLOOR.
  if (Status s = ParamReader(node).check_names({"filter_size", "stride", "pad_amount"}); !s.ok()) return s;
  PoolGeometry g;
  if (Status s = read_pool_geometry(node, 2, PoolKind::kMax, &g); !s.ok()) return s;
  PoolTaps taps = pool_taps(g);
  for (size_t i = 1; i < 3; ++i) {
    const PoolAxis& a = g.axes[i];
    for (uint64_t o = 0; o < a.out; ++o) {
      if (taps[i][o].lo == taps[i][o].hi) {
        return unsupported(node, pool_output_name(i), " ", o, " pools only padding (no input positions)");
      }
    }
  }
  if (kernel) *kernel = std::make_unique<L2PoolKernel>(g, std::move(taps));
  return Status::Ok();
}

}  // namespace

OpDef l2_pool2d_def() { return {"L2Pool2d", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
