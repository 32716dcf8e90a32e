// ExtractGlimpse: TensorFlow's extract_glimpse, v2 semantics
// (tf.image.extract_glimpse of TF 2.x, ExtractGlimpseV2):
//
//   in[0] images [batch, h, w, c]
//   in[1] offsets [batch, 2]: (y, x) of each glimpse
//   params size (INT_32 or UINT_32 [2], mandatory): (glimpse_h, glimpse_w),
//          each >= 1; centered (bool, default 1); normalized (bool,
//          default 1); noise (u32, default UNIFORM 0, as TensorFlow;
//          GAUSSIAN 1, ZEROES 2)
//   out[0] [batch, glimpse_h, glimpse_w, c]
//
// The glimpse's top-left pixel (oy, ox), computed in float as TensorFlow v2:
//   normalized and centered: y = y * h / 2 + h / 2 - glimpse_h / 2 (x alike)
//   normalized only:         y = y * h
//   centered only:           y = y + h / 2
//   neither:                 y = y (pixels)
// then truncated toward zero. out[b, r, s, :] = in[b, oy + r, ox + s, :]
// where that pixel lies in the image; elsewhere the noise fill.
//
// Decision on the noise: TensorFlow draws random values, which no golden
// model can state, only where a glimpse leaves the image (a glimpse inside
// it is the same for every mode). Here those pixels get the mean of the
// distribution TensorFlow draws from, so the output is deterministic:
// UNIFORM the midpoint (min + max) / 2 of that image's values (all
// channels), GAUSSIAN each channel's mean over that image, ZEROES 0 (exactly
// TensorFlow's). An offset that is not finite, or puts the glimpse more than
// 2^30 pixels away, gives a glimpse entirely of the fill.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr uint32_t kNoiseUniform = 0, kNoiseGaussian = 1, kNoiseZeroes = 2;

struct GlimpseGeometry {
  size_t batch = 0, h = 0, w = 0, c = 0, gh = 0, gw = 0;
  bool centered = true, normalized = true;
  uint32_t noise = kNoiseUniform;
};

class ExtractGlimpseKernel final : public OpKernel {
 public:
  explicit ExtractGlimpseKernel(const GlimpseGeometry& g) : g_(g), fill_(g.c) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* images = static_cast<const float*>(in[0]);
    const float* offsets = static_cast<const float*>(in[1]);
    float* o = static_cast<float*>(out[0]);
    const size_t H = g_.h, W = g_.w, C = g_.c, GH = g_.gh, GW = g_.gw;
    const float fh = static_cast<float>(H), fw = static_cast<float>(W);
    for (size_t b = 0; b < g_.batch; ++b) {
      const float* img = images + b * H * W * C;
      float y = offsets[b * 2], x = offsets[b * 2 + 1];
      if (g_.normalized) {
        y *= fh;
        x *= fw;
        if (g_.centered) {
          y = y / 2.0f + fh / 2.0f - static_cast<float>(GH) / 2.0f;
          x = x / 2.0f + fw / 2.0f - static_cast<float>(GW) / 2.0f;
        }
      } else if (g_.centered) {
        y += fh / 2.0f;
        x += fw / 2.0f;
      }
      constexpr float kFar = 1073741824.0f;  // 2^30
      const bool usable = std::fabs(y) < kFar && std::fabs(x) < kFar;  // false for NaN too
      const int64_t oy = usable ? static_cast<int64_t>(y) : INT64_MIN / 2;  // truncation toward zero
      const int64_t ox = usable ? static_cast<int64_t>(x) : INT64_MIN / 2;
      const bool inside = usable && oy >= 0 && ox >= 0 && oy + static_cast<int64_t>(GH) <= static_cast<int64_t>(H) &&
                          ox + static_cast<int64_t>(GW) <= static_cast<int64_t>(W);
      if (!inside) compute_fill(img);
      float* ob = o + b * GH * GW * C;
      for (size_t r = 0; r < GH; ++r) {
        const int64_t iy = oy + static_cast<int64_t>(r);
        for (size_t s = 0; s < GW; ++s) {
          const int64_t ix = ox + static_cast<int64_t>(s);
          float* dst = ob + (r * GW + s) * C;
          if (usable && iy >= 0 && iy < static_cast<int64_t>(H) && ix >= 0 && ix < static_cast<int64_t>(W)) {
            const float* src = img + (static_cast<size_t>(iy) * W + static_cast<size_t>(ix)) * C;
            std::copy(src, src + C, dst);
          } else {
            std::copy(fill_.begin(), fill_.end(), dst);
          }
        }
      }
    }
  }

 private:
  // The value of each channel where the glimpse leaves image `img`.
  void compute_fill(const float* img) {
    const size_t C = g_.c, P = g_.h * g_.w;
    if (g_.noise == kNoiseZeroes) {
      std::fill(fill_.begin(), fill_.end(), 0.0f);
    } else if (g_.noise == kNoiseUniform) {
      float lo = img[0], hi = img[0];
      for (size_t i = 1; i < P * C; ++i) {
        lo = std::min(lo, img[i]);
        hi = std::max(hi, img[i]);
      }
      std::fill(fill_.begin(), fill_.end(), static_cast<float>((double{lo} + hi) / 2.0));
    } else {
      for (size_t ch = 0; ch < C; ++ch) {
        double sum = 0.0;
        for (size_t i = 0; i < P; ++i) sum += img[i * C + ch];
        fill_[ch] = static_cast<float>(sum / static_cast<double>(P));
      }
    }
  }

  GlimpseGeometry g_;
  std::vector<float> fill_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  const TensorDesc& images = node.inputs[0];
  const TensorDesc& offsets = node.inputs[1];
  if (Status s = check_f32_tensor(node, images, in_label(0, "input")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, offsets, in_label(1, "offsets")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"size", "centered", "normalized", "noise"}); !s.ok()) return s;
  GlimpseGeometry g;
  const uint32_t size_dims[] = {2};
  std::vector<uint32_t> size;
  if (Status s = params.u32_tensor("size", size_dims, {}, &size); !s.ok()) return s;
  if (Status s = params.bool_scalar("centered", true, &g.centered); !s.ok()) return s;
  if (Status s = params.bool_scalar("normalized", true, &g.normalized); !s.ok()) return s;
  if (Status s = params.u32_scalar("noise", kNoiseUniform, &g.noise); !s.ok()) return s;
  if (g.noise > kNoiseZeroes) {
    return invalid(node, "parameter 'noise' is ", g.noise, ", expected UNIFORM 0, GAUSSIAN 1 or ZEROES 2");
  }
  if (size[0] == 0 || size[1] == 0) {
    return invalid(node, "parameter 'size' is [", size[0], ",", size[1], "], expected both >= 1");
  }
  if (Status s = check_rank(node, images, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) {
    return s;
  }
  const uint32_t want_offsets[] = {images.dims[0], 2};
  if (offsets.dims.size() != 2 || offsets.dims[0] != images.dims[0] || offsets.dims[1] != 2) {
    return invalid(node, "in[1] (offsets) dims are ", dims_str(offsets.dims), ", expected ", dims_str(want_offsets),
                   " ((y, x) per batch)");
  }
  g.batch = images.dims[0];
  g.h = images.dims[1];
  g.w = images.dims[2];
  g.c = images.dims[3];
  g.gh = size[0];
  g.gw = size[1];
  const uint32_t want[] = {images.dims[0], size[0], size[1], images.dims[3]};
  if (Status s = check_output_dims(node, 0, want); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<ExtractGlimpseKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef extract_glimpse_def() { return {"ExtractGlimpse", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
