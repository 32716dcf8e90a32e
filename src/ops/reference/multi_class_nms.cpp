// MultiClassNms: per-class non-max suppression over every class, the kept
// boxes of all classes merged by score — TensorFlow's
// combined_non_max_suppression, which QNN's converters map here — with QNN's
// static shapes:
//
//   in[0] boxes [batch, num_boxes, 4] (y1, x1, y2, x2), any diagonal pair
//   in[1] scores [batch, num_boxes, num_classes]
//   in[2..] optional features [batch, num_boxes, ...] carried with each box
//   params iou_threshold, score_threshold (f32, default 0), soft_nms_sigma
//         (f32, default 0; anything else refused: soft NMS not supported)
//   out[0] boxes [batch, max_det, 4], out[1] scores [batch, max_det],
//   out[2] classes [batch, max_det] INT_32, out[3] valid count [batch]
//   (UINT_32 or INT_32), out[4 + j] in[2 + j]'s rows of the kept boxes
//   ([batch, max_det, ...]); max_det comes from out[0]'s dims.
//
// Per batch: for each class, boxes with score > score_threshold in score
// order, each kept unless its IoU with a kept box of that class is >
// iou_threshold (ONNX/TensorFlow's strict comparisons; no per-class limit,
// QNN has no such parameter); all kept (box, class) pairs sorted by score
// (ties: lower class, then lower box index), the first max_det written, the
// rest of each output 0. The selection is nms_core.h's, shared with
// CombinedNms.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/nms_core.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct MultiNmsGeometry {
  size_t batch = 0, boxes = 0, classes = 0, max_det = 0;
  float iou_threshold = 0.0f, score_threshold = 0.0f;
  std::vector<size_t> feature_bytes;  // bytes of one box's row, per feature input
};

class MultiClassNmsKernel final : public OpKernel {
 public:
  explicit MultiClassNmsKernel(MultiNmsGeometry g) : g_(std::move(g)), nms_(g_.boxes, g_.classes) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* boxes = static_cast<const float*>(in[0]);
    const float* scores = static_cast<const float*>(in[1]);
    float* out_boxes = static_cast<float*>(out[0]);
    float* out_scores = static_cast<float*>(out[1]);
    int32_t* out_classes = static_cast<int32_t*>(out[2]);
    int32_t* out_count = static_cast<int32_t*>(out[3]);  // UINT_32 holds the same small values
    const size_t B = g_.boxes, K = g_.classes, M = g_.max_det;
    std::memset(out_boxes, 0, g_.batch * M * 4 * sizeof(float));
    std::memset(out_scores, 0, g_.batch * M * sizeof(float));
    std::memset(out_classes, 0, g_.batch * M * sizeof(int32_t));
    for (size_t f = 0; f < g_.feature_bytes.size(); ++f) std::memset(out[4 + f], 0, g_.batch * M * g_.feature_bytes[f]);
    for (size_t b = 0; b < g_.batch; ++b) {
      const float* bb = boxes + b * B * 4;
      const float* sb = scores + b * B * K;
      // One box per box index for every class; no per-class limit.
      const std::span<const NmsPick> picks =
          nms_.run(bb, 4, 0, sb, g_.iou_threshold, g_.score_threshold, SIZE_MAX);
      const size_t n = std::min(picks.size(), M);
      for (size_t i = 0; i < n; ++i) {
        const NmsPick& p = picks[i];
        std::memcpy(out_boxes + (b * M + i) * 4, bb + size_t{p.box} * 4, 4 * sizeof(float));
        out_scores[b * M + i] = p.score;
        out_classes[b * M + i] = static_cast<int32_t>(p.cls);
        for (size_t f = 0; f < g_.feature_bytes.size(); ++f) {
          const size_t row = g_.feature_bytes[f];
          std::memcpy(static_cast<uint8_t*>(out[4 + f]) + (b * M + i) * row,
                      static_cast<const uint8_t*>(in[2 + f]) + (b * B + p.box) * row, row);
        }
      }
      out_count[b] = static_cast<int32_t>(n);
    }
  }

 private:
  MultiNmsGeometry g_;
  PerClassNms nms_;  // the per-class selection and merge (nms_core.h)
};

