// GenerateProposals: region proposals from a region-proposal network's
// scores and box deltas — Android NNAPI's GENERATE_PROPOSALS (NHWC) with QNN's
// inputs, outputs and parameters (caffe2's GenerateProposals as QNN's
// converters map it: anchors before the image info, which is (height, width)
// with no scale):
//
//   in[0] scores [batch, H, W, A]
//   in[1] deltas [batch, H, W, A*4], per anchor (dx, dy, dw, dh)
//   in[2] anchors [A, 4] (x1, y1, x2, y2), at feature-map pixel (0, 0);
//         rotated anchors [A, 5] are refused (QNN's converters refuse them too)
//   in[3] image info [batch, 2] (height, width)
//   params img_size_ratio [2] FLOAT_32 (height_ratio, width_ratio), mandatory,
//          both > 0: the image pixels per feature-map pixel (NNAPI's
//          height_stride / width_stride; the converters give 1/spatial_scale)
//          min_size (f32, default 16, >= 0), pre_nms_limit (integer, default
//          6000), post_nms_limit (integer, default 300; both <= 0: no limit),
//          iou_threshold (f32, default 0.7), bbox_xform_clip (bool, default
//          0): clip dw and dh at log(1000/16) before the exp, as caffe2 does
//          (the converters set it; NNAPI never clips)
//          (the numeric defaults are caffe2's, which the converters fill in)
//   out[0] scores [M], out[1] boxes [M, 4] (x1, y1, x2, y2), out[2] batch
//          indices [M] (INT_32 or UINT_32); M is out[0]'s dim 0
//
// Per image b: candidate i = (h*W + w)*A + a is anchor a shifted by
// (w * width_ratio, h * height_ratio); candidates are ranked by score
// (descending, ties: lower i; NaN scores dropped) and the first
// pre_nms_limit kept; each is transformed by its delta with
// AxisAlignedBboxTransform's formula (box_math.h, weights 1, clamped into the
// image); a box is kept only if its width and height are >= min_size and its
// centre lies inside the image (x < width, y < height: caffe2's rule, no +1);
// then hard NMS (a box is dropped when its IoU with a kept box is >=
// iou_threshold, NNAPI's comparison) keeps at most post_nms_limit, in
// descending score. Rows: image by image, each image's in the order kept;
// once M rows are written the rest is dropped; rows after the last are 0.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/box_math.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/roi_inputs.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct ProposalGeometry {
  size_t batch = 0, H = 0, W = 0, A = 0, max_out = 0;
  float height_ratio = 1.0f, width_ratio = 1.0f, min_size = 16.0f, iou_threshold = 0.7f;
  int64_t pre_limit = 6000, post_limit = 300;
  bool clip = false;
};

