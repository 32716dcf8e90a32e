// BoxWithNmsLimit: per-class (soft) non-max suppression of refined boxes,
// per image, with a limit on the detections of each image — Android NNAPI's
// BOX_WITH_NMS_LIMIT (the semantics) with the inputs and outputs of QNN's op,
// which follow caffe2's BoxWithNMSLimit as QNN's converters map it (boxes
// before scores, NNAPI's per-roi batch index added):
//
//   in[0] boxes [R, K*4]: per roi, one box (x1, y1, x2, y2) per class
//   in[1] scores [R, K]; class 0 is the background and is skipped
//   in[2] batch_indices [R] (INT_32 or UINT_32): the image of each roi
//   in[3] (optional) batch_splits [batch] (INT_32 or UINT_32): caffe2's roi
//         count per image; only its size is used (the number of images);
//         which image a roi belongs to comes from in[2]
//   params nms_kernel_method HARD 0 (default) / LINEAR 1 / GAUSSIAN 2,
//          score_threshold (f32, default 0.05), iou_threshold (f32, default
//          0.3), sigma (f32, default 0.5, > 0 for GAUSSIAN),
//          nms_score_threshold (f32, default 0.001), pre_nms_limit (integer,
//          default 100; <= 0: no limit) — the defaults are caffe2's, which
//          QNN's converters fill in; pre_nms_limit is what they fill from
//          caffe2's detections_per_im: the most detections kept per image
//   out[0] boxes [M, 4], out[1] scores [M], out[2] classes [M],
//   out[3] batch_indices [M] (INT_32 or UINT_32); M is out[0]'s dim 0
//   optional, in this order: out[4] batch_splits [batch] (the rows written
//   for each image), out[5] keeps [M] (the input roi of each row), out[6]
//   keeps_size [batch, K] (the rows written per image and class; class 0
//   always 0); all INT_32 or UINT_32
//
// Per image (the rois with one batch index), for each class c >= 1: the rois
// whose score is > score_threshold (NaN never is), then box_math.h's greedy
// NMS: the highest score kept (ties: the lower roi), the others
//   HARD:     dropped when IoU >= iou_threshold
//   LINEAR:   score *= 1 - IoU when IoU >= iou_threshold
//   GAUSSIAN: score *= exp(-IoU^2 / sigma)
// and with the soft kernels dropped once the score is < nms_score_threshold.
// Output scores are the (decayed) scores. If the image kept more than
// pre_nms_limit boxes, the highest-scoring ones stay (ties: lower class, then
// the order kept). Rows: image by image in ascending batch index, within an
// image class by class, within a class in the order kept (descending score);
// once M rows are written the rest is dropped; rows after the last one are 0
// (and so are the optional outputs' unused entries). A batch index that is
// negative, or >= batch when the number of images is known (from in[3],
// out[4] or out[6]), puts its roi in no image (refused at prepare when in[2]
// is static).
#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/box_math.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct BoxNmsGeometry {
  size_t rois = 0, classes = 0, max_out = 0, batch = 0;
  bool batch_known = false, signed_index = true;
  size_t n_outputs = 4;
  float score_threshold = 0.05f;
  int64_t limit = 100;
  NmsOptions nms;
};

