// DetectionOutput: SSD post-processing — anchor-relative box decoding, then
// non-max suppression, with static output shapes. QNN's converters map
// TensorFlow Lite's TFLite_Detection_PostProcess (and Caffe's SSD
// DetectionOutput) here; where QNN's definition is silent this kernel follows
// TFLite's Detection_PostProcess.
//
//   in[0] class scores [batch, num_anchors, num_classes] (the background
//         class, if any, is one of the columns)
//   in[1] box encodings [batch, num_anchors, 4] (dy, dx, dh, dw)
//   in[2] anchors [num_anchors, 4], [1, num_anchors, 4] (shared by every
//         batch) or [batch, num_anchors, 4]; (ycenter, xcenter, h, w)
//   params delta_scaling_factors  FLOAT_32 [4] (sy, sx, sh, sw), mandatory,
//                                  each finite and > 0
//          confidence_threshold   f32, mandatory, finite
//          iou_threshold          f32, mandatory, in [0, 1]
//          nms_type               u32, FAST 0 (default) / REGULAR 1
//          background_class_idx   integer, default 0; outside
//                                 [0, num_classes) means no background class
//          use_bg_in_nms          bool, default false
//          output_background      bool, default true
//          share_location         bool, default true (false refused)
//          nms_eta                f32, default 1, in (0, 1] (only 1 accepted)
//          detection_limit        integer, default 0 (not set)
//   out[0] scores [batch, max_det] FLOAT_32
//   out[1] boxes [batch, max_det, 4] FLOAT_32 (ymin, xmin, ymax, xmax)
//   out[2] classes [batch, max_det] INT_32, UINT_32 or FLOAT_32
//   out[3] valid detections [batch] UINT_32 or INT_32
//   max_det comes from out[0]'s dims; rows past the valid count are 0.
//
// Decisions where QNN is silent (TFLite's Detection_PostProcess unless said):
// - Decoding divides by the scaling factors, as TFLite's y/x/h/w_scale do
//   (QNN's own TFLite converter passes those scales unchanged):
//     yc = dy / sy * anchor_h + anchor_yc,  xc = dx / sx * anchor_w + anchor_xc
//     h = exp(dh / sh) * anchor_h,          w = exp(dw / sw) * anchor_w
//     box = (yc - h/2, xc - w/2, yc + h/2, xc + w/2), not clipped.
// - A (anchor, class) is a candidate when its score >= confidence_threshold
//   (a NaN score never is); NMS drops a box whose IoU with a kept one is >
//   iou_threshold; ties in score go to the lower class, then the lower anchor.
// - FAST: each anchor's best class (skipping the background unless
//   use_bg_in_nms; ties: lower class) gives its score; one class-agnostic NMS
//   over the anchors. detection_limit (QNN: classes per detection in FAST)
//   must be <= 1: one class per detection.
// - REGULAR: NMS per class (the background column only if use_bg_in_nms), at
//   most detection_limit kept per class when detection_limit > 0; then every
//   kept (anchor, class) sorted by score and the first max_det written.
// - The background class takes part in NMS only when use_bg_in_nms; its
//   detections are then written only when output_background, otherwise
//   dropped after NMS (having suppressed what they overlapped).
// - out[2] holds indices into in[0]'s class axis (no label offset: the
//   background column keeps its index).
// - Refused as unsupported: share_location false (per-class box encodings),
//   nms_eta other than 1 (Caffe's adaptive threshold), FAST with
//   detection_limit > 1.
// The per-class selection and merge are nms_core.h's (shared with
// MultiClassNms and CombinedNms).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/box_math.h"
#include "ops/reference/nms_core.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

enum class ClassOut { kInt32, kUint32, kFloat32 };

struct DetectionOutputGeometry {
  size_t batch = 0, anchors = 0, classes = 0, max_det = 0;
  bool anchors_per_batch = false;
  float scale[4] = {1, 1, 1, 1};  // sy, sx, sh, sw
  float score_threshold = 0.0f;   // the largest float below confidence_threshold
  float iou_threshold = 0.0f;
  bool regular = false;
  int64_t background = -1;  // -1: none
  bool use_bg_in_nms = false, output_background = true;
  size_t per_class_limit = SIZE_MAX;
  ClassOut class_out = ClassOut::kInt32;
};

