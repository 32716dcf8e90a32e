// Box arithmetic shared by the detection ops: the upright box transform
// (AxisAlignedBboxTransform, BboxTransform, GenerateProposals), the IoU and
// the greedy (soft) NMS (BoxWithNmsLimit, GenerateProposals), and the
// parameter and index-tensor rules they have in common.
//
// Boxes here are two diagonal corners; the IoU does not care which axis
// comes first or which corner is which, so it serves (x1, y1, x2, y2) and
// (y1, x1, y2, x2) alike.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "ops/op.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

// Intersection over union of two boxes, 0 when the union is empty (or NaN).
inline double box_iou(const float* a, const float* b) {
  const double a_lo0 = std::fmin(a[0], a[2]), a_hi0 = std::fmax(a[0], a[2]);
  const double a_lo1 = std::fmin(a[1], a[3]), a_hi1 = std::fmax(a[1], a[3]);
  const double b_lo0 = std::fmin(b[0], b[2]), b_hi0 = std::fmax(b[0], b[2]);
  const double b_lo1 = std::fmin(b[1], b[3]), b_hi1 = std::fmax(b[1], b[3]);
  const double i0 = std::fmax(0.0, std::fmin(a_hi0, b_hi0) - std::fmax(a_lo0, b_lo0));
  const double i1 = std::fmax(0.0, std::fmin(a_hi1, b_hi1) - std::fmax(a_lo1, b_lo1));
  const double inter = i0 * i1;
  const double uni = (a_hi0 - a_lo0) * (a_hi1 - a_lo1) + (b_hi0 - b_lo0) * (b_hi1 - b_lo1) - inter;
  return uni > 0.0 ? inter / uni : 0.0;
}

// The largest log-scale size delta caffe2's box transform lets through,
// log(1000 / 16) (Detectron's BBOX_XFORM_CLIP).
inline constexpr double kBoxXformClip = 4.135166556742356;

// One (dx, dy, dw, dh) delta applied to an upright box (x1, y1, x2, y2):
//   w = x2 - x1, h = y2 - y1 (no +1), centre (x1 + w/2, y1 + h/2)
//   centre' = centre + (dx/wx * w, dy/wy * h)
//   w' = w * exp(min(dw/ww, clip)), h' = h * exp(min(dh/wh, clip))
//   out = centre' -+ (w'/2, h'/2), x clamped to [0, img_w], y to [0, img_h]
// `clip` = +inf applies no clip (a NaN delta stays NaN either way).
inline void transform_upright_box(const float* box, const float* d, const float* weights, double clip,
                                  double img_h, double img_w, float* out) {
  const double w = double{box[2]} - box[0], h = double{box[3]} - box[1];
  const double cx = box[0] + w / 2, cy = box[1] + h / 2;
  const double ncx = cx + d[0] / double{weights[0]} * w;
  const double ncy = cy + d[1] / double{weights[1]} * h;
  double lw = d[2] / double{weights[2]}, lh = d[3] / double{weights[3]};
  if (lw > clip) lw = clip;
  if (lh > clip) lh = clip;
  const double nw = w * std::exp(lw), nh = h * std::exp(lh);
  auto clamp = [](double v, double hi) { return std::fmin(std::fmax(v, 0.0), hi); };
  out[0] = static_cast<float>(clamp(ncx - nw / 2, img_w));
  out[1] = static_cast<float>(clamp(ncy - nh / 2, img_h));
  out[2] = static_cast<float>(clamp(ncx + nw / 2, img_w));
  out[3] = static_cast<float>(clamp(ncy + nh / 2, img_h));
}

// weights: optional FLOAT_32 tensor [4] (wx, wy, ww, wh), every element
// finite and > 0; absent: all 1.
inline Status read_box_weights(const NodeDesc& node, float* weights) {
  for (int i = 0; i < 4; ++i) weights[i] = 1.0f;
  const Param* p = node.find_param("weights");
  if (p == nullptr) return Status::Ok();
  if (!p->is_tensor || p->dtype != dtype::kFloat32 || p->dims.size() != 1 || p->dims[0] != 4 ||
      p->data.size() != 4 * sizeof(float)) {
    return invalid(node, "parameter 'weights' must be a FLOAT_32 tensor of shape [4]");
  }
  std::memcpy(weights, p->data.data(), 4 * sizeof(float));
  for (int i = 0; i < 4; ++i) {
    if (!(weights[i] > 0.0f) || !std::isfinite(weights[i])) {
      return invalid(node, "parameter 'weights' element ", i, " is ", weights[i], ", expected finite and > 0");
    }
  }
  return Status::Ok();
}

