// NonMaxSuppression: ONNX's NonMaxSuppression with QNN's static shapes.
//
//   in[0] boxes [batch, num_boxes, 4], two diagonal corners (y1, x1, y2, x2)
//         in any order of the pair (ONNX's center_point_box 0, the only
//         format QNN has)
//   in[1] scores [batch, num_classes, num_boxes]
//   params iou_threshold (f32, default 0), score_threshold (f32, default 0),
//         max_boxes_selected (u32, mandatory, >= 1): per batch and class
//   out[0] [batch * num_classes * max_boxes_selected, 3] INT_32 or UINT_32:
//         rows (batch, class, box) of the kept boxes, batch-major then class,
//         each class's in descending score order (ties: lower box index
//         first); the rows after the kept ones are padding, all 0
//   out[1] (optional) INT_32 / UINT_32 valid count: [1] the number of kept
//         rows, or [batch] the number kept in each batch (rows are grouped by
//         batch, so the counts give where each batch's rows start)
//
// Per batch and class: boxes whose score is > score_threshold, taken in
// score order; a box is kept unless its IoU with an already kept box of the
// class is > iou_threshold (ONNX's strict comparisons), until
// max_boxes_selected are kept. IoU = intersection / union, 0 when the union
// is empty.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/box_math.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct NmsGeometry {
  size_t batch = 0, boxes = 0, classes = 0, max_per_class = 0;
  float iou_threshold = 0.0f, score_threshold = 0.0f;
  bool has_count = false, count_per_batch = false;
};

class NmsKernel final : public OpKernel {
 public:
  explicit NmsKernel(const NmsGeometry& g) : g_(g), order_(g.boxes), kept_(g.max_per_class) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* boxes = static_cast<const float*>(in[0]);
    const float* scores = static_cast<const float*>(in[1]);
    // INT_32 and UINT_32 rows hold the same small non-negative values.
    int32_t* rows = static_cast<int32_t*>(out[0]);
    std::memset(rows, 0, g_.batch * g_.classes * g_.max_per_class * 3 * sizeof(int32_t));
    size_t n_rows = 0;
    for (size_t b = 0; b < g_.batch; ++b) {
      const float* bb = boxes + b * g_.boxes * 4;
      const size_t batch_start = n_rows;
      for (size_t c = 0; c < g_.classes; ++c) {
        const float* sc = scores + (b * g_.classes + c) * g_.boxes;
        std::iota(order_.begin(), order_.end(), size_t{0});
        // Stable: equal scores keep the lower box index first.
        std::stable_sort(order_.begin(), order_.end(), [&](size_t p, size_t q) { return sc[p] > sc[q]; });
        size_t n_kept = 0;
        for (size_t idx : order_) {
          if (n_kept == g_.max_per_class) break;
          if (!(sc[idx] > g_.score_threshold)) break;  // sorted: the rest are lower (NaN scores stop too)
          bool keep = true;
          for (size_t k = 0; k < n_kept && keep; ++k) keep = !(box_iou(bb + idx * 4, bb + kept_[k] * 4) > g_.iou_threshold);
          if (!keep) continue;
          kept_[n_kept++] = idx;
          int32_t* row = rows + n_rows++ * 3;
          row[0] = static_cast<int32_t>(b);
          row[1] = static_cast<int32_t>(c);
          row[2] = static_cast<int32_t>(idx);
        }
      }
      if (g_.has_count && g_.count_per_batch) static_cast<int32_t*>(out[1])[b] = static_cast<int32_t>(n_rows - batch_start);
    }
    if (g_.has_count && !g_.count_per_batch) static_cast<int32_t*>(out[1])[0] = static_cast<int32_t>(n_rows);
  }

 private:
  NmsGeometry g_;
  std::vector<size_t> order_, kept_;
};

Status check_index_output(const NodeDesc& node, size_t i) {
  const TensorDesc& t = node.outputs[i];
  if (t.dtype != dtype::kInt32 && t.dtype != dtype::kUint32) {
    return invalid(node, out_label(i), " data type is ", dtype::name(t.dtype), ", expected INT_32 or UINT_32");
  }
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.inputs.size() != 2) return invalid(node, "has ", node.inputs.size(), " inputs, expected 2");
  if (node.outputs.size() < 1 || node.outputs.size() > 2) {
    return invalid(node, "has ", node.outputs.size(), " outputs, expected 1 or 2");
  }
  const TensorDesc& boxes = node.inputs[0];
  const TensorDesc& scores = node.inputs[1];
  if (Status s = check_f32_tensor(node, boxes, in_label(0, "boxes")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, scores, in_label(1, "scores")); !s.ok()) return s;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (Status s = check_index_output(node, i); !s.ok()) return s;
  }
  ParamReader params(node);
  if (Status s = params.check_names({"iou_threshold", "score_threshold", "max_boxes_selected"}); !s.ok()) return s;
  NmsGeometry g;
  if (Status s = params.f32_scalar("iou_threshold", 0.0f, &g.iou_threshold); !s.ok()) return s;
  if (Status s = params.f32_scalar("score_threshold", 0.0f, &g.score_threshold); !s.ok()) return s;
  uint32_t max_boxes = 0;
  if (Status s = params.u32_scalar("max_boxes_selected", std::nullopt, &max_boxes); !s.ok()) return s;
  if (max_boxes == 0) return invalid(node, "parameter 'max_boxes_selected' is 0, expected >= 1");
  if (Status s = check_rank(node, boxes, in_label(0, "boxes"), 3, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, scores, in_label(1, "scores"), 3, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (boxes.dims[2] != 4) return invalid(node, "in[0] (boxes) dim 2 is ", boxes.dims[2], ", expected 4");
  if (scores.dims[0] != boxes.dims[0] || scores.dims[2] != boxes.dims[1]) {
    return invalid(node, "in[1] (scores) dims are ", dims_str(scores.dims), ", expected [", boxes.dims[0],
                   ",num_classes,", boxes.dims[1], "] (batch and num_boxes of in[0])");
  }
  g.batch = boxes.dims[0];
  g.boxes = boxes.dims[1];
  g.classes = scores.dims[1];
  g.max_per_class = std::min<size_t>(max_boxes, g.boxes);  // a class cannot keep more boxes than it has
  const uint64_t n_rows = uint64_t{g.batch} * g.classes * max_boxes;
  if (n_rows > 0xFFFFFFFFu) return unsupported(node, "output rows batch*num_classes*max_boxes_selected = ", n_rows, " exceed 2^32-1");
  const uint32_t out_dims[] = {static_cast<uint32_t>(n_rows), 3};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (node.outputs.size() == 2) {
    const auto& d = node.outputs[1].dims;
    g.has_count = true;
    g.count_per_batch = d.size() == 1 && d[0] == g.batch && g.batch != 1;
    if (!(d.size() == 1 && (d[0] == 1 || d[0] == g.batch))) {
      return invalid(node, "out[1] dims are ", dims_str(d), ", expected [1] or [", g.batch, "] (batch)");
    }
  }
  if (kernel) *kernel = std::make_unique<NmsKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef non_max_suppression_def() {
  return {"NonMaxSuppression", &guarded_prepare<prepare>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
