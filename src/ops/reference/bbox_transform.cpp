// BboxTransform: caffe2's BBoxTransform (refine each roi by per-class
// regression deltas) with QNN's inputs, which are AxisAlignedBboxTransform's
// (QNN's converters split caffe2's [R, 5] rois (batch, x1, y1, x2, y2) into
// in[0] and in[2], and keep only (height, width) of its image info):
//
//   in[0] rois [R, 4] (x1, y1, x2, y2), or rotated [R, 5] (ctr_x, ctr_y, w,
//         h, angle in degrees)
//   in[1] deltas [R, K*4] (dx, dy, dw, dh) per class; [R, K*5] (dx, dy, dw,
//         dh, da with da in radians) for rotated rois
//   in[2] batch_indices [R] (INT_32 or UINT_32)
//   in[3] image sizes [batch, 2] (height, width)
//   param weights [4] FLOAT_32 (wx, wy, ww, wh), each > 0, default all 1
//   param apply_scale (bool, default 1): caffe2 divides by the image scale
//         before the transform and multiplies back after it when set; QNN's
//         image info has no scale (its converters require scale 1), so it
//         changes nothing here: accepted, without effect
//   param angle_bounds [2] INT_32 or FLOAT_32 (lo, hi), default (-90, 90):
//         hi > lo and hi - lo a multiple of 180 (caffe2's rule: a box turned
//         by 180 degrees is the same box)
//   param angle_clip_threshold FLOAT_32 (degrees), default 1
//   out[0] [R, K*4] or [R, K*5], in in[0]'s box form
//   out[1] (optional) [batch] INT_32 or UINT_32: the number of rois of each
//         image (caffe2's roi_batch_splits)
//
// Upright rois: AxisAlignedBboxTransform's formula (box_math.h: no +1 in
// sizes, boxes clamped into the image) with caffe2's clip of dw/ww and dh/wh
// at log(1000/16) before the exp.
// Rotated rois (caffe2's rotated form, legacy_plus_one off):
//   centre' = centre + (dx/wx * w, dy/wy * h)
//   w' = w * exp(min(dw/ww, clip)), h' = h * exp(min(dh/wh, clip))
//   angle' = angle + da * 180/pi, brought into [lo, hi] by whole periods
//            (hi - lo) (caffe2 adds or subtracts one period; that is the
//            same whenever one suffices)
//   a box with |angle'| <= angle_clip_threshold (near-horizontal) is clipped
//   as the upright box centre' -+ size'/2 clamped into the image, then
//   turned back into centre and size; other boxes are not clipped
// A run-time batch index outside the batch gives that roi's rows as 0 and is
// not counted in out[1].
#include <cmath>
#include <cstring>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/box_math.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

inline constexpr double kDegreesPerRadian = 57.295779513082320876798;  // 180 / pi

struct BboxTransformGeometry {
  size_t rois = 0, classes = 0, batch = 0;
  bool rotated = false, signed_index = true;
  float weights[4] = {1, 1, 1, 1};
  double angle_lo = -90.0, angle_hi = 90.0, angle_clip = 1.0;
  bool has_splits = false;
};

class BboxTransformKernel final : public OpKernel {
 public:
  explicit BboxTransformKernel(const BboxTransformGeometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* rois = static_cast<const float*>(in[0]);
    const float* deltas = static_cast<const float*>(in[1]);
    const float* sizes = static_cast<const float*>(in[3]);
    float* y = static_cast<float*>(out[0]);
    const size_t K = g_.classes, dim = g_.rotated ? 5 : 4;
    int32_t* splits = g_.has_splits ? static_cast<int32_t*>(out[1]) : nullptr;  // UINT_32: same small values
    if (splits != nullptr) std::memset(splits, 0, g_.batch * sizeof(int32_t));
    for (size_t r = 0; r < g_.rois; ++r) {
      const int64_t b = index_at(in[2], g_.signed_index, r);
      float* yr = y + r * K * dim;
      if (b < 0 || static_cast<uint64_t>(b) >= g_.batch) {
        std::memset(yr, 0, K * dim * sizeof(float));
        continue;
      }
      if (splits != nullptr) ++splits[b];
      const double img_h = sizes[b * 2], img_w = sizes[b * 2 + 1];
      for (size_t k = 0; k < K; ++k) {
        const float* d = deltas + (r * K + k) * dim;
        if (g_.rotated) {
          rotated(rois + r * 5, d, img_h, img_w, yr + k * 5);
        } else {
          transform_upright_box(rois + r * 4, d, g_.weights, kBoxXformClip, img_h, img_w, yr + k * 4);
        }
      }
    }
  }

