// CombinedNms: TensorFlow's combined_non_max_suppression (v1 and v2 alike)
// with QNN's static shapes:
//
//   in[0] boxes [batch, num_boxes, q, 4] (y1, x1, y2, x2; any diagonal pair
//         of corners), q = 1 (one box for every class) or q = num_classes
//         (a box per class); [batch, num_boxes, 4] is taken as q = 1
//   in[1] scores [batch, num_boxes, num_classes]
//   params max_boxes_per_class (u32, mandatory, >= 1), max_total_boxes (u32,
//         mandatory, >= 1), iou_threshold (f32 in [0, 1], default 0.5),
//         score_threshold (f32, default -inf: every box), pad_per_class
//         (bool, default 0), clip_boxes (bool, default 1)
//   out[0] nmsed boxes [batch, D, 4], out[1] nmsed scores [batch, D],
//   out[2] nmsed classes [batch, D] (INT_32, UINT_32 or FLOAT_32, as
//          TensorFlow's float classes), out[3] valid detections [batch]
//          (INT_32 or UINT_32)
//   D = min(max_boxes_per_class * num_classes, max_total_boxes) when
//   pad_per_class, else max_total_boxes (TensorFlow's output size); out[0]'s
//   dim 1 must be that D.
//
// Per batch (nms_core.h, shared with MultiClassNms): for each class, boxes
// with score > score_threshold in score order, each kept unless its IoU with
// a kept box of that class is > iou_threshold, at most max_boxes_per_class
// per class; every kept (box, class) pair sorted by score, the first
// min(kept, max_total_boxes) written, the rest of each output 0. Decisions
// where QNN and TensorFlow are silent: ties in score go to the lower class,
// then the lower box index (TensorFlow's order is unspecified there); a NaN
// score is never selected. clip_boxes clamps each written coordinate to
// [0, 1] (as TensorFlow, after the selection: IoUs use the boxes as given).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/nms_core.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct CombinedNmsGeometry {
  size_t batch = 0, boxes = 0, classes = 0, q = 1, num_det = 0;
  uint32_t max_per_class = 0, max_total = 0;
  float iou_threshold = 0.5f, score_threshold = 0.0f;
  bool clip = true;
  uint32_t class_dtype = dtype::kInt32;
};

