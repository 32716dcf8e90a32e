// GridSample (NHWC input [N,H,W,C], grid [N,Ho,Wo,2], output [N,Ho,Wo,C]):
// each output pixel samples the input at the grid's normalized position
// (x, y) in [-1, 1], x along W and y along H, as ONNX GridSample (and
// PyTorch's grid_sample), which QNN's op mirrors:
//
//   align_corners = 1: -1 and 1 are the centres of the corner pixels,
//                      ix = (x + 1) / 2 * (W - 1)
//   align_corners = 0: -1 and 1 are the outer edges of the corner pixels,
//                      ix = ((x + 1) * W - 1) / 2
//
// mode bilinear blends the four neighbours of (ix, iy); nearest takes the
// one nearest (halves round to even, as PyTorch's nearbyint). padding_mode
// decides what positions outside the input read: zeros reads 0 for every
// outside tap, border clamps the position into [0, L-1], reflection mirrors
// it at the borders (at the corner centres with align_corners, else at the
// outer edges) and then clamps.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr uint32_t kBilinear = 0, kNearest = 1;
constexpr uint32_t kZeros = 0, kBorder = 1, kReflection = 2;

struct GridGeometry {
  size_t N = 0, H = 0, W = 0, C = 0, Ho = 0, Wo = 0;
  bool align_corners = false;
  uint32_t mode = kBilinear, padding = kZeros;
};

// Mirrors `v` into [low/2, high/2] (given doubled so the half-pixel edges
// stay integers), as PyTorch's reflect_coordinates.
double reflect(double v, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0.0;
  const double lo = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  v = std::fabs(v - lo);
  const double extra = std::fmod(v, span);
  const int64_t flips = static_cast<int64_t>(std::floor(v / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

class GridSampleKernel final : public OpKernel {
 public:
  explicit GridSampleKernel(const GridGeometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* grid = static_cast<const float*>(in[1]);
    float* y = static_cast<float*>(out[0]);
    const size_t C = g_.C;
    for (size_t n = 0; n < g_.N; ++n) {
      const float* xn = x + n * g_.H * g_.W * C;
      for (size_t p = 0; p < g_.Ho * g_.Wo; ++p) {
        const float* gp = grid + (n * g_.Ho * g_.Wo + p) * 2;
        float* yp = y + (n * g_.Ho * g_.Wo + p) * C;
        const double ix = source(gp[0], g_.W), iy = source(gp[1], g_.H);
        for (size_t c = 0; c < C; ++c) yp[c] = 0.0f;
        if (g_.mode == kNearest) {
          accumulate(xn, std::nearbyint(iy), std::nearbyint(ix), 1.0, yp);
          continue;
        }
        const double x0 = std::floor(ix), y0 = std::floor(iy);
        const double fx = ix - x0, fy = iy - y0;
        accumulate(xn, y0, x0, (1 - fy) * (1 - fx), yp);
        accumulate(xn, y0, x0 + 1, (1 - fy) * fx, yp);
        accumulate(xn, y0 + 1, x0, fy * (1 - fx), yp);
        accumulate(xn, y0 + 1, x0 + 1, fy * fx, yp);
      }
    }
  }

 private:
  // The input position (in pixels) of normalized coordinate v along an axis
  // of `size`, after border / reflection padding.
  double source(float v, size_t size) const {
    const double L = static_cast<double>(size);
    double p = g_.align_corners ? (v + 1.0) / 2.0 * (L - 1) : ((v + 1.0) * L - 1) / 2.0;
    if (!std::isfinite(p)) p = -1.0;  // NaN / inf grid: read as outside (0 with zeros padding)
    if (g_.padding == kReflection) {
      const int64_t n = static_cast<int64_t>(size);
      p = g_.align_corners ? reflect(p, 0, 2 * (n - 1)) : reflect(p, -1, 2 * n - 1);
    }
    if (g_.padding != kZeros) p = std::fmin(std::fmax(p, 0.0), L - 1);
    return p;
  }

  // yp += weight * x[iy][ix], nothing for a tap outside the input.
  void accumulate(const float* xn, double iy, double ix, double weight, float* yp) const {
    if (weight == 0.0) return;
    if (iy < 0 || ix < 0 || iy >= static_cast<double>(g_.H) || ix >= static_cast<double>(g_.W)) return;
    const float* xp = xn + (static_cast<size_t>(iy) * g_.W + static_cast<size_t>(ix)) * g_.C;
    const float w = static_cast<float>(weight);
    for (size_t c = 0; c < g_.C; ++c) yp[c] += w * xp[c];
  }

  GridGeometry g_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "grid"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"align_corners", "mode", "padding_mode"}); !s.ok()) return s;
  GridGeometry g;
  if (Status s = params.bool_scalar("align_corners", false, &g.align_corners); !s.ok()) return s;
  if (Status s = params.u32_scalar("mode", kBilinear, &g.mode); !s.ok()) return s;
  if (Status s = params.u32_scalar("padding_mode", kZeros, &g.padding); !s.ok()) return s;
  if (g.mode != kBilinear && g.mode != kNearest) {
    return invalid(node, "parameter 'mode' is ", g.mode, ", expected 0 (BILINEAR) or 1 (NEAREST)");
  }
  if (g.padding != kZeros && g.padding != kBorder && g.padding != kReflection) {
    return invalid(node, "parameter 'padding_mode' is ", g.padding,
                   ", expected 0 (ZEROS), 1 (BORDER) or 2 (REFLECTION)");
  }
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& grid = node.inputs[1];
  if (x.dims.size() == 5) {
    return unsupported(node, "in[0] (input) has rank 5: only the 2-D GridSample (rank 4, NHWC) is supported");
  }
  if (Status s = check_rank(node, x, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, grid, in_label(1, "grid"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (grid.dims[0] != x.dims[0]) {
    return invalid(node, "in[1] (grid) dim 0 is ", grid.dims[0], ", expected batch N = ", x.dims[0]);
  }
  if (grid.dims[3] != 2) return invalid(node, "in[1] (grid) dim 3 is ", grid.dims[3], ", expected 2 (x, y)");
  g.N = x.dims[0];
  g.H = x.dims[1];
  g.W = x.dims[2];
  g.C = x.dims[3];
  g.Ho = grid.dims[1];
  g.Wo = grid.dims[2];
  const uint32_t out_dims[] = {x.dims[0], grid.dims[1], grid.dims[2], x.dims[3]};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<GridSampleKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef grid_sample_def() { return {"GridSample", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