 private:
  void rotated(const float* roi, const float* d, double img_h, double img_w, float* o) const {
    const double w = roi[2], h = roi[3];
    double cx = roi[0] + d[0] / double{g_.weights[0]} * w;
    double cy = roi[1] + d[1] / double{g_.weights[1]} * h;
    double lw = d[2] / double{g_.weights[2]}, lh = d[3] / double{g_.weights[3]};
    if (lw > kBoxXformClip) lw = kBoxXformClip;
    if (lh > kBoxXformClip) lh = kBoxXformClip;
    double nw = w * std::exp(lw), nh = h * std::exp(lh);
    double angle = roi[4] + d[4] * kDegreesPerRadian;
    const double period = g_.angle_hi - g_.angle_lo;
    if (angle > g_.angle_hi) angle -= period * std::ceil((angle - g_.angle_hi) / period);
    if (angle < g_.angle_lo) angle += period * std::ceil((g_.angle_lo - angle) / period);
    if (std::fabs(angle) <= g_.angle_clip) {
      auto clamp = [](double v, double hi) { return std::fmin(std::fmax(v, 0.0), hi); };
      const double x1 = clamp(cx - nw / 2, img_w), x2 = clamp(cx + nw / 2, img_w);
      const double y1 = clamp(cy - nh / 2, img_h), y2 = clamp(cy + nh / 2, img_h);
      cx = (x1 + x2) / 2;
      cy = (y1 + y2) / 2;
      nw = x2 - x1;
      nh = y2 - y1;
    }
    o[0] = static_cast<float>(cx);
    o[1] = static_cast<float>(cy);
    o[2] = static_cast<float>(nw);
    o[3] = static_cast<float>(nh);
    o[4] = static_cast<float>(angle);
  }

  BboxTransformGeometry g_;
};