class DetectionOutputKernel final : public OpKernel {
 public:
  explicit DetectionOutputKernel(const DetectionOutputGeometry& g)
      : g_(g),
        decoded_(g.anchors * 4),
        scores_(g.regular ? g.anchors * g.classes : g.anchors),
        best_class_(g.regular ? 0 : g.anchors),
        nms_(g.anchors, g.regular ? g.classes : 1) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* scores = static_cast<const float*>(in[0]);
    const float* deltas = static_cast<const float*>(in[1]);
    const float* anchors = static_cast<const float*>(in[2]);
    float* out_scores = static_cast<float*>(out[0]);
    float* out_boxes = static_cast<float*>(out[1]);
    void* out_classes = out[2];
    uint32_t* out_count = static_cast<uint32_t*>(out[3]);  // INT_32 holds the same small values
    const size_t A = g_.anchors, C = g_.classes, M = g_.max_det;
    std::memset(out_scores, 0, g_.batch * M * sizeof(float));
    std::memset(out_boxes, 0, g_.batch * M * 4 * sizeof(float));
    std::memset(out_classes, 0, g_.batch * M * 4);  // 4-byte elements in every allowed type
    for (size_t b = 0; b < g_.batch; ++b) {
      decode(deltas + b * A * 4, anchors + (g_.anchors_per_batch ? b * A * 4 : 0));
      const float* sb = scores + b * A * C;
      std::span<const NmsPick> picks;
      if (g_.regular) {
        std::memcpy(scores_.data(), sb, A * C * sizeof(float));
        if (g_.background >= 0 && !g_.use_bg_in_nms) {
          for (size_t i = 0; i < A; ++i) scores_[i * C + size_t(g_.background)] = kNaN;
        }
        picks = nms_.run(decoded_.data(), 4, 0, scores_.data(), g_.iou_threshold, g_.score_threshold,
                         g_.per_class_limit);
      } else {
        for (size_t i = 0; i < A; ++i) {
          float best = kNaN;
          uint32_t best_c = 0;
          for (size_t c = 0; c < C; ++c) {
            if (int64_t(c) == g_.background && !g_.use_bg_in_nms) continue;
            const float s = sb[i * C + c];
            if (s > best || (std::isnan(best) && !std::isnan(s))) {
              best = s;
              best_c = static_cast<uint32_t>(c);
            }
          }
          scores_[i] = best;
          best_class_[i] = best_c;
        }
        picks = nms_.run(decoded_.data(), 4, 0, scores_.data(), g_.iou_threshold, g_.score_threshold, SIZE_MAX);
      }
      size_t n = 0;
      for (size_t j = 0; j < picks.size() && n < M; ++j) {
        const NmsPick& p = picks[j];
        const uint32_t cls = g_.regular ? p.cls : best_class_[p.box];
        if (int64_t(cls) == g_.background && !g_.output_background) continue;
        const size_t row = b * M + n;
        out_scores[row] = p.score;
        std::memcpy(out_boxes + row * 4, decoded_.data() + size_t{p.box} * 4, 4 * sizeof(float));
        if (g_.class_out == ClassOut::kFloat32) {
          static_cast<float*>(out_classes)[row] = static_cast<float>(cls);
        } else {
          static_cast<uint32_t*>(out_classes)[row] = cls;
        }
        ++n;
      }
      out_count[b] = static_cast<uint32_t>(n);
    }
  }

 private:
  static constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

  // TFLite's centre-size decoding of every anchor of one batch into decoded_
  // as (ymin, xmin, ymax, xmax).
  void decode(const float* d, const float* a) {
    for (size_t i = 0; i < g_.anchors; ++i) {
      const float* di = d + i * 4;
      const float* ai = a + i * 4;
      const double yc = di[0] / double{g_.scale[0]} * ai[2] + ai[0];
      const double xc = di[1] / double{g_.scale[1]} * ai[3] + ai[1];
      const double half_h = 0.5 * std::exp(di[2] / double{g_.scale[2]}) * ai[2];
      const double half_w = 0.5 * std::exp(di[3] / double{g_.scale[3]}) * ai[3];
      float* o = decoded_.data() + i * 4;
      o[0] = static_cast<float>(yc - half_h);
      o[1] = static_cast<float>(xc - half_w);
      o[2] = static_cast<float>(yc + half_h);
      o[3] = static_cast<float>(xc + half_w);
    }
  }

  DetectionOutputGeometry g_;
  std::vector<float> decoded_;       // [anchors, 4]
  std::vector<float> scores_;        // REGULAR: [anchors, classes]; FAST: best score per anchor
  std::vector<uint32_t> best_class_;  // FAST: best class per anchor
  PerClassNms nms_;
};

