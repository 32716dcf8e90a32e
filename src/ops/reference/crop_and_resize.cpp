// CropAndResize: image [batch, H, W, C], boxes [num_boxes, 4] as normalized
// (y1, x1, y2, x2), box_indices [num_boxes] (INT_32 or UINT_32, the image of
// each box), resize_dims (crop_h, crop_w); output [num_boxes, crop_h, crop_w,
// C]. As TensorFlow's crop_and_resize, which QNN's op mirrors: normalized y
// maps to y * (H - 1), and output row r of a box samples
//
//   in_y = y1 * (H-1) + r * (y2 - y1) * (H-1) / (crop_h - 1)   (crop_h > 1)
//   in_y = (y1 + y2) / 2 * (H-1)                                (crop_h = 1)
//
// (x likewise). y1 > y2 flips the crop. A sample outside [0, H-1] x [0, W-1]
// is extrapolation_value. interpolation_mode 0 blends the four neighbours
// (bilinear), 1 takes the nearest (halves away from zero, as TF's round).
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr uint32_t kBilinear = 0, kNearest = 1;

struct CropGeometry {
  size_t batch = 0, H = 0, W = 0, C = 0, boxes = 0, crop_h = 0, crop_w = 0;
  bool nearest = false, signed_index = true;
  float extrapolation = 0.0f;
};

class CropAndResizeKernel final : public OpKernel {
 public:
  explicit CropAndResizeKernel(const CropGeometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* image = static_cast<const float*>(in[0]);
    const float* boxes = static_cast<const float*>(in[1]);
    float* y = static_cast<float*>(out[0]);
    const size_t C = g_.C, box_size = g_.crop_h * g_.crop_w * C;
    for (size_t b = 0; b < g_.boxes; ++b) {
      float* yb = y + b * box_size;
      const int64_t index = g_.signed_index ? int64_t{static_cast<const int32_t*>(in[2])[b]}
                                            : int64_t{static_cast<const uint32_t*>(in[2])[b]};
      // An index outside the batch (only knowable at run time for a
      // non-static tensor) has no image: the box is all extrapolation_value.
      if (index < 0 || static_cast<uint64_t>(index) >= g_.batch) {
        for (size_t i = 0; i < box_size; ++i) yb[i] = g_.extrapolation;
        continue;
      }
      const float* img = image + static_cast<size_t>(index) * g_.H * g_.W * C;
      const double y1 = boxes[b * 4], x1 = boxes[b * 4 + 1], y2 = boxes[b * 4 + 2], x2 = boxes[b * 4 + 3];
      for (size_t r = 0; r < g_.crop_h; ++r) {
        const double in_y = sample_at(y1, y2, r, g_.crop_h, g_.H);
        for (size_t c = 0; c < g_.crop_w; ++c) {
          const double in_x = sample_at(x1, x2, c, g_.crop_w, g_.W);
          float* yp = yb + (r * g_.crop_w + c) * C;
          if (!inside(in_y, g_.H) || !inside(in_x, g_.W)) {
            for (size_t k = 0; k < C; ++k) yp[k] = g_.extrapolation;
            continue;
          }
          if (g_.nearest) {
            const size_t ny = static_cast<size_t>(std::round(in_y)), nx = static_cast<size_t>(std::round(in_x));
            const float* xp = img + (ny * g_.W + nx) * C;
            for (size_t k = 0; k < C; ++k) yp[k] = xp[k];
            continue;
          }
          const size_t top = static_cast<size_t>(std::floor(in_y)), bottom = static_cast<size_t>(std::ceil(in_y));
          const size_t left = static_cast<size_t>(std::floor(in_x)), right = static_cast<size_t>(std::ceil(in_x));
          const float fy = static_cast<float>(in_y - top), fx = static_cast<float>(in_x - left);
          const float* tl = img + (top * g_.W + left) * C;
          const float* tr = img + (top * g_.W + right) * C;
          const float* bl = img + (bottom * g_.W + left) * C;
          const float* br = img + (bottom * g_.W + right) * C;
          for (size_t k = 0; k < C; ++k) {
            const float t = tl[k] + (tr[k] - tl[k]) * fx;
            const float bo = bl[k] + (br[k] - bl[k]) * fx;
            yp[k] = t + (bo - t) * fy;
          }
        }
      }
    }
  }

