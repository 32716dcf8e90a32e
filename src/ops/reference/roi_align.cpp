// RoiAlign: feature map [batch, H, W, C], rois [num_rois, 4] as (x1, y1,
// x2, y2) in image coordinates, batch_indices [num_rois] (INT_32 or
// UINT_32); output [num_rois, Ho, Wo, C], Ho and Wo given by the output
// tensor. As NNAPI's ROI_ALIGN, whose parameters QNN's op carries
// (img_size_ratio = image size / feature map size, per-bin sample counts):
//
//   roi on the feature map: x1 / width_ratio .. x2 / width_ratio (y likewise),
//     minus 0.5 with `aligned` (the half-pixel shift of Detectron2's and
//     ONNX's half_pixel mode); its size is at least 1 unless `aligned`
//   bin (i, j): Ho x Wo equal bins of the roi; each is sampled on an
//     sy x sx grid at the centres of equal sub-bins, sy = num_samples_y, or
//     ceil(bin height) when that is <= 0 (adaptive)
//   sample: bilinear on the map, position clamped into it; a sample more than
//     one pixel outside the map (< -1 or > H) reads 0
//   y[r][i][j][c] = mean of the bin's samples
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/roi_inputs.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct RoiGeometry {
  size_t batch = 0, H = 0, W = 0, C = 0, rois = 0, Ho = 0, Wo = 0;
  float height_ratio = 1.0f, width_ratio = 1.0f;
  int64_t samples_y = 0, samples_x = 0;  // <= 0: adaptive
  bool aligned = false, signed_index = true;
};

class RoiAlignKernel final : public OpKernel {
 public:
  explicit RoiAlignKernel(const RoiGeometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* rois = static_cast<const float*>(in[1]);
    float* y = static_cast<float*>(out[0]);
    const size_t C = g_.C, roi_size = g_.Ho * g_.Wo * C;
    const double offset = g_.aligned ? 0.5 : 0.0;
    for (size_t r = 0; r < g_.rois; ++r) {
      float* yr = y + r * roi_size;
      for (size_t i = 0; i < roi_size; ++i) yr[i] = 0.0f;
      const int64_t index = g_.signed_index ? int64_t{static_cast<const int32_t*>(in[2])[r]}
                                            : int64_t{static_cast<const uint32_t*>(in[2])[r]};
      // An index outside the batch (only knowable at run time for a
      // non-static tensor) has no feature map: its output stays 0.
      if (index < 0 || static_cast<uint64_t>(index) >= g_.batch) continue;
      const float* map = x + static_cast<size_t>(index) * g_.H * g_.W * C;
      const float* roi = rois + r * 4;
      const double x0 = roi[0] / g_.width_ratio - offset, y0 = roi[1] / g_.height_ratio - offset;
      const double x1 = roi[2] / g_.width_ratio - offset, y1 = roi[3] / g_.height_ratio - offset;
      const double min_size = g_.aligned ? 0.0 : 1.0;
      const double roi_w = std::fmax(x1 - x0, min_size), roi_h = std::fmax(y1 - y0, min_size);
      const double bin_w = roi_w / static_cast<double>(g_.Wo), bin_h = roi_h / static_cast<double>(g_.Ho);
      const int64_t sx = g_.samples_x > 0 ? g_.samples_x : static_cast<int64_t>(std::ceil(bin_w));
      const int64_t sy = g_.samples_y > 0 ? g_.samples_y : static_cast<int64_t>(std::ceil(bin_h));
      if (sx <= 0 || sy <= 0) continue;  // an empty aligned roi: no samples, output 0
      const float inv_count = 1.0f / static_cast<float>(sx * sy);
      for (size_t i = 0; i < g_.Ho; ++i) {
        for (size_t j = 0; j < g_.Wo; ++j) {
          float* yp = yr + (i * g_.Wo + j) * C;
          for (int64_t a = 0; a < sy; ++a) {
            const double py = y0 + bin_h * (static_cast<double>(i) + (a + 0.5) / static_cast<double>(sy));
            for (int64_t b = 0; b < sx; ++b) {
              const double px = x0 + bin_w * (static_cast<double>(j) + (b + 0.5) / static_cast<double>(sx));
              accumulate(map, py, px, yp);
            }
          }
          for (size_t c = 0; c < C; ++c) yp[c] *= inv_count;
        }
      }
    }
  }