class GenerateProposalsKernel final : public OpKernel {
 public:
  explicit GenerateProposalsKernel(const ProposalGeometry& g)
      : g_(g), idx_(g.H * g.W * g.A), score_(g.H * g.W * g.A), boxes_(g.H * g.W * g.A * 4) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* scores = static_cast<const float*>(in[0]);
    const float* deltas = static_cast<const float*>(in[1]);
    const float* anchors = static_cast<const float*>(in[2]);
    const float* info = static_cast<const float*>(in[3]);
    float* out_scores = static_cast<float*>(out[0]);
    float* out_boxes = static_cast<float*>(out[1]);
    int32_t* out_batch = static_cast<int32_t*>(out[2]);  // UINT_32 holds the same values
    const size_t M = g_.max_out, A = g_.A, W = g_.W, n_all = g_.H * g_.W * g_.A;
    std::memset(out_scores, 0, M * sizeof(float));
    std::memset(out_boxes, 0, M * 4 * sizeof(float));
    std::memset(out_batch, 0, M * sizeof(int32_t));
    const float ones[4] = {1, 1, 1, 1};
    const double clip = g_.clip ? kBoxXformClip : HUGE_VAL;
    NmsOptions nms;
    nms.method = NmsMethod::kHard;
    nms.iou_threshold = g_.iou_threshold;
    if (g_.post_limit > 0) nms.max_keep = static_cast<size_t>(g_.post_limit);
    size_t row = 0;
    for (size_t b = 0; b < g_.batch && row < M; ++b) {
      const float* sc = scores + b * n_all;
      const float* dl = deltas + b * n_all * 4;
      const double img_h = info[b * 2], img_w = info[b * 2 + 1];
      size_t n = 0;
      for (size_t i = 0; i < n_all; ++i) {
        if (!std::isnan(sc[i])) idx_[n++] = static_cast<uint32_t>(i);
      }
      const size_t take = g_.pre_limit > 0 && static_cast<size_t>(g_.pre_limit) < n ? static_cast<size_t>(g_.pre_limit) : n;
      std::partial_sort(idx_.begin(), idx_.begin() + take, idx_.begin() + n, [sc](uint32_t p, uint32_t q) {
        return sc[p] != sc[q] ? sc[p] > sc[q] : p < q;
      });
      size_t m = 0;
      for (size_t j = 0; j < take; ++j) {
        const uint32_t i = idx_[j];
        const size_t a = i % A, w = (i / A) % W, h = i / (A * W);
        const float* an = anchors + a * 4;
        const double sx = static_cast<double>(w) * g_.width_ratio, sy = static_cast<double>(h) * g_.height_ratio;
        const float shifted[4] = {static_cast<float>(an[0] + sx), static_cast<float>(an[1] + sy),
                                  static_cast<float>(an[2] + sx), static_cast<float>(an[3] + sy)};
        float* bx = boxes_.data() + size_t{i} * 4;
        transform_upright_box(shifted, dl + size_t{i} * 4, ones, clip, img_h, img_w, bx);
        const double bw = double{bx[2]} - bx[0], bh = double{bx[3]} - bx[1];
        const double cx = bx[0] + bw / 2, cy = bx[1] + bh / 2;
        if (bw >= g_.min_size && bh >= g_.min_size && cx < img_w && cy < img_h) {
          idx_[m] = i;  // m <= j: overwrites only candidates already visited
          score_[m] = sc[i];
          ++m;
        }
      }
      const size_t kept = greedy_nms(boxes_.data(), 4, idx_.data(), score_.data(), m, nms);
      for (size_t k = 0; k < kept && row < M; ++k, ++row) {
        out_scores[row] = score_[k];
        std::memcpy(out_boxes + row * 4, boxes_.data() + size_t{idx_[k]} * 4, 4 * sizeof(float));
        out_batch[row] = static_cast<int32_t>(b);
      }
    }
  }

 private:
  ProposalGeometry g_;
  std::vector<uint32_t> idx_;
  std::vector<float> score_, boxes_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 4, 4, 3); !s.ok()) return s;
  const TensorDesc& scores = node.inputs[0];
  const TensorDesc& deltas = node.inputs[1];
  const TensorDesc& anchors = node.inputs[2];
  const TensorDesc& info = node.inputs[3];
  if (Status s = check_f32_tensor(node, scores, in_label(0, "scores")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, deltas, in_label(1, "deltas")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, anchors, in_label(2, "anchors")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, info, in_label(3, "image_info")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[1], out_label(1)); !s.ok()) return s;
  if (Status s = check_index_tensor(node, node.outputs[2], out_label(2)); !s.ok()) return s;

  ParamReader params(node);
  if (Status s = params.check_names({"img_size_ratio", "min_size", "pre_nms_limit", "post_nms_limit", "iou_threshold",
                                     "bbox_xform_clip"});
      !s.ok())
    return s;
  ProposalGeometry g;
  if (Status s = read_img_size_ratio(node, &g.height_ratio, &g.width_ratio); !s.ok()) return s;
  if (Status s = params.f32_scalar("min_size", 16.0f, &g.min_size); !s.ok()) return s;
  if (g.min_size < 0.0f) return invalid(node, "parameter 'min_size' is ", g.min_size, ", expected >= 0");
  if (Status s = read_int_scalar(node, "pre_nms_limit", 6000, &g.pre_limit); !s.ok()) return s;
  if (Status s = read_int_scalar(node, "post_nms_limit", 300, &g.post_limit); !s.ok()) return s;
  if (Status s = params.f32_scalar("iou_threshold", 0.7f, &g.iou_threshold); !s.ok()) return s;
  if (Status s = params.bool_scalar("bbox_xform_clip", false, &g.clip); !s.ok()) return s;

  if (Status s = check_rank(node, scores, in_label(0, "scores"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, deltas, in_label(1, "deltas"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, anchors, in_label(2, "anchors"), 2, 2, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (Status s = check_rank(node, info, in_label(3, "image_info"), 2, 2, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t N = scores.dims[0], H = scores.dims[1], W = scores.dims[2], A = scores.dims[3];
  if (anchors.dims[1] == 5) {
    return unsupported(node, "in[2] (anchors) dims are ", dims_str(anchors.dims),
                       ": rotated anchors (ctr_x, ctr_y, w, h, angle) are not supported");
  }
  if (anchors.dims[0] != A || anchors.dims[1] != 4) {
    return invalid(node, "in[2] (anchors) dims are ", dims_str(anchors.dims), ", expected [", A,
                   ",4] (num_anchors of in[0])");
  }
  if (uint64_t{A} * 4 > 0xFFFFFFFFu || deltas.dims[0] != N || deltas.dims[1] != H || deltas.dims[2] != W ||
      deltas.dims[3] != A * 4) {
    return invalid(node, "in[1] (deltas) dims are ", dims_str(deltas.dims), ", expected [", N, ",", H, ",", W, ",",
                   uint64_t{A} * 4, "]");
  }
  if (info.dims[0] != N || info.dims[1] != 2) {
    return invalid(node, "in[3] (image_info) dims are ", dims_str(info.dims), ", expected [", N, ",2]");
  }
  if (uint64_t{H} * W * A > 0xFFFFFFFFu) {
    return unsupported(node, "H*W*num_anchors = ", uint64_t{H} * W * A, " exceeds 2^32-1");
  }
  const TensorDesc& o0 = node.outputs[0];
  if (o0.dims.size() != 1) return invalid(node, "out[0] dims are ", dims_str(o0.dims), ", expected [max_rois]");
  const uint32_t M = o0.dims[0];
  const uint32_t box_dims[] = {M, 4}, row_dims[] = {M};
  if (Status s = check_output_dims(node, 1, box_dims); !s.ok()) return s;
  if (Status s = check_output_dims(node, 2, row_dims); !s.ok()) return s;
  g.batch = N;
  g.H = H;
  g.W = W;
  g.A = A;
  g.max_out = M;
  if (kernel) *kernel = std::make_unique<GenerateProposalsKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef generate_proposals_def() { return {"GenerateProposals", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
