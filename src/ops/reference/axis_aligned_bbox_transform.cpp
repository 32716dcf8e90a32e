// AxisAlignedBboxTransform: refine boxes by per-class deltas, as NNAPI's
// AXIS_ALIGNED_BBOX_TRANSFORM (inputs in its order) with QNN's `weights`
// dividing the deltas (caffe2's BBoxTransform, which QNN's converters map
// here, with an image scale of 1):
//
//   in[0] rois [R, 4] (x1, y1, x2, y2)
//   in[1] deltas [R, K*4], per class (dx, dy, dw, dh)
//   in[2] batch_indices [R] (INT_32 or UINT_32)
//   in[3] image sizes [batch, 2] (height, width)
//   param weights [4] FLOAT_32 (wx, wy, ww, wh), each > 0, default all 1
//   out[0] [R, K*4]
//
//   w = x2 - x1, h = y2 - y1, centre (x1 + w/2, y1 + h/2)     (NNAPI: no +1)
//   centre' = centre + (dx/wx * w, dy/wy * h)
//   w' = w * exp(dw/ww), h' = h * exp(dh/wh)
//   out = centre' -+ (w'/2, h'/2), x clamped to [0, width], y to [0, height]
// A run-time batch index outside the batch gives that roi's rows as 0.
// The box formula and the weights rule are box_math.h's, shared with
// BboxTransform and GenerateProposals.
#include <cmath>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/box_math.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct BboxGeometry {
  size_t rois = 0, classes = 0, batch = 0;
  float weights[4] = {1, 1, 1, 1};
  bool signed_index = true;
};

class AxisAlignedBboxKernel final : public OpKernel {
 public:
  explicit AxisAlignedBboxKernel(const BboxGeometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* rois = static_cast<const float*>(in[0]);
    const float* deltas = static_cast<const float*>(in[1]);
    const float* sizes = static_cast<const float*>(in[3]);
    float* y = static_cast<float*>(out[0]);
    const size_t K = g_.classes;
    for (size_t r = 0; r < g_.rois; ++r) {
      const int64_t b = index_at(in[2], g_.signed_index, r);
      float* yr = y + r * K * 4;
      if (b < 0 || static_cast<uint64_t>(b) >= g_.batch) {
        std::memset(yr, 0, K * 4 * sizeof(float));
        continue;
      }
      const double img_h = sizes[b * 2], img_w = sizes[b * 2 + 1];
      for (size_t k = 0; k < K; ++k) {
        transform_upright_box(rois + r * 4, deltas + (r * K + k) * 4, g_.weights, HUGE_VAL, img_h, img_w,
                              yr + k * 4);
      }
    }
  }

 private:
  BboxGeometry g_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 4, 4, 1); !s.ok()) return s;
  const TensorDesc& rois = node.inputs[0];
  const TensorDesc& deltas = node.inputs[1];
  const TensorDesc& index = node.inputs[2];
  const TensorDesc& sizes = node.inputs[3];
  if (Status s = check_f32_tensor(node, rois, in_label(0, "rois")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, deltas, in_label(1, "deltas")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, index, in_label(2, "batch_indices")); !s.ok()) return s;
  if (index.dtype != dtype::kInt32 && index.dtype != dtype::kUint32) {
    return invalid(node, "in[2] (batch_indices) data type is ", dtype::name(index.dtype),
                   ", expected INT_32 or UINT_32");
  }
  if (Status s = check_f32_tensor(node, sizes, in_label(3, "image_sizes")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"weights"}); !s.ok()) return s;
  BboxGeometry g;
  if (Status s = read_box_weights(node, g.weights); !s.ok()) return s;
  if (Status s = check_rank(node, rois, in_label(0, "rois"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, deltas, in_label(1, "deltas"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, index, in_label(2, "batch_indices"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (Status s = check_rank(node, sizes, in_label(3, "image_sizes"), 2, 2, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (rois.dims[1] != 4) return invalid(node, "in[0] (rois) dim 1 is ", rois.dims[1], ", expected 4");
  if (deltas.dims[0] != rois.dims[0] || deltas.dims[1] % 4 != 0) {
    return invalid(node, "in[1] (deltas) dims are ", dims_str(deltas.dims), ", expected [", rois.dims[0],
                   ",num_classes*4]");
  }
  if (index.dims[0] != rois.dims[0]) {
    return invalid(node, "in[2] (batch_indices) dim 0 is ", index.dims[0], ", expected num_rois = ", rois.dims[0]);
  }
  if (sizes.dims[1] != 2) return invalid(node, "in[3] (image_sizes) dim 1 is ", sizes.dims[1], ", expected 2");
  if (Status s = check_output_dims(node, 0, deltas.dims); !s.ok()) return s;
  g.rois = rois.dims[0];
  g.classes = deltas.dims[1] / 4;
  g.batch = sizes.dims[0];
  g.signed_index = index.dtype == dtype::kInt32;
  if (index.static_data != nullptr) {
    for (size_t r = 0; r < g.rois; ++r) {
      const int64_t v = index_at(index.static_data, g.signed_index, r);
      if (v < 0 || static_cast<uint64_t>(v) >= g.batch) {
        return invalid(node, "in[2] (batch_indices) element ", r, " is ", v, ", expected 0 to batch-1 = ",
                       g.batch - 1);
      }
    }
  }
  if (kernel) *kernel = std::make_unique<AxisAlignedBboxKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef axis_aligned_bbox_transform_def() {
  return {"AxisAlignedBboxTransform", &guarded_prepare<prepare>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
