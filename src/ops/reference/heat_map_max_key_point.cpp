// HeatMapMaxKeyPoint: the most likely position of each keypoint in each box
// from its heat map, refined below the pixel — Android NNAPI's
// HEATMAP_MAX_KEYPOINT (NHWC; Mask R-CNN's keypoint head as caffe2's
// HeatmapMaxKeypoint computes it):
//
//   in[0] heatmaps [N, H, W, K] (one H x W map per box and keypoint)
//   in[1] boxes [N, 4] (x1, y1, x2, y2)
//   no parameters
//   out[0] scores [N, K], out[1] keypoints [N, K, 2] (x, y)
//
// Per box n and keypoint k: (mh, mw) is the first maximum of the map in row-
// major order (NaN never wins; an all-NaN map gives (0, 0)); g is the 3x3
// neighbourhood around it, a row or column outside the map read mirrored
// (-1 -> 1, H -> H-2; hence H, W >= 2). With the gradient and Hessian of g at
// its centre by central differences,
//   b = -(g[1][2]-g[1][0])/2, -(g[2][1]-g[0][1])/2   (x first)
//   A = [[g[1][0]-2g[1][1]+g[1][2], c], [c, g[0][1]-2g[1][1]+g[2][1]]],
//   c = (g[2][2]-g[2][0]-g[0][2]+g[0][0])/4,
// the quadratic model D(d) = g[1][1] - b.d + d.A.d/2 has its stationary point
// at d = A^-1 b (the Taylor refinement NNAPI and caffe2 use in place of a
// bicubic upscale); when A is near singular (|det A| <= 1e-5 (|A00 A11| +
// c^2), a tolerance chosen here) d = 0. A d with a component beyond 1.5
// pixels is scaled down to 1.5 (direction kept). Then
//   score = D(d)
//   x = (mw + dx + 0.5) * bw / W + x1,  y = (mh + dy + 0.5) * bh / H + y1,
//   bw = max(x2 - x1, 1), bh = max(y2 - y1, 1).
// NNAPI has square maps (H = W); maps with H != W are accepted with each
// axis scaled by its own size.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct KeypointGeometry {
  size_t boxes = 0, H = 0, W = 0, K = 0;
};

class HeatMapMaxKeyPointKernel final : public OpKernel {
 public:
  explicit HeatMapMaxKeyPointKernel(const KeypointGeometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* maps = static_cast<const float*>(in[0]);
    const float* boxes = static_cast<const float*>(in[1]);
    float* out_scores = static_cast<float*>(out[0]);
    float* out_points = static_cast<float*>(out[1]);
    const size_t H = g_.H, W = g_.W, K = g_.K;
    for (size_t n = 0; n < g_.boxes; ++n) {
      const float* map = maps + n * H * W * K;
      const float* box = boxes + n * 4;
      const double bw = std::fmax(double{box[2]} - box[0], 1.0), bh = std::fmax(double{box[3]} - box[1], 1.0);
      for (size_t k = 0; k < K; ++k) {
        auto at = [&](size_t h, size_t w) { return double{map[(h * W + w) * K + k]}; };
        size_t mh = 0, mw = 0;
        double best = -HUGE_VAL;
        bool found = false;
        for (size_t h = 0; h < H; ++h) {
          for (size_t w = 0; w < W; ++w) {
            const double v = at(h, w);
            if (v > best || (!found && v == best)) {
              best = v;
              mh = h;
              mw = w;
              found = true;
            }
          }
        }
        double grid[3][3];
        for (int dh = -1; dh <= 1; ++dh) {
          for (int dw = -1; dw <= 1; ++dw) {
            grid[dh + 1][dw + 1] = at(mirror(static_cast<int64_t>(mh) + dh, H), mirror(static_cast<int64_t>(mw) + dw, W));
          }
        }
        double dx = 0.0, dy = 0.0, score = grid[1][1];
        refine(grid, &dx, &dy, &score);
        out_scores[n * K + k] = static_cast<float>(score);
        out_points[(n * K + k) * 2] = static_cast<float>((mw + dx + 0.5) * bw / static_cast<double>(W) + box[0]);
        out_points[(n * K + k) * 2 + 1] = static_cast<float>((mh + dy + 0.5) * bh / static_cast<double>(H) + box[1]);
      }
    }
  }

 private:
  static size_t mirror(int64_t i, size_t n) {
    if (i < 0) return static_cast<size_t>(-i);
    if (static_cast<size_t>(i) >= n) return 2 * n - 2 - static_cast<size_t>(i);
    return static_cast<size_t>(i);
  }

  // The stationary point of the quadratic model of g (see the top).
  static void refine(const double g[3][3], double* dx, double* dy, double* score) {
    const double b0 = -(g[1][2] - g[1][0]) / 2, b1 = -(g[2][1] - g[0][1]) / 2;
    const double a00 = g[1][0] - 2 * g[1][1] + g[1][2];
    const double a11 = g[0][1] - 2 * g[1][1] + g[2][1];
    const double c = (g[2][2] - g[2][0] - g[0][2] + g[0][0]) / 4;
    const double det = a00 * a11 - c * c;
    if (!(std::fabs(det) > 1e-5 * (std::fabs(a00 * a11) + c * c))) return;  // also NaN
    double x = (a11 * b0 - c * b1) / det, y = (a00 * b1 - c * b0) / det;
    const double m = std::fmax(std::fabs(x), std::fabs(y));
    if (m > 1.5) {
      x *= 1.5 / m;
      y *= 1.5 / m;
    }
    *dx = x;
    *dy = y;
    *score = g[1][1] - (b0 * x + b1 * y) + ((a00 * x + c * y) * x + (c * x + a11 * y) * y) / 2;
  }

  KeypointGeometry g_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 2); !s.ok()) return s;
  const TensorDesc& maps = node.inputs[0];
  const TensorDesc& boxes = node.inputs[1];
  if (Status s = check_f32_tensor(node, maps, in_label(0, "heatmaps")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, boxes, in_label(1, "boxes")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[1], out_label(1)); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({}); !s.ok()) return s;
  if (Status s = check_rank(node, maps, in_label(0, "heatmaps"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, boxes, in_label(1, "boxes"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  const uint32_t N = maps.dims[0], H = maps.dims[1], W = maps.dims[2], K = maps.dims[3];
  if (H < 2 || W < 2) {
    return invalid(node, "in[0] (heatmaps) dims are ", dims_str(maps.dims),
                   ", expected height and width >= 2 (the 3x3 neighbourhood mirrors at the edges)");
  }
  if (boxes.dims[0] != N || boxes.dims[1] != 4) {
    return invalid(node, "in[1] (boxes) dims are ", dims_str(boxes.dims), ", expected [", N, ",4] (num_boxes of in[0])");
  }
  const uint32_t score_dims[] = {N, K}, point_dims[] = {N, K, 2};
  if (Status s = check_output_dims(node, 0, score_dims); !s.ok()) return s;
  if (Status s = check_output_dims(node, 1, point_dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<HeatMapMaxKeyPointKernel>(KeypointGeometry{N, H, W, K});
  return Status::Ok();
}

}  // namespace

OpDef heat_map_max_key_point_def() {
  return {"HeatMapMaxKeyPoint", &guarded_prepare<prepare>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
