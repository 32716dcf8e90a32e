// CollectRpnProposals: Caffe2's CollectRpnProposals (Detectron's FPN RPN
// post-processing) with QNN's static shapes:
//
//   L = rpn_max_level - rpn_min_level + 1 levels
//   in[0 .. L-1]  rois of each level [n_l, 5] (batch index, x1, y1, x2, y2),
//                 or [n_l, 4] (boxes only); every level the same width
//   in[L .. 2L-1] scores of each level [n_l] or [n_l, 1]
//   params rpn_min_level (u32, default 2), rpn_max_level (u32, default 6,
//          >= rpn_min_level), post_nms_top (u32, default 2000; 0 = all), the
//          defaults being Caffe2's
//   out[0] rois [R, width]: the R highest-scoring rows of all levels
//
// Decisions where QNN is silent: the levels are concatenated in input order
// and sorted by score, descending, ties by the earlier row (Caffe2's stable
// order); a NaN score sorts last. QNN's dims are static, so R comes from
// out[0]: either min(post_nms_top, total rows) (Caffe2's output exactly;
// post_nms_top 0 means all rows) or post_nms_top itself when the levels hold
// fewer rows, the rows after the last one 0.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class CollectRpnKernel final : public OpKernel {
 public:
  CollectRpnKernel(std::vector<size_t> level_rows, size_t width, size_t out_rows)
      : level_rows_(std::move(level_rows)), width_(width), out_rows_(out_rows) {
    size_t total = 0;
    for (size_t n : level_rows_) total += n;
    keys_.resize(total);
    order_.resize(total);
    src_.resize(total);
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const size_t L = level_rows_.size();
    size_t k = 0;
    for (size_t l = 0; l < L; ++l) {
      const float* s = static_cast<const float*>(in[L + l]);
      const float* r = static_cast<const float*>(in[l]);
      for (size_t i = 0; i < level_rows_[l]; ++i, ++k) {
        keys_[k] = std::isnan(s[i]) ? -INFINITY : s[i];
        src_[k] = r + i * width_;
        order_[k] = static_cast<uint32_t>(k);
      }
    }
    const size_t n = std::min(out_rows_, keys_.size());
    auto before = [&](uint32_t p, uint32_t q) { return keys_[p] > keys_[q] || (keys_[p] == keys_[q] && p < q); };
    std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(n), order_.end(), before);
    float* o = static_cast<float*>(out[0]);
    for (size_t i = 0; i < n; ++i) std::memcpy(o + i * width_, src_[order_[i]], width_ * sizeof(float));
    std::memset(o + n * width_, 0, (out_rows_ - n) * width_ * sizeof(float));
  }

 private:
  std::vector<size_t> level_rows_;
  size_t width_, out_rows_;
  std::vector<float> keys_;
  std::vector<uint32_t> order_;
  std::vector<const float*> src_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  ParamReader params(node);
  if (Status s = params.check_names({"rpn_min_level", "rpn_max_level", "post_nms_top"}); !s.ok()) return s;
  uint32_t min_level = 0, max_level = 0, top = 0;
  if (Status s = params.u32_scalar("rpn_min_level", 2u, &min_level); !s.ok()) return s;
  if (Status s = params.u32_scalar("rpn_max_level", 6u, &max_level); !s.ok()) return s;
  if (Status s = params.u32_scalar("post_nms_top", 2000u, &top); !s.ok()) return s;
  if (max_level < min_level) {
    return invalid(node, "parameter 'rpn_max_level' is ", max_level, ", expected >= rpn_min_level = ", min_level);
  }
  const size_t L = size_t{max_level} - min_level + 1;
  if (node.inputs.size() != 2 * L) {
    return invalid(node, "has ", node.inputs.size(), " inputs, expected ", 2 * L,
                   " (rois then scores of each of the ", L, " levels rpn_min_level..rpn_max_level)");
  }
  if (node.outputs.size() != 1) return invalid(node, "has ", node.outputs.size(), " outputs, expected 1");
  std::vector<size_t> rows(L);
  size_t width = 0, total = 0;
  for (size_t l = 0; l < L; ++l) {
    const TensorDesc& r = node.inputs[l];
    const TensorDesc& s = node.inputs[L + l];
    const std::string rl = in_label(l, "rois"), sl = in_label(L + l, "scores");
    if (Status st = check_f32_tensor(node, r, rl); !st.ok()) return st;
    if (Status st = check_f32_tensor(node, s, sl); !st.ok()) return st;
    if (r.dims.size() != 2 || (r.dims[1] != 4 && r.dims[1] != 5)) {
      return invalid(node, rl, " dims are ", dims_str(r.dims), ", expected [num_rois,5] or [num_rois,4]");
    }
    if (l == 0) width = r.dims[1];
    if (r.dims[1] != width) {
      return invalid(node, rl, " has ", r.dims[1], " columns, expected ", width, " (those of in[0])");
    }
    const bool score_ok = (s.dims.size() == 1 && s.dims[0] == r.dims[0]) ||
                          (s.dims.size() == 2 && s.dims[0] == r.dims[0] && s.dims[1] == 1);
    if (!score_ok) {
      return invalid(node, sl, " dims are ", dims_str(s.dims), ", expected [", r.dims[0], "] or [", r.dims[0],
                     ",1] (one score per row of ", rl, ")");
    }
    rows[l] = r.dims[0];
    total += rows[l];
  }
  const TensorDesc& o = node.outputs[0];
  if (Status st = check_f32_tensor(node, o, out_label(0)); !st.ok()) return st;
  const size_t exact = top == 0 ? total : std::min<size_t>(top, total);
  if (o.dims.size() != 2 || o.dims[1] != width || (o.dims[0] != exact && (top == 0 || o.dims[0] != top))) {
    return invalid(node, "out[0] dims are ", dims_str(o.dims), ", expected [", exact, ",", width, "]",
                   (top != 0 && top != exact) ? cat(" or [", top, ",", width, "] (padded with 0 rows)") : "",
                   " (min(post_nms_top, total rows) = ", exact, ")");
  }
  if (kernel) *kernel = std::make_unique<CollectRpnKernel>(std::move(rows), width, o.dims[0]);
  return Status::Ok();
}

}  // namespace

OpDef collect_rpn_proposals_def() {
  return {"CollectRpnProposals", &guarded_prepare<prepare>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