class CombinedNmsKernel final : public OpKernel {
 public:
  explicit CombinedNmsKernel(const CombinedNmsGeometry& g) : g_(g), nms_(g.boxes, g.classes) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* boxes = static_cast<const float*>(in[0]);
    const float* scores = static_cast<const float*>(in[1]);
    float* out_boxes = static_cast<float*>(out[0]);
    float* out_scores = static_cast<float*>(out[1]);
    const size_t N = g_.boxes, K = g_.classes, D = g_.num_det;
    std::memset(out_boxes, 0, g_.batch * D * 4 * sizeof(float));
    std::memset(out_scores, 0, g_.batch * D * sizeof(float));
    std::memset(out[2], 0, g_.batch * D * 4);  // every class type here has 4 bytes
    const size_t box_stride = g_.q * 4, class_stride = g_.q == 1 ? 0 : 4;
    for (size_t b = 0; b < g_.batch; ++b) {
      const float* bb = boxes + b * N * box_stride;
      const std::span<const NmsPick> picks =
          nms_.run(bb, box_stride, class_stride, scores + b * N * K, g_.iou_threshold, g_.score_threshold,
                   g_.max_per_class);
      const size_t n = std::min(picks.size(), static_cast<size_t>(g_.max_total));
      for (size_t i = 0; i < n; ++i) {
        const NmsPick& p = picks[i];
        const float* src = bb + size_t{p.box} * box_stride + size_t{p.cls} * class_stride;
        float* dst = out_boxes + (b * D + i) * 4;
        for (int k = 0; k < 4; ++k) dst[k] = g_.clip ? std::clamp(src[k], 0.0f, 1.0f) : src[k];
        out_scores[b * D + i] = p.score;
        if (g_.class_dtype == dtype::kFloat32) {
          static_cast<float*>(out[2])[b * D + i] = static_cast<float>(p.cls);
        } else {
          static_cast<int32_t*>(out[2])[b * D + i] = static_cast<int32_t>(p.cls);  // UINT_32 alike
        }
      }
      static_cast<int32_t*>(out[3])[b] = static_cast<int32_t>(n);
    }
  }

 private:
  CombinedNmsGeometry g_;
  PerClassNms nms_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 4); !s.ok()) return s;
  const TensorDesc& boxes = node.inputs[0];
  const TensorDesc& scores = node.inputs[1];
  if (Status s = check_f32_tensor(node, boxes, in_label(0, "boxes")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, scores, in_label(1, "scores")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[1], out_label(1)); !s.ok()) return s;
  const uint32_t cls_dt = node.outputs[2].dtype;
  if (cls_dt != dtype::kInt32 && cls_dt != dtype::kUint32 && cls_dt != dtype::kFloat32) {
    return invalid(node, "out[2] (classes) data type is ", dtype::name(cls_dt),
                   ", expected INT_32, UINT_32 or FLOAT_32");
  }
  const uint32_t cnt_dt = node.outputs[3].dtype;
  if (cnt_dt != dtype::kInt32 && cnt_dt != dtype::kUint32) {
    return invalid(node, "out[3] (valid detections) data type is ", dtype::name(cnt_dt),
                   ", expected INT_32 or UINT_32");
  }
  ParamReader params(node);
  if (Status s = params.check_names({"max_boxes_per_class", "max_total_boxes", "iou_threshold", "score_threshold",
                                     "pad_per_class", "clip_boxes"});
      !s.ok()) {
    return s;
  }
  CombinedNmsGeometry g;
  g.class_dtype = cls_dt;
  bool pad_per_class = false;
  if (Status s = params.u32_scalar("max_boxes_per_class", std::nullopt, &g.max_per_class); !s.ok()) return s;
  if (Status s = params.u32_scalar("max_total_boxes", std::nullopt, &g.max_total); !s.ok()) return s;
  if (Status s = params.f32_scalar("iou_threshold", 0.5f, &g.iou_threshold); !s.ok()) return s;
  if (Status s = params.f32_scalar("score_threshold", -std::numeric_limits<float>::infinity(), &g.score_threshold);
      !s.ok()) {
    return s;
  }
  if (Status s = params.bool_scalar("pad_per_class", false, &pad_per_class); !s.ok()) return s;
  if (Status s = params.bool_scalar("clip_boxes", true, &g.clip); !s.ok()) return s;
  if (g.max_per_class == 0) return invalid(node, "parameter 'max_boxes_per_class' is 0, expected >= 1");
  if (g.max_total == 0) return invalid(node, "parameter 'max_total_boxes' is 0, expected >= 1");
  if (!(g.iou_threshold >= 0.0f && g.iou_threshold <= 1.0f)) {
    return invalid(node, "parameter 'iou_threshold' is ", g.iou_threshold, ", expected a value in [0, 1]");
  }
  if (Status s = check_rank(node, boxes, in_label(0, "boxes"), 3, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, scores, in_label(1, "scores"), 3, 3, StatusCode::kInvalidArgument); !s.ok()) {
    return s;
  }
  if (boxes.dims.back() != 4) {
    return invalid(node, "in[0] (boxes) dim ", boxes.dims.size() - 1, " is ", boxes.dims.back(), ", expected 4");
  }
  if (scores.dims[0] != boxes.dims[0] || scores.dims[1] != boxes.dims[1]) {
    return invalid(node, "in[1] (scores) dims are ", dims_str(scores.dims), ", expected [", boxes.dims[0], ",",
                   boxes.dims[1], ",num_classes] (batch and num_boxes of in[0])");
  }
  g.batch = boxes.dims[0];
  g.boxes = boxes.dims[1];
  g.classes = scores.dims[2];
  g.q = boxes.dims.size() == 4 ? boxes.dims[2] : 1;
  if (g.q != 1 && g.q != g.classes) {
    return invalid(node, "in[0] (boxes) dim 2 (q) is ", g.q, ", expected 1 or num_classes = ", g.classes);
  }
  const uint64_t per_class_total = uint64_t{g.max_per_class} * g.classes;
  g.num_det = pad_per_class ? static_cast<size_t>(std::min<uint64_t>(per_class_total, g.max_total)) : g.max_total;
  const uint32_t Bt = static_cast<uint32_t>(g.batch), D = static_cast<uint32_t>(g.num_det);
  const uint32_t want_boxes[] = {Bt, D, 4}, per_det[] = {Bt, D}, count[] = {Bt};
  if (node.outputs[0].dims.size() != 3 || node.outputs[0].dims[0] != Bt || node.outputs[0].dims[1] != D ||
      node.outputs[0].dims[2] != 4) {
    return invalid(node, "out[0] dims are ", dims_str(node.outputs[0].dims), ", expected ", dims_str(want_boxes),
                   pad_per_class ? " (D = min(max_boxes_per_class * num_classes, max_total_boxes) with pad_per_class)"
                                 : " (D = max_total_boxes without pad_per_class)");
  }
  if (Status s = check_output_dims(node, 1, per_det); !s.ok()) return s;
  if (Status s = check_output_dims(node, 2, per_det); !s.ok()) return s;
  if (Status s = check_output_dims(node, 3, count); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<CombinedNmsKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef combined_nms_def() { return {"CombinedNms", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