Status read_scaling_factors(const NodeDesc& node, float* scale) {
  const Param* p = node.find_param("delta_scaling_factors");
  if (p == nullptr) return invalid(node, "mandatory parameter 'delta_scaling_factors' is missing");
  if (!p->is_tensor || p->dtype != dtype::kFloat32 || p->dims.size() != 1 || p->dims[0] != 4 ||
      p->data.size() != 4 * sizeof(float)) {
    return invalid(node, "parameter 'delta_scaling_factors' must be a FLOAT_32 tensor of shape [4]");
  }
  std::memcpy(scale, p->data.data(), 4 * sizeof(float));
  for (int i = 0; i < 4; ++i) {
    if (!(scale[i] > 0.0f) || !std::isfinite(scale[i])) {
      return invalid(node, "parameter 'delta_scaling_factors' element ", i, " is ", scale[i],
                     ", expected finite and > 0");
    }
  }
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 3, 3, 4); !s.ok()) return s;
  const TensorDesc& scores = node.inputs[0];
  const TensorDesc& deltas = node.inputs[1];
  const TensorDesc& anchors = node.inputs[2];
  if (Status s = check_f32_tensor(node, scores, in_label(0, "class scores")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, deltas, in_label(1, "box encodings")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, anchors, in_label(2, "anchors")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[1], out_label(1)); !s.ok()) return s;
  DetectionOutputGeometry g;
  const uint32_t cls_dt = node.outputs[2].dtype;
  if (cls_dt == dtype::kInt32) {
    g.class_out = ClassOut::kInt32;
  } else if (cls_dt == dtype::kUint32) {
    g.class_out = ClassOut::kUint32;
  } else if (cls_dt == dtype::kFloat32) {
    g.class_out = ClassOut::kFloat32;
  } else {
    return invalid(node, "out[2] data type is ", dtype::name(cls_dt), ", expected INT_32, UINT_32 or FLOAT_32");
  }
  if (node.outputs[3].dtype != dtype::kUint32 && node.outputs[3].dtype != dtype::kInt32) {
    return invalid(node, "out[3] data type is ", dtype::name(node.outputs[3].dtype), ", expected UINT_32 or INT_32");
  }

  ParamReader params(node);
  if (Status s = params.check_names({"delta_scaling_factors", "confidence_threshold", "iou_threshold", "nms_type",
                                     "background_class_idx", "use_bg_in_nms", "output_background",
                                     "share_location", "nms_eta", "detection_limit"});
      !s.ok()) {
    return s;
  }
  if (Status s = read_scaling_factors(node, g.scale); !s.ok()) return s;
  float confidence = 0.0f;
  if (Status s = params.f32_scalar("confidence_threshold", std::nullopt, &confidence); !s.ok()) return s;
  // score >= confidence  <=>  score > the next float below it (nms_core keeps score > threshold).
  g.score_threshold = std::nextafter(confidence, -std::numeric_limits<float>::infinity());
  if (Status s = params.f32_scalar("iou_threshold", std::nullopt, &g.iou_threshold); !s.ok()) return s;
  if (!(g.iou_threshold >= 0.0f && g.iou_threshold <= 1.0f)) {
    return invalid(node, "parameter 'iou_threshold' is ", g.iou_threshold, ", expected in [0, 1]");
  }
  uint32_t nms_type = 0;
  if (Status s = params.u32_scalar("nms_type", 0u, &nms_type); !s.ok()) return s;
  if (nms_type > 1) return invalid(node, "parameter 'nms_type' is ", nms_type, ", expected 0 (FAST) or 1 (REGULAR)");
  g.regular = nms_type == 1;
  int64_t background = 0;
  if (Status s = read_int_scalar(node, "background_class_idx", 0, &background); !s.ok()) return s;
  if (Status s = params.bool_scalar("use_bg_in_nms", false, &g.use_bg_in_nms); !s.ok()) return s;
  if (Status s = params.bool_scalar("output_background", true, &g.output_background); !s.ok()) return s;
  bool share_location = true;
  if (Status s = params.bool_scalar("share_location", true, &share_location); !s.ok()) return s;
  if (!share_location) {
    return unsupported(node, "parameter 'share_location' is false; only shared box encodings (true) are supported");
  }
  float eta = 1.0f;
  if (Status s = params.f32_scalar("nms_eta", 1.0f, &eta); !s.ok()) return s;
  if (!(eta > 0.0f && eta <= 1.0f)) return invalid(node, "parameter 'nms_eta' is ", eta, ", expected in (0, 1]");
  if (eta != 1.0f) return unsupported(node, "parameter 'nms_eta' is ", eta, "; an adaptive NMS threshold is not supported (1 only)");
  int64_t limit = 0;
  if (Status s = read_int_scalar(node, "detection_limit", 0, &limit); !s.ok()) return s;
  if (!g.regular && limit > 1) {
    return unsupported(node, "parameter 'detection_limit' is ", limit,
                       " with nms_type FAST; only one class per detection (<= 1) is supported");
  }
  if (g.regular && limit > 0) g.per_class_limit = static_cast<size_t>(limit);

  if (Status s = check_rank(node, scores, in_label(0, "class scores"), 3, 3, StatusCode::kInvalidArgument); !s.ok()) {
    return s;
  }
  g.batch = scores.dims[0];
  g.anchors = scores.dims[1];
  g.classes = scores.dims[2];
  if (deltas.dims.size() != 3 || deltas.dims[0] != g.batch || deltas.dims[1] != g.anchors || deltas.dims[2] != 4) {
    return invalid(node, "in[1] (box encodings) dims are ", dims_str(deltas.dims), ", expected [", g.batch, ",",
                   g.anchors, ",4] (batch and num_anchors of in[0])");
  }
  const bool anchors_ok = (anchors.dims.size() == 2 && anchors.dims[0] == g.anchors && anchors.dims[1] == 4) ||
                          (anchors.dims.size() == 3 && (anchors.dims[0] == 1 || anchors.dims[0] == g.batch) &&
                           anchors.dims[1] == g.anchors && anchors.dims[2] == 4);
  if (!anchors_ok) {
    return invalid(node, "in[2] (anchors) dims are ", dims_str(anchors.dims), ", expected [", g.anchors, ",4] or [1 or ",
                   g.batch, ",", g.anchors, ",4]");
  }
  g.anchors_per_batch = anchors.dims.size() == 3 && anchors.dims[0] == g.batch && g.batch > 1;
  g.background = (background >= 0 && background < int64_t(g.classes)) ? background : -1;

  const TensorDesc& os = node.outputs[0];
  if (os.dims.size() != 2 || os.dims[0] != g.batch) {
    return invalid(node, "out[0] dims are ", dims_str(os.dims), ", expected [", g.batch, ",max_detections]");
  }
  g.max_det = os.dims[1];
  const uint32_t B = static_cast<uint32_t>(g.batch), M = static_cast<uint32_t>(g.max_det);
  const uint32_t boxes_dims[] = {B, M, 4}, per_det[] = {B, M}, count[] = {B};
  if (Status s = check_output_dims(node, 1, boxes_dims); !s.ok()) return s;
  if (Status s = check_output_dims(node, 2, per_det); !s.ok()) return s;
  if (Status s = check_output_dims(node, 3, count); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<DetectionOutputKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef detection_output_def() { return {"DetectionOutput", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