 private:
  void accumulate(const float* map, double py, double px, float* yp) const {
    const double H = static_cast<double>(g_.H), W = static_cast<double>(g_.W);
    if (!(py >= -1.0 && py <= H && px >= -1.0 && px <= W)) return;  // also NaN
    py = std::fmin(std::fmax(py, 0.0), H - 1);
    px = std::fmin(std::fmax(px, 0.0), W - 1);
    const size_t top = static_cast<size_t>(py), left = static_cast<size_t>(px);
    const size_t bottom = std::min(top + 1, g_.H - 1), right = std::min(left + 1, g_.W - 1);
    const float fy = static_cast<float>(py - top), fx = static_cast<float>(px - left);
    const float w_tl = (1 - fy) * (1 - fx), w_tr = (1 - fy) * fx, w_bl = fy * (1 - fx), w_br = fy * fx;
    const float* tl = map + (top * g_.W + left) * g_.C;
    const float* tr = map + (top * g_.W + right) * g_.C;
    const float* bl = map + (bottom * g_.W + left) * g_.C;
    const float* br = map + (bottom * g_.W + right) * g_.C;
    for (size_t c = 0; c < g_.C; ++c) yp[c] += w_tl * tl[c] + w_tr * tr[c] + w_bl * bl[c] + w_br * br[c];
  }

  RoiGeometry g_;
};

// num_samples_y / num_samples_x: an integer scalar; absent or <= 0 means
// adaptive (NNAPI's 0; a negative value is read the same way).
Status read_samples(const NodeDesc& node, std::string_view name, int64_t* out) {
  *out = 0;
  const Param* p = node.find_param(name);
  if (p == nullptr) return Status::Ok();
  if (p->is_tensor) return invalid(node, "parameter '", name, "' is a tensor, expected a scalar");
  const bool is_float = p->dtype == dtype::kFloat32 || p->dtype == dtype::kFloat16 || p->dtype == dtype::kFloat64;
  if (is_float && std::floor(p->f) != p->f) {
    return invalid(node, "parameter '", name, "' is ", p->f, ", expected an integer");
  }
  *out = is_float ? static_cast<int64_t>(p->f) : p->i;
  return Status::Ok();
}


Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_roi_tensors(node); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& rois = node.inputs[1];
  const TensorDesc& index = node.inputs[2];
  const TensorDesc& y = node.outputs[0];
  ParamReader params(node);
  if (Status s = params.check_names({"img_size_ratio", "num_samples_y", "num_samples_x", "aligned",
                                     "allow_invalid_roi"});
      !s.ok())
    return s;
  RoiGeometry g;
  if (Status s = read_img_size_ratio(node, &g.height_ratio, &g.width_ratio); !s.ok()) return s;
  if (Status s = read_samples(node, "num_samples_y", &g.samples_y); !s.ok()) return s;
  if (Status s = read_samples(node, "num_samples_x", &g.samples_x); !s.ok()) return s;
  if (Status s = params.bool_scalar("aligned", false, &g.aligned); !s.ok()) return s;
  bool allow_invalid = false;
  if (Status s = params.bool_scalar("allow_invalid_roi", false, &allow_invalid); !s.ok()) return s;
  if (Status s = check_roi_shapes(node); !s.ok()) return s;
  g.signed_index = index.dtype == dtype::kInt32;
  // allow_invalid_roi = 0 promises x1 <= x2 and y1 <= y2; rois known at
  // prepare are held to it. (Run-time rois cannot be refused; an inverted
  // one computes as the formula says, its size clamped.)
  if (!allow_invalid && rois.static_data != nullptr) {
    const float* v = static_cast<const float*>(rois.static_data);
    for (size_t r = 0; r < rois.dims[0]; ++r) {
      if (!(v[r * 4] <= v[r * 4 + 2]) || !(v[r * 4 + 1] <= v[r * 4 + 3])) {
        return invalid(node, "in[1] (rois) row ", r, " has x2 < x1 or y2 < y1 and 'allow_invalid_roi' is 0");
      }
    }
  }
  g.batch = x.dims[0];
  g.H = x.dims[1];
  g.W = x.dims[2];
  g.C = x.dims[3];
  g.rois = rois.dims[0];
  g.Ho = y.dims[1];
  g.Wo = y.dims[2];
  if (kernel) *kernel = std::make_unique<RoiAlignKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef roi_align_def() { return {"RoiAlign", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
