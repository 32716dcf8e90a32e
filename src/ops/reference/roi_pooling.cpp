// RoiPooling: max pooling of each region of interest to a fixed grid, as
// NNAPI's ROI_POOLING (the op QNN's mirrors; the inputs are RoiAlign's):
//
//   in[0] feature map [batch, H, W, C], in[1] rois [num_rois, 4] as
//   (x1, y1, x2, y2) in image coordinates, in[2] batch_indices [num_rois]
//   (INT_32 or UINT_32); param img_size_ratio [2] = (height_ratio,
//   width_ratio), image size / feature map size, mandatory.
//   out[0] [num_rois, Ho, Wo, C], Ho and Wo given by the output tensor.
//
//   roi on the map: xs = round(x1 / width_ratio), xe = round(x2 / width_ratio)
//     (y likewise; round half away from zero); size max(xe - xs + 1, 1)
//   bin (i, j): rows floor(i * h/Ho) + ys .. ceil((i+1) * h/Ho) + ys
//     (end excluded), columns likewise, both clamped into the map
//   y[r][i][j][c] = max over the bin, 0 for a bin left empty by the clamp
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/roi_inputs.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct RoiPoolGeometry {
  size_t batch = 0, H = 0, W = 0, C = 0, rois = 0, Ho = 0, Wo = 0;
  float height_ratio = 1.0f, width_ratio = 1.0f;
  bool signed_index = true;
};

class RoiPoolingKernel final : public OpKernel {
 public:
  explicit RoiPoolingKernel(const RoiPoolGeometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* rois = static_cast<const float*>(in[1]);
    float* y = static_cast<float*>(out[0]);
    const size_t C = g_.C, roi_size = g_.Ho * g_.Wo * C;
    for (size_t r = 0; r < g_.rois; ++r) {
      float* yr = y + r * roi_size;
      std::fill(yr, yr + roi_size, 0.0f);
      const int64_t index = g_.signed_index ? int64_t{static_cast<const int32_t*>(in[2])[r]}
                                            : int64_t{static_cast<const uint32_t*>(in[2])[r]};
      // An index outside the batch (only knowable at run time) has no map: 0s.
      if (index < 0 || static_cast<uint64_t>(index) >= g_.batch) continue;
      const float* map = x + static_cast<size_t>(index) * g_.H * g_.W * C;
      const float* roi = rois + r * 4;
      const double xs = to_map(roi[0] / double{g_.width_ratio}), ys = to_map(roi[1] / double{g_.height_ratio});
      const double xe = to_map(roi[2] / double{g_.width_ratio}), ye = to_map(roi[3] / double{g_.height_ratio});
      const double roi_w = std::fmax(xe - xs + 1.0, 1.0), roi_h = std::fmax(ye - ys + 1.0, 1.0);
      const double step_w = roi_w / static_cast<double>(g_.Wo), step_h = roi_h / static_cast<double>(g_.Ho);
      for (size_t i = 0; i < g_.Ho; ++i) {
        const size_t h0 = clamp_index(std::floor(step_h * i + ys), g_.H);
        const size_t h1 = clamp_index(std::ceil(step_h * (i + 1) + ys), g_.H);
        for (size_t j = 0; j < g_.Wo; ++j) {
          const size_t w0 = clamp_index(std::floor(step_w * j + xs), g_.W);
          const size_t w1 = clamp_index(std::ceil(step_w * (j + 1) + xs), g_.W);
          if (h0 >= h1 || w0 >= w1) continue;  // empty after the clamp: stays 0
          float* yp = yr + (i * g_.Wo + j) * C;
          for (size_t c = 0; c < C; ++c) yp[c] = -std::numeric_limits<float>::infinity();
          for (size_t h = h0; h < h1; ++h) {
            for (size_t w = w0; w < w1; ++w) {
              const float* xp = map + (h * g_.W + w) * C;
              for (size_t c = 0; c < C; ++c) yp[c] = std::max(yp[c], xp[c]);
            }
          }
        }
      }
    }
  }

 private:
  // Round half away from zero; non-finite coordinates land at 0 (an empty
  // or one-pixel roi, never an out-of-range read).
  static double to_map(double v) { return std::isfinite(v) ? std::round(v) : 0.0; }
  static size_t clamp_index(double v, size_t n) {
    return v <= 0.0 ? 0 : (v >= static_cast<double>(n) ? n : static_cast<size_t>(v));
  }

  RoiPoolGeometry g_;
};


Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_roi_tensors(node); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& rois = node.inputs[1];
  const TensorDesc& index = node.inputs[2];
  const TensorDesc& y = node.outputs[0];
  ParamReader params(node);
  if (Status s = params.check_names({"img_size_ratio"}); !s.ok()) return s;
  RoiPoolGeometry g;
  if (Status s = read_img_size_ratio(node, &g.height_ratio, &g.width_ratio); !s.ok()) return s;
  if (Status s = check_roi_shapes(node); !s.ok()) return s;
  g.signed_index = index.dtype == dtype::kInt32;
  g.batch = x.dims[0];
  g.H = x.dims[1];
  g.W = x.dims[2];
  g.C = x.dims[3];
  g.rois = rois.dims[0];
  g.Ho = y.dims[1];
  g.Wo = y.dims[2];
  if (kernel) *kernel = std::make_unique<RoiPoolingKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef roi_pooling_def() { return {"RoiPooling", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
