// ImageProjectionTransform: a projective warp of an NHWC image, as
// TensorFlow's ImageProjectiveTransformV2 with fill_mode CONSTANT and fill
// value 0 (tfa.image.transform).
//
//   in[0]  image [N, H, W, C]
//   in[1]  transforms [N, 8] or [1, 8] (one for every image): (a0 .. a7)
//   param  interpolation_mode u32, 0 (BILINEAR 0, NEAREST_NEIGHBOR 1)
//   out[0] [N, H', W', C] (the output size from out[0])
//
// Output pixel (x, y) (x along W) samples the input at
//   k = a6 x + a7 y + 1,  x' = (a0 x + a1 y + a2) / k,  y' = (a3 x + a4 y + a5) / k
// (k = 0 gives 0). NEAREST reads (round(y'), round(x')) (half away from
// zero); BILINEAR weights the four pixels around (y', x'). A pixel outside
// the image reads 0, each neighbour on its own.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct Warp {
  uint32_t n = 0, h = 0, w = 0, c = 0, oh = 0, ow = 0;
  bool shared = false, nearest = false;
};

class WarpKernel final : public OpKernel {
 public:
  explicit WarpKernel(const Warp& g) : g_(g) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* img = static_cast<const float*>(in[0]);
    const float* t_all = static_cast<const float*>(in[1]);
    float* y = static_cast<float*>(out[0]);
    for (uint32_t b = 0; b < g_.n; ++b) {
      const float* t = t_all + (g_.shared ? 0 : size_t{b} * 8);
      const float* im = img + size_t{b} * g_.h * g_.w * g_.c;
      for (uint32_t oy = 0; oy < g_.oh; ++oy)
        for (uint32_t ox = 0; ox < g_.ow; ++ox) {
          float* o = y + ((size_t{b} * g_.oh + oy) * g_.ow + ox) * g_.c;
          const float k = t[6] * ox + t[7] * oy + 1.0f;
          if (k == 0.0f) {
            for (uint32_t ch = 0; ch < g_.c; ++ch) o[ch] = 0.0f;
            continue;
          }
          const float sx = (t[0] * ox + t[1] * oy + t[2]) / k;
          const float sy = (t[3] * ox + t[4] * oy + t[5]) / k;
          for (uint32_t ch = 0; ch < g_.c; ++ch) o[ch] = sample(im, sy, sx, ch);
        }
    }
  }

 private:
  float read(const float* im, float yf, float xf, uint32_t ch) const {
    if (!(yf >= 0.0f && yf < float(g_.h) && xf >= 0.0f && xf < float(g_.w))) return 0.0f;
    return im[(size_t(yf) * g_.w + size_t(xf)) * g_.c + ch];
  }
  float sample(const float* im, float sy, float sx, uint32_t ch) const {
    if (!std::isfinite(sx) || !std::isfinite(sy)) return 0.0f;
    if (g_.nearest) return read(im, std::round(sy), std::round(sx), ch);
    const float y0 = std::floor(sy), x0 = std::floor(sx), y1 = y0 + 1, x1 = x0 + 1;
    const float top = (x1 - sx) * read(im, y0, x0, ch) + (sx - x0) * read(im, y0, x1, ch);
    const float bottom = (x1 - sx) * read(im, y1, x0, ch) + (sx - x0) * read(im, y1, x1, ch);
    return (y1 - sy) * top + (sy - y0) * bottom;
  }
  Warp g_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"image", "transforms"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"interpolation_mode"}); !s.ok()) return s;
  uint32_t mode = 0;
  if (Status s = params.u32_scalar("interpolation_mode", 0u, &mode); !s.ok()) return s;
  if (mode > 1) {
    return invalid(node, "parameter 'interpolation_mode' is ", mode, ", expected BILINEAR 0 or NEAREST_NEIGHBOR 1");
  }
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& t = node.inputs[1];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_rank(node, x, in_label(0, "image"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, t, in_label(1, "transforms"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, y, out_label(0), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (t.dims[1] != 8 || (t.dims[0] != x.dims[0] && t.dims[0] != 1)) {
    return invalid(node, "in[1] (transforms) dims are ", dims_str(t.dims), ", expected [", x.dims[0], ",8] or [1,8]");
  }
  if (y.dims[0] != x.dims[0] || y.dims[3] != x.dims[3]) {
    return invalid(node, "out[0] dims are ", dims_str(y.dims), ", expected [", x.dims[0], ",H',W',", x.dims[3],
                   "] (batch and channels of in[0])");
  }
  Warp g;
  g.n = x.dims[0];
  g.h = x.dims[1];
  g.w = x.dims[2];
  g.c = x.dims[3];
  g.oh = y.dims[1];
  g.ow = y.dims[2];
  g.shared = t.dims[0] == 1;
  g.nearest = mode == 1;
  if (kernel) *kernel = std::make_unique<WarpKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef image_projection_transform_def() {
  return {"ImageProjectionTransform", &guarded_prepare<prepare>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