class BoxWithNmsLimitKernel final : public OpKernel {
 public:
  explicit BoxWithNmsLimitKernel(const BoxNmsGeometry& g)
      : g_(g), order_(g.rois), cand_(g.rois), cand_score_(g.rois) {
    picks_.reserve(g.rois * (g.classes > 0 ? g.classes - 1 : 0));
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* boxes = static_cast<const float*>(in[0]);
    const float* scores = static_cast<const float*>(in[1]);
    const void* index = in[2];
    float* out_boxes = static_cast<float*>(out[0]);
    float* out_scores = static_cast<float*>(out[1]);
    // UINT_32 outputs hold the same small non-negative values as INT_32 ones.
    int32_t* out_classes = static_cast<int32_t*>(out[2]);
    int32_t* out_batch = static_cast<int32_t*>(out[3]);
    int32_t* out_splits = g_.n_outputs > 4 ? static_cast<int32_t*>(out[4]) : nullptr;
    int32_t* out_keeps = g_.n_outputs > 5 ? static_cast<int32_t*>(out[5]) : nullptr;
    int32_t* out_keeps_size = g_.n_outputs > 6 ? static_cast<int32_t*>(out[6]) : nullptr;
    const size_t M = g_.max_out, K = g_.classes;
    std::memset(out_boxes, 0, M * 4 * sizeof(float));
    std::memset(out_scores, 0, M * sizeof(float));
    std::memset(out_classes, 0, M * sizeof(int32_t));
    std::memset(out_batch, 0, M * sizeof(int32_t));
    if (out_splits) std::memset(out_splits, 0, g_.batch * sizeof(int32_t));
    if (out_keeps) std::memset(out_keeps, 0, M * sizeof(int32_t));
    if (out_keeps_size) std::memset(out_keeps_size, 0, g_.batch * K * sizeof(int32_t));

    // The rois of real images, grouped by image (ascending), each group in roi order.
    auto batch_of = [&](uint32_t r) { return index_at(index, g_.signed_index, r); };
    size_t n_valid = 0;
    for (uint32_t r = 0; r < g_.rois; ++r) {
      const int64_t b = batch_of(r);
      if (b < 0 || (g_.batch_known && static_cast<uint64_t>(b) >= g_.batch)) continue;
      order_[n_valid++] = r;
    }
    std::sort(order_.begin(), order_.begin() + n_valid, [&](uint32_t p, uint32_t q) {
      const int64_t bp = batch_of(p), bq = batch_of(q);
      return bp != bq ? bp < bq : p < q;
    });

    NmsOptions nms = g_.nms;
    // A class's boxes come out in descending score: past the image limit
    // none of them could stay, so the per-class search stops there.
    if (g_.limit > 0) nms.max_keep = static_cast<size_t>(g_.limit);
    size_t row = 0;
    for (size_t s = 0; s < n_valid && row < M;) {
      const int64_t b = batch_of(order_[s]);
      size_t e = s;
      while (e < n_valid && batch_of(order_[e]) == b) ++e;
      picks_.clear();
      for (size_t c = 1; c < K; ++c) {
        size_t n = 0;
        for (size_t i = s; i < e; ++i) {
          const uint32_t r = order_[i];
          const float sc = scores[size_t{r} * K + c];
          if (sc > g_.score_threshold) {
            cand_[n] = r;
            cand_score_[n] = sc;
            ++n;
          }
        }
        const size_t kept = greedy_nms(boxes + c * 4, K * 4, cand_.data(), cand_score_.data(), n, nms);
        for (size_t i = 0; i < kept; ++i) {
          picks_.push_back({cand_score_[i], static_cast<uint32_t>(c), cand_[i], static_cast<uint32_t>(picks_.size())});
        }
      }
      if (g_.limit > 0 && picks_.size() > static_cast<size_t>(g_.limit)) {
        std::sort(picks_.begin(), picks_.end(), [](const Pick& p, const Pick& q) {
          if (p.score != q.score) return p.score > q.score;
          return p.seq < q.seq;  // seq grows with the class, then the order kept
        });
        picks_.resize(static_cast<size_t>(g_.limit));
        std::sort(picks_.begin(), picks_.end(), [](const Pick& p, const Pick& q) { return p.seq < q.seq; });
      }
      for (const Pick& p : picks_) {
        if (row == M) break;
        std::memcpy(out_boxes + row * 4, boxes + (size_t{p.roi} * K + p.cls) * 4, 4 * sizeof(float));
        out_scores[row] = p.score;
        out_classes[row] = static_cast<int32_t>(p.cls);
        out_batch[row] = static_cast<int32_t>(b);
        if (out_keeps) out_keeps[row] = static_cast<int32_t>(p.roi);
        if (out_splits) ++out_splits[b];
        if (out_keeps_size) ++out_keeps_size[static_cast<size_t>(b) * K + p.cls];
        ++row;
      }
      s = e;
    }
  }

 private:
  struct Pick {
    float score;
    uint32_t cls, roi, seq;
  };
  BoxNmsGeometry g_;
  std::vector<uint32_t> order_, cand_;
  std::vector<float> cand_score_;
  std::vector<Pick> picks_;
};