Status check_int_output(const NodeDesc& node, size_t i, bool allow_unsigned) {
  const TensorDesc& t = node.outputs[i];
  if (t.dtype != dtype::kInt32 && !(allow_unsigned && t.dtype == dtype::kUint32)) {
    return invalid(node, out_label(i), " data type is ", dtype::name(t.dtype),
                   allow_unsigned ? ", expected UINT_32 or INT_32" : ", expected INT_32");
  }
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.inputs.size() < 2) return invalid(node, "has ", node.inputs.size(), " inputs, expected at least 2");
  if (node.outputs.size() != node.inputs.size() + 2) {
    return invalid(node, "has ", node.outputs.size(), " outputs, expected ", node.inputs.size() + 2,
                   " (4, plus one per feature input in[2..])");
  }
  const TensorDesc& boxes = node.inputs[0];
  const TensorDesc& scores = node.inputs[1];
  if (Status s = check_f32_tensor(node, boxes, in_label(0, "boxes")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, scores, in_label(1, "scores")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[1], out_label(1)); !s.ok()) return s;
  if (Status s = check_int_output(node, 2, false); !s.ok()) return s;
  if (Status s = check_int_output(node, 3, true); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"iou_threshold", "score_threshold", "soft_nms_sigma"}); !s.ok()) return s;
  MultiNmsGeometry g;
  if (Status s = params.f32_scalar("iou_threshold", 0.0f, &g.iou_threshold); !s.ok()) return s;
  if (Status s = params.f32_scalar("score_threshold", 0.0f, &g.score_threshold); !s.ok()) return s;
  float sigma = 0.0f;
  if (Status s = params.f32_scalar("soft_nms_sigma", 0.0f, &sigma); !s.ok()) return s;
  if (sigma != 0.0f) return unsupported(node, "parameter 'soft_nms_sigma' is ", sigma, "; soft NMS is not supported (0 only)");
  if (Status s = check_rank(node, boxes, in_label(0, "boxes"), 3, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, scores, in_label(1, "scores"), 3, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (boxes.dims[2] != 4) return invalid(node, "in[0] (boxes) dim 2 is ", boxes.dims[2], ", expected 4");
  if (scores.dims[0] != boxes.dims[0] || scores.dims[1] != boxes.dims[1]) {
    return invalid(node, "in[1] (scores) dims are ", dims_str(scores.dims), ", expected [", boxes.dims[0], ",",
                   boxes.dims[1], ",num_classes] (batch and num_boxes of in[0])");
  }
  g.batch = boxes.dims[0];
  g.boxes = boxes.dims[1];
  g.classes = scores.dims[2];
  const TensorDesc& ob = node.outputs[0];
  if (ob.dims.size() != 3 || ob.dims[0] != g.batch || ob.dims[2] != 4) {
    return invalid(node, "out[0] dims are ", dims_str(ob.dims), ", expected [", g.batch, ",max_detections,4]");
  }
  g.max_det = ob.dims[1];
  const uint32_t B = static_cast<uint32_t>(g.batch), M = static_cast<uint32_t>(g.max_det);
  const uint32_t per_det[] = {B, M}, count[] = {B};
  if (Status s = check_output_dims(node, 1, per_det); !s.ok()) return s;
  if (Status s = check_output_dims(node, 2, per_det); !s.ok()) return s;
  if (Status s = check_output_dims(node, 3, count); !s.ok()) return s;
  for (size_t i = 2; i < node.inputs.size(); ++i) {
    const TensorDesc& f = node.inputs[i];
    const TensorDesc& o = node.outputs[i + 2];
    if (Status s = check_plain_tensor(node, f, in_label(i, "feature")); !s.ok()) return s;
    if (f.dims.size() < 2 || f.dims[0] != boxes.dims[0] || f.dims[1] != boxes.dims[1]) {
      return invalid(node, in_label(i, "feature"), " dims are ", dims_str(f.dims), ", expected [", B, ",",
                     boxes.dims[1], ",...] (batch and num_boxes of in[0])");
    }
    // Rows are copied as they are: the output holds the feature's own type.
    if (o.dtype != f.dtype) {
      return invalid(node, out_label(i + 2), " data type is ", dtype::name(o.dtype), ", expected ",
                     dtype::name(f.dtype), " (that of in[", i, "])");
    }
    std::vector<uint32_t> want = f.dims;
    want[1] = M;
    if (Status s = check_output_dims(node, i + 2, want); !s.ok()) return s;
    g.feature_bytes.push_back(f.num_bytes() / (size_t{f.dims[0]} * f.dims[1]));
  }
  if (kernel) *kernel = std::make_unique<MultiClassNmsKernel>(std::move(g));
  return Status::Ok();
}

}  // namespace

OpDef multi_class_nms_def() { return {"MultiClassNms", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
