// DistributeFpnProposals: Caffe2's DistributeFpnProposals (Detectron's FPN
// RoI-to-level assignment) with QNN's static shapes:
//
//   in[0] rois [R, 5] (batch index, x1, y1, x2, y2) or [R, 4] (x1, y1, x2, y2)
//   params roi_min_level (u32, default 2), roi_max_level (u32, default 5,
//          >= roi_min_level), roi_canonical_scale (u32, default 224, >= 1),
//          roi_canonical_level (u32, default 4), the defaults being Caffe2's
//   L = roi_max_level - roi_min_level + 1
//   out[0 .. L-1] the rois of each level, lowest level first, [R, C] with C
//          the input's width, or 5 for a [R, 4] input (Caffe2 then puts a
//          batch index 0 first)
//   out[L] restore index [R] (INT_32 or UINT_32)
//   out[L+1] optional: rois per level [L] (INT_32 or UINT_32)
//
// Level of a roi: floor(canonical_level + log2(sqrt(w * h) / canonical_scale
// + 1e-6)) clamped to [roi_min_level, roi_max_level], w = x2 - x1,
// h = y2 - y1 (no +1: Caffe2's legacy_plus_one off, as Detectron2 exports
// it), computed in double. Decisions where QNN is silent: QNN's dims are
// static, so every level output holds R rows: that level's rois in input
// order, then rows of 0. restore[i] is the row of roi i in the concatenation
// out[0], ..., out[L-1] as shaped here (level l starting at row l * R), so a
// per-level RoiAlign, Concat and BatchPermutation by out[L] gives the rois'
// features in input order, as with Caffe2's dense outputs. A negative width
// or height counts as 0 (Caffe2 refuses it at run time), so such a roi and a
// NaN one go to roi_min_level.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct FpnGeometry {
  size_t rois = 0, in_width = 4, out_width = 4, levels = 1;
  uint32_t min_level = 2, max_level = 5, canonical_scale = 224, canonical_level = 4;
  bool with_counts = false;
};

class DistributeFpnKernel final : public OpKernel {
 public:
  explicit DistributeFpnKernel(const FpnGeometry& g) : g_(g), fill_(g.levels) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* rois = static_cast<const float*>(in[0]);
    const size_t R = g_.rois, L = g_.levels, Ci = g_.in_width, Co = g_.out_width;
    const size_t box0 = Ci == 5 ? 1 : 0;  // column of x1
    for (size_t l = 0; l < L; ++l) {
      std::memset(out[l], 0, R * Co * sizeof(float));
      fill_[l] = 0;
    }
    int32_t* restore = static_cast<int32_t*>(out[L]);  // UINT_32 holds the same values
    for (size_t i = 0; i < R; ++i) {
      const float* r = rois + i * Ci;
      const double w = std::fmax(0.0, double{r[box0 + 2]} - r[box0]);
      const double h = std::fmax(0.0, double{r[box0 + 3]} - r[box0 + 1]);
      const double lvl =
          std::floor(g_.canonical_level + std::log2(std::sqrt(w * h) / g_.canonical_scale + 1e-6));
      size_t l = 0;  // NaN stays at the lowest level
      if (lvl >= g_.max_level) {
        l = L - 1;
      } else if (lvl > g_.min_level) {
        l = static_cast<size_t>(lvl - g_.min_level);
      }
      float* dst = static_cast<float*>(out[l]) + fill_[l] * Co;
      std::memcpy(dst + (Co - Ci), r, Ci * sizeof(float));  // a 4-wide roi gets batch index 0 first
      restore[i] = static_cast<int32_t>(l * R + fill_[l]);
      ++fill_[l];
    }
    if (g_.with_counts) {
      int32_t* counts = static_cast<int32_t*>(out[L + 1]);
      for (size_t l = 0; l < L; ++l) counts[l] = static_cast<int32_t>(fill_[l]);
    }
  }

 private:
  FpnGeometry g_;
  std::vector<size_t> fill_;
};