// The number of images one optional tensor states: must agree with what is
// known so far.
Status note_batch(const NodeDesc& node, const std::string& label, uint32_t n, BoxNmsGeometry* g) {
  if (g->batch_known && g->batch != n) {
    return invalid(node, label, " gives ", n, " images, expected batch = ", g->batch);
  }
  g->batch = n;
  g->batch_known = true;
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.inputs.size() < 3 || node.inputs.size() > 4) {
    return invalid(node, "has ", node.inputs.size(), " inputs, expected 3 or 4");
  }
  if (node.outputs.size() < 4 || node.outputs.size() > 7) {
    return invalid(node, "has ", node.outputs.size(), " outputs, expected 4 to 7");
  }
  const TensorDesc& boxes = node.inputs[0];
  const TensorDesc& scores = node.inputs[1];
  const TensorDesc& index = node.inputs[2];
  if (Status s = check_f32_tensor(node, boxes, in_label(0, "boxes")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, scores, in_label(1, "scores")); !s.ok()) return s;
  if (Status s = check_index_tensor(node, index, in_label(2, "batch_indices")); !s.ok()) return s;
  const bool has_splits_in = has_input(node, 3);
  if (has_splits_in) {
    if (Status s = check_index_tensor(node, node.inputs[3], in_label(3, "batch_splits")); !s.ok()) return s;
  }
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[1], out_label(1)); !s.ok()) return s;
  for (size_t i = 2; i < node.outputs.size(); ++i) {
    if (Status s = check_index_tensor(node, node.outputs[i], out_label(i)); !s.ok()) return s;
  }

  ParamReader params(node);
  if (Status s = params.check_names({"nms_kernel_method", "nms_score_threshold", "score_threshold", "pre_nms_limit",
                                     "iou_threshold", "sigma"});
      !s.ok())
    return s;
  BoxNmsGeometry g;
  uint32_t method = 0;
  if (Status s = params.u32_scalar("nms_kernel_method", 0u, &method); !s.ok()) return s;
  if (method > 2) {
    return invalid(node, "parameter 'nms_kernel_method' is ", method, ", expected HARD 0, LINEAR 1 or GAUSSIAN 2");
  }
  g.nms.method = static_cast<NmsMethod>(method);
  if (Status s = params.f32_scalar("score_threshold", 0.05f, &g.score_threshold); !s.ok()) return s;
  if (Status s = params.f32_scalar("iou_threshold", 0.3f, &g.nms.iou_threshold); !s.ok()) return s;
  if (Status s = params.f32_scalar("sigma", 0.5f, &g.nms.sigma); !s.ok()) return s;
  if (Status s = params.f32_scalar("nms_score_threshold", 0.001f, &g.nms.nms_score_threshold); !s.ok()) return s;
  if (Status s = read_int_scalar(node, "pre_nms_limit", 100, &g.limit); !s.ok()) return s;
  if (g.nms.method == NmsMethod::kGaussian && !(g.nms.sigma > 0.0f)) {
    return invalid(node, "parameter 'sigma' is ", g.nms.sigma, ", expected > 0 for GAUSSIAN");
  }

  if (Status s = check_rank(node, boxes, in_label(0, "boxes"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, scores, in_label(1, "scores"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, index, in_label(2, "batch_indices"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t R = scores.dims[0], K = scores.dims[1];
  if (uint64_t{K} * 4 > 0xFFFFFFFFu || boxes.dims[0] != R || boxes.dims[1] != K * 4) {
    return invalid(node, "in[0] (boxes) dims are ", dims_str(boxes.dims), ", expected [", R, ",", uint64_t{K} * 4,
                   "] (num_rois, num_classes*4 of in[1])");
  }
  if (index.dims[0] != R) {
    return invalid(node, "in[2] (batch_indices) dim 0 is ", index.dims[0], ", expected num_rois = ", R);
  }
  if (has_splits_in) {
    const TensorDesc& splits = node.inputs[3];
    if (Status s = check_rank(node, splits, in_label(3, "batch_splits"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (Status s = note_batch(node, in_label(3, "batch_splits"), splits.dims[0], &g); !s.ok()) return s;
  }
  const TensorDesc& ob = node.outputs[0];
  if (ob.dims.size() != 2 || ob.dims[1] != 4) {
    return invalid(node, "out[0] dims are ", dims_str(ob.dims), ", expected [max_detections,4]");
  }
  const uint32_t M = ob.dims[0];
  const uint32_t per_row[] = {M};
  for (size_t i : {size_t{1}, size_t{2}, size_t{3}, size_t{5}}) {
    if (i >= node.outputs.size()) continue;
    if (Status s = check_output_dims(node, i, per_row); !s.ok()) return s;
  }
  if (node.outputs.size() > 4) {
    const auto& d = node.outputs[4].dims;
    if (d.size() != 1) return invalid(node, "out[4] (batch_splits) dims are ", dims_str(d), ", expected [batch]");
    if (Status s = note_batch(node, "out[4] (batch_splits)", d[0], &g); !s.ok()) return s;
  }
  if (node.outputs.size() > 6) {
    const auto& d = node.outputs[6].dims;
    if (d.size() != 2 || d[1] != K) {
      return invalid(node, "out[6] (keeps_size) dims are ", dims_str(d), ", expected [batch,", K, "]");
    }
    if (Status s = note_batch(node, "out[6] (keeps_size)", d[0], &g); !s.ok()) return s;
  }
  g.rois = R;
  g.classes = K;
  g.max_out = M;
  g.n_outputs = node.outputs.size();
  g.signed_index = index.dtype == dtype::kInt32;
  if (index.static_data != nullptr) {
    for (size_t r = 0; r < R; ++r) {
      const int64_t v = index_at(index.static_data, g.signed_index, r);
      if (v < 0 || (g.batch_known && static_cast<uint64_t>(v) >= g.batch)) {
        return invalid(node, "in[2] (batch_indices) element ", r, " is ", v,
                       g.batch_known ? cat(", expected 0 to batch-1 = ", g.batch - 1) : std::string(", expected >= 0"));
      }
    }
  }
  if (kernel) *kernel = std::make_unique<BoxWithNmsLimitKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef box_with_nms_limit_def() { return {"BoxWithNmsLimit", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