// angle_bounds: optional tensor [2] (INT_32 or FLOAT_32), hi > lo, hi - lo a
// multiple of 180.
Status read_angle_bounds(const NodeDesc& node, BboxTransformGeometry* g) {
  const Param* p = node.find_param("angle_bounds");
  if (p == nullptr) return Status::Ok();
  if (!p->is_tensor || (p->dtype != dtype::kInt32 && p->dtype != dtype::kFloat32) || p->dims.size() != 1 ||
      p->dims[0] != 2 || p->data.size() != 8) {
    return invalid(node, "parameter 'angle_bounds' must be an INT_32 or FLOAT_32 tensor of shape [2]");
  }
  double v[2];
  for (int i = 0; i < 2; ++i) {
    if (p->dtype == dtype::kInt32) {
      int32_t x;
      std::memcpy(&x, p->data.data() + 4 * i, 4);
      v[i] = x;
    } else {
      float x;
      std::memcpy(&x, p->data.data() + 4 * i, 4);
      v[i] = x;
    }
  }
  const double period = v[1] - v[0];
  if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !(period > 0.0) || std::fmod(period, 180.0) != 0.0) {
    return invalid(node, "parameter 'angle_bounds' is [", v[0], ",", v[1],
                   "], expected lo < hi with hi - lo a multiple of 180");
  }
  g->angle_lo = v[0];
  g->angle_hi = v[1];
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.inputs.size() != 4) return invalid(node, "has ", node.inputs.size(), " inputs, expected 4");
  if (node.outputs.size() < 1 || node.outputs.size() > 2) {
    return invalid(node, "has ", node.outputs.size(), " outputs, expected 1 or 2");
  }
  const TensorDesc& rois = node.inputs[0];
  const TensorDesc& deltas = node.inputs[1];
  const TensorDesc& index = node.inputs[2];
  const TensorDesc& sizes = node.inputs[3];
  if (Status s = check_f32_tensor(node, rois, in_label(0, "rois")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, deltas, in_label(1, "deltas")); !s.ok()) return s;
  if (Status s = check_index_tensor(node, index, in_label(2, "batch_indices")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, sizes, in_label(3, "image_sizes")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  BboxTransformGeometry g;
  g.has_splits = node.outputs.size() == 2;
  if (g.has_splits) {
    if (Status s = check_index_tensor(node, node.outputs[1], out_label(1)); !s.ok()) return s;
  }
  ParamReader params(node);
  if (Status s = params.check_names({"weights", "apply_scale", "angle_bounds", "angle_clip_threshold"}); !s.ok())
    return s;
  if (Status s = read_box_weights(node, g.weights); !s.ok()) return s;
  bool apply_scale = true;
  if (Status s = params.bool_scalar("apply_scale", true, &apply_scale); !s.ok()) return s;
  (void)apply_scale;  // no image scale in QNN's image info (see the top)
  if (Status s = read_angle_bounds(node, &g); !s.ok()) return s;
  float clip = 1.0f;
  if (Status s = params.f32_scalar("angle_clip_threshold", 1.0f, &clip); !s.ok()) return s;
  g.angle_clip = clip;
  if (Status s = check_rank(node, rois, in_label(0, "rois"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, deltas, in_label(1, "deltas"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, index, in_label(2, "batch_indices"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (Status s = check_rank(node, sizes, in_label(3, "image_sizes"), 2, 2, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (rois.dims[1] != 4 && rois.dims[1] != 5) {
    return invalid(node, "in[0] (rois) dim 1 is ", rois.dims[1], ", expected 4 (x1,y1,x2,y2) or 5 (rotated)");
  }
  g.rotated = rois.dims[1] == 5;
  const uint32_t dim = rois.dims[1];
  if (deltas.dims[0] != rois.dims[0] || deltas.dims[1] % dim != 0) {
    return invalid(node, "in[1] (deltas) dims are ", dims_str(deltas.dims), ", expected [", rois.dims[0],
                   ",num_classes*", dim, "]");
  }
  if (index.dims[0] != rois.dims[0]) {
    return invalid(node, "in[2] (batch_indices) dim 0 is ", index.dims[0], ", expected num_rois = ", rois.dims[0]);
  }
  if (sizes.dims[1] != 2) return invalid(node, "in[3] (image_sizes) dim 1 is ", sizes.dims[1], ", expected 2");
  if (Status s = check_output_dims(node, 0, deltas.dims); !s.ok()) return s;
  g.rois = rois.dims[0];
  g.classes = deltas.dims[1] / dim;
  g.batch = sizes.dims[0];
  g.signed_index = index.dtype == dtype::kInt32;
  if (g.has_splits) {
    const uint32_t want[] = {sizes.dims[0]};
    if (Status s = check_output_dims(node, 1, want); !s.ok()) return s;
  }
  if (index.static_data != nullptr) {
    for (size_t r = 0; r < g.rois; ++r) {
      const int64_t v = index_at(index.static_data, g.signed_index, r);
      if (v < 0 || static_cast<uint64_t>(v) >= g.batch) {
        return invalid(node, "in[2] (batch_indices) element ", r, " is ", v, ", expected 0 to batch-1 = ",
                       g.batch - 1);
      }
    }
  }
  if (kernel) *kernel = std::make_unique<BboxTransformKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef bbox_transform_def() { return {"BboxTransform", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