Status check_index_output(const NodeDesc& node, size_t i, const char* role) {
  const uint32_t dt = node.outputs[i].dtype;
  if (dt != dtype::kInt32 && dt != dtype::kUint32) {
    return invalid(node, out_label(i), " (", role, ") data type is ", dtype::name(dt),
                   ", expected INT_32 or UINT_32");
  }
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  ParamReader params(node);
  if (Status s = params.check_names({"roi_min_level", "roi_max_level", "roi_canonical_scale", "roi_canonical_level"});
      !s.ok()) {
    return s;
  }
  FpnGeometry g;
  if (Status s = params.u32_scalar("roi_min_level", 2u, &g.min_level); !s.ok()) return s;
  if (Status s = params.u32_scalar("roi_max_level", 5u, &g.max_level); !s.ok()) return s;
  if (Status s = params.u32_scalar("roi_canonical_scale", 224u, &g.canonical_scale); !s.ok()) return s;
  if (Status s = params.u32_scalar("roi_canonical_level", 4u, &g.canonical_level); !s.ok()) return s;
  if (g.max_level < g.min_level) {
    return invalid(node, "parameter 'roi_max_level' is ", g.max_level, ", expected >= roi_min_level = ", g.min_level);
  }
  if (g.canonical_scale == 0) return invalid(node, "parameter 'roi_canonical_scale' is 0, expected >= 1");
  g.levels = size_t{g.max_level} - g.min_level + 1;
  const size_t L = g.levels;
  if (node.inputs.size() != 1) return invalid(node, "has ", node.inputs.size(), " inputs, expected 1");
  if (node.outputs.size() != L + 1 && node.outputs.size() != L + 2) {
    return invalid(node, "has ", node.outputs.size(), " outputs, expected ", L + 1, " (the rois of each of the ", L,
                   " levels, then the restore index) or ", L + 2, " (then the rois per level)");
  }
  g.with_counts = node.outputs.size() == L + 2;
  const TensorDesc& rois = node.inputs[0];
  if (Status s = check_f32_tensor(node, rois, in_label(0, "rois")); !s.ok()) return s;
  if (rois.dims.size() != 2 || (rois.dims[1] != 4 && rois.dims[1] != 5)) {
    return invalid(node, "in[0] (rois) dims are ", dims_str(rois.dims), ", expected [num_rois,5] or [num_rois,4]");
  }
  g.rois = rois.dims[0];
  g.in_width = rois.dims[1];
  const uint32_t R = rois.dims[0];
  for (size_t l = 0; l < L; ++l) {
    const TensorDesc& o = node.outputs[l];
    if (Status s = check_f32_tensor(node, o, out_label(l)); !s.ok()) return s;
    const uint32_t width = o.dims.size() == 2 ? o.dims[1] : 0;
    if (o.dims.size() != 2 || o.dims[0] != R || !(width == g.in_width || width == 5)) {
      return invalid(node, out_label(l), " dims are ", dims_str(o.dims), ", expected [", R, ",", g.in_width, "]",
                     g.in_width == 4 ? " or [num_rois,5]" : "", " (every level sized for all rois, padded with 0)");
    }
    if (l == 0) g.out_width = width;
    if (width != g.out_width) {
      return invalid(node, out_label(l), " has ", width, " columns, expected ", g.out_width, " (those of out[0])");
    }
  }
  if (Status s = check_index_output(node, L, "restore index"); !s.ok()) return s;
  const uint32_t restore_dims[] = {R};
  if (Status s = check_output_dims(node, L, restore_dims); !s.ok()) return s;
  if (g.with_counts) {
    if (Status s = check_index_output(node, L + 1, "rois per level"); !s.ok()) return s;
    const uint32_t count_dims[] = {static_cast<uint32_t>(L)};
    if (Status s = check_output_dims(node, L + 1, count_dims); !s.ok()) return s;
  }
  if (uint64_t{R} * L > uint64_t{INT32_MAX}) {
    return unsupported(node, "num_rois * levels = ", uint64_t{R} * L, " exceeds the INT_32 restore index range");
  }
  if (kernel) *kernel = std::make_unique<DistributeFpnKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef distribute_fpn_proposals_def() {
  return {"DistributeFpnProposals", &guarded_prepare<prepare>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