 private:
  static double sample_at(double lo, double hi, size_t i, size_t n, size_t size) {
    const double scale = static_cast<double>(size) - 1;
    if (n == 1) return (lo + hi) / 2 * scale;
    return lo * scale + static_cast<double>(i) * (hi - lo) * scale / static_cast<double>(n - 1);
  }
  static bool inside(double v, size_t size) { return v >= 0 && v <= static_cast<double>(size) - 1; }  // false for NaN

  CropGeometry g_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 3, 3, 1); !s.ok()) return s;
  const TensorDesc& image = node.inputs[0];
  const TensorDesc& boxes = node.inputs[1];
  const TensorDesc& index = node.inputs[2];
  if (Status s = check_f32_tensor(node, image, in_label(0, "input")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, boxes, in_label(1, "boxes")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, index, in_label(2, "box_indices")); !s.ok()) return s;
  if (index.dtype != dtype::kInt32 && index.dtype != dtype::kUint32) {
    return invalid(node, "in[2] (box_indices) data type is ", dtype::name(index.dtype), ", expected INT_32 or UINT_32");
  }
  ParamReader params(node);
  if (Status s = params.check_names({"resize_dims", "interpolation_mode", "extrapolation_value"}); !s.ok()) return s;
  static constexpr uint32_t kDims2[] = {2};
  std::vector<uint32_t> dims;
  if (Status s = params.u32_tensor("resize_dims", kDims2, {}, &dims); !s.ok()) return s;
  if (dims[0] == 0 || dims[1] == 0) {
    return invalid(node, "parameter 'resize_dims' is [", dims[0], ",", dims[1], "], expected both >= 1");
  }
  uint32_t mode = kBilinear;
  if (Status s = params.u32_scalar("interpolation_mode", kBilinear, &mode); !s.ok()) return s;
  if (mode != kBilinear && mode != kNearest) {
    return invalid(node, "parameter 'interpolation_mode' is ", mode, ", expected 0 (BILINEAR) or 1 (NEAREST_NEIGHBOR)");
  }
  CropGeometry g;
  if (Status s = params.f32_scalar("extrapolation_value", 0.0f, &g.extrapolation); !s.ok()) return s;
  if (Status s = check_rank(node, image, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, boxes, in_label(1, "boxes"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, index, in_label(2, "box_indices"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (boxes.dims[1] != 4) return invalid(node, "in[1] (boxes) dim 1 is ", boxes.dims[1], ", expected 4");
  if (index.dims[0] != boxes.dims[0]) {
    return invalid(node, "in[2] (box_indices) dim 0 is ", index.dims[0], ", expected num_boxes = in[1] dim 0 = ",
                   boxes.dims[0]);
  }
  const bool is_signed = index.dtype == dtype::kInt32;
  if (index.static_data != nullptr) {
    for (size_t b = 0; b < index.dims[0]; ++b) {
      const int64_t v = is_signed ? int64_t{static_cast<const int32_t*>(index.static_data)[b]}
                                  : int64_t{static_cast<const uint32_t*>(index.static_data)[b]};
      if (v < 0 || v >= image.dims[0]) {
        return invalid(node, "in[2] (box_indices) element ", b, " is ", v, ", expected 0 to batch-1 = ",
                       image.dims[0] - 1);
      }
    }
  }
  const uint32_t out_dims[] = {boxes.dims[0], dims[0], dims[1], image.dims[3]};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  g.batch = image.dims[0];
  g.H = image.dims[1];
  g.W = image.dims[2];
  g.C = image.dims[3];
  g.boxes = boxes.dims[0];
  g.crop_h = dims[0];
  g.crop_w = dims[1];
  g.nearest = mode == kNearest;
  g.signed_index = is_signed;
  if (kernel) *kernel = std::make_unique<CropAndResizeKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef crop_and_resize_def() { return {"CropAndResize", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