// A signed integer scalar (INT_*/UINT_*, or a float holding an integer);
// absent: `def`.
inline Status read_int_scalar(const NodeDesc& node, std::string_view name, int64_t def, int64_t* out) {
  *out = def;
  const Param* p = node.find_param(name);
  if (p == nullptr) return Status::Ok();
  if (p->is_tensor) return invalid(node, "parameter '", name, "' is a tensor, expected a scalar");
  const bool is_float = p->dtype == dtype::kFloat32 || p->dtype == dtype::kFloat16 || p->dtype == dtype::kFloat64;
  if (is_float) {
    if (!(std::fabs(p->f) <= 2147483647.0) || std::floor(p->f) != p->f) {
      return invalid(node, "parameter '", name, "' is ", p->f, ", expected an integer");
    }
    *out = static_cast<int64_t>(p->f);
    return Status::Ok();
  }
  if (p->dtype == dtype::kBool8 || dtype::element_size(p->dtype) == 0 || p->dtype == dtype::kSfixed8 ||
      p->dtype == dtype::kSfixed16 || p->dtype == dtype::kSfixed32 || p->dtype == dtype::kUfixed8 ||
      p->dtype == dtype::kUfixed16) {
    return invalid(node, "parameter '", name, "' has data type ", dtype::name(p->dtype),
                   ", expected an integer scalar");
  }
  *out = p->i;
  return Status::Ok();
}

// An index tensor (batch indices, classes, counts): INT_32 or UINT_32.
inline Status check_index_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  if (Status s = check_plain_tensor(node, t, label); !s.ok()) return s;
  if (t.dtype != dtype::kInt32 && t.dtype != dtype::kUint32) {
    return invalid(node, label, " data type is ", dtype::name(t.dtype), ", expected INT_32 or UINT_32");
  }
  return Status::Ok();
}

// Element i of an INT_32 (is_signed) or UINT_32 tensor.
inline int64_t index_at(const void* data, bool is_signed, size_t i) {
  return is_signed ? int64_t{static_cast<const int32_t*>(data)[i]} : int64_t{static_cast<const uint32_t*>(data)[i]};
}

// QNN's nms_kernel_method values.
enum class NmsMethod : uint32_t { kHard = 0, kLinear = 1, kGaussian = 2 };

struct NmsOptions {
  NmsMethod method = NmsMethod::kHard;
  float iou_threshold = 0.0f;
  float sigma = 0.5f;                // gaussian only, > 0
  float nms_score_threshold = 0.0f;  // soft methods only
  size_t max_keep = SIZE_MAX;
};

// Greedy NMS over n candidates: cand[i] is a box index (its box at
// boxes + cand[i] * stride), score[i] its score (no NaN). Repeatedly the
// remaining candidate with the highest score (ties: the lower box index) is
// kept; every other remaining candidate is then, by its IoU with it,
//   hard:     dropped when IoU >= iou_threshold
//   linear:   score *= 1 - IoU when IoU >= iou_threshold
//   gaussian: score *= exp(-IoU^2 / sigma)
// and, for the soft methods, dropped when its score falls below
// nms_score_threshold; until max_keep are kept or none remain. On return
// cand[0..k) / score[0..k) are the kept boxes in the order kept, with their
// (decayed) scores; k is returned. In place, no allocation.
inline size_t greedy_nms(const float* boxes, size_t stride, uint32_t* cand, float* score, size_t n,
                         const NmsOptions& o) {
  size_t kept = 0, end = n;
  while (kept < end && kept < o.max_keep) {
    size_t best = kept;
    for (size_t i = kept + 1; i < end; ++i) {
      if (score[i] > score[best] || (score[i] == score[best] && cand[i] < cand[best])) best = i;
    }
    std::swap(cand[best], cand[kept]);
    std::swap(score[best], score[kept]);
    const float* kb = boxes + size_t{cand[kept]} * stride;
    ++kept;
    for (size_t i = kept; i < end;) {
      const double iou = box_iou(kb, boxes + size_t{cand[i]} * stride);
      bool drop;
      if (o.method == NmsMethod::kHard) {
        drop = iou >= o.iou_threshold;
      } else {
        const double weight = o.method == NmsMethod::kLinear ? (iou >= o.iou_threshold ? 1.0 - iou : 1.0)
                                                             : std::exp(-(iou * iou) / o.sigma);
        score[i] = static_cast<float>(score[i] * weight);
        drop = score[i] < o.nms_score_threshold;
      }
      if (drop) {
        --end;
        std::swap(cand[i], cand[end]);
        std::swap(score[i], score[end]);
      } else {
        ++i;
      }
    }
  }
  return kept;
}

}  // namespace openhtp::ops::detail
