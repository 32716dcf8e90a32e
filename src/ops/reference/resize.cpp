// Resize, ResizeBilinear, ResizeNearestNeighbor: [N, D1..Dn, C] -> [N, E1..En, C]
// with the output sizes taken from out[0] (facts §4.1). Every mode is
// separable: along each spatial axis, output position o reads a few input
// positions with weights (1 tap for nearest, 2 for linear, 4 for cubic), and
// the output is the tensor product of the per-axis taps. So each op only
// builds per-axis tap tables at prepare time; one kernel runs them all.
//
// Resize follows the ONNX Resize definitions its parameters mirror. The input
// coordinate of output position o, with scale = out_size / in_size:
//   HALF_PIXEL          (o + 0.5) / scale - 0.5
//   PYTORCH_HALF_PIXEL  as HALF_PIXEL, but 0 when out_size == 1
//   ALIGN_CORNERS       o * (in_size - 1) / (out_size - 1), 0 when out_size == 1
//   ASYMMETRIC          o / scale
// NEAREST rounds it by nearest_mode and clamps into [0, in_size-1]; LINEAR
// interpolates between floor and floor+1 with the coordinate clamped into the
// input (ONNX's edge padding); CUBIC uses the Keys kernel with A = cubic_coeff
// on floor-1 .. floor+2, clamping indices, or with exclude_outside dropping
// the taps outside the input and renormalizing the rest.
//
// ResizeBilinear is LINEAR with ALIGN_CORNERS / HALF_PIXEL / ASYMMETRIC for
// align_corners / half_pixel_centers / neither (TensorFlow's definition).
// ResizeNearestNeighbor is TensorFlow's: align_corners rounds
// o * (in-1)/(out-1) half away from zero, half_pixel_centers takes
// floor((o + 0.5) * in/out), neither takes floor(o * in/out); all clamp to in-1.
#include <algorithm>
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxSpatial = 3;  // rank 3..5: [N, D1..Dn, C], n <= 3

// Taps of one spatial axis: output position o reads index[o*taps + t] with
// weight[o*taps + t], t < taps.
struct AxisTaps {
  uint32_t taps = 1;
  std::vector<uint32_t> index;
  std::vector<float> weight;
};

class ResizeKernel final : public OpKernel {
 public:
  ResizeKernel(size_t N, size_t C, std::vector<uint32_t> in_sp, std::vector<uint32_t> out_sp,
               std::vector<AxisTaps> axes)
      : N_(N), C_(C), in_sp_(std::move(in_sp)), out_sp_(std::move(out_sp)), axes_(std::move(axes)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    const size_t S = axes_.size();
    // Element strides of the spatial axes in the input (channels innermost).
    size_t in_stride[kMaxSpatial];
    size_t s = C_;
    for (size_t k = S; k-- > 0;) {
      in_stride[k] = s;
      s *= in_sp_[k];
    }
    const size_t in_image = s;
    const size_t out_pixels = product(out_sp_, 0, S);
    uint32_t o[kMaxSpatial] = {};  // output spatial index
    for (size_t n = 0; n < N_; ++n) {
      const float* xn = x + n * in_image;
      for (size_t p = 0; p < out_pixels; ++p) {
        float* yp = y + (n * out_pixels + p) * C_;
        for (size_t c = 0; c < C_; ++c) yp[c] = 0.0f;
        // Every combination of one tap per axis.
        uint32_t t[kMaxSpatial] = {};
        for (;;) {
          float w = 1.0f;
          size_t off = 0;
          for (size_t k = 0; k < S; ++k) {
            const size_t j = size_t{o[k]} * axes_[k].taps + t[k];
            w *= axes_[k].weight[j];
            off += axes_[k].index[j] * in_stride[k];
          }
          if (w != 0.0f) {
            const float* xp = xn + off;
            for (size_t c = 0; c < C_; ++c) yp[c] += w * xp[c];
          }
          size_t k = S;
          while (k-- > 0 && ++t[k] == axes_[k].taps) t[k] = 0;
          if (k == SIZE_MAX) break;
        }
        for (size_t k = S; k-- > 0;) {
          if (++o[k] < out_sp_[k]) break;
          o[k] = 0;
        }
      }
    }
  }

 private:
  size_t N_, C_;
  std::vector<uint32_t> in_sp_, out_sp_;
  std::vector<AxisTaps> axes_;
};

// ---- Resize (ONNX-style) ----

constexpr uint32_t kHalfPixel = 0, kPytorchHalfPixel = 1, kAlignCorners = 2, kAsymmetric = 3;
constexpr uint32_t kNearest = 0, kLinear = 1, kCubic = 2;
constexpr uint32_t kRoundPreferFloor = 0, kRoundPreferCeil = 1, kFloor = 2, kCeil = 3;

double source_coord(uint32_t mode, uint32_t o, uint32_t in_size, uint32_t out_size) {
  const double scale = static_cast<double>(out_size) / in_size;
  switch (mode) {
    case kHalfPixel: return (o + 0.5) / scale - 0.5;
    case kPytorchHalfPixel: return out_size > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
    case kAlignCorners: return out_size > 1 ? static_cast<double>(o) * (in_size - 1) / (out_size - 1) : 0.0;
    default: return o / scale;  // kAsymmetric
  }
}

int64_t clamp_index(int64_t i, uint32_t in_size) { return std::clamp<int64_t>(i, 0, int64_t{in_size} - 1); }

double round_nearest(double x, uint32_t mode) {
  const double f = std::floor(x);
  switch (mode) {
    case kRoundPreferFloor: return x - f == 0.5 ? f : std::floor(x + 0.5);
    case kRoundPreferCeil: return std::floor(x + 0.5);
    case kFloor: return f;
    default: return std::ceil(x);  // kCeil
  }
}

// Keys cubic convolution weight at distance d (|d| < 2).
double cubic_weight(double d, double A) {
  d = std::fabs(d);
  if (d <= 1.0) return ((A + 2) * d - (A + 3)) * d * d + 1;
  if (d < 2.0) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
  return 0.0;
}

AxisTaps resize_axis(uint32_t in_size, uint32_t out_size, uint32_t transform, uint32_t interp, uint32_t nearest,
                     bool exclude_outside, double A) {
  AxisTaps a;
  a.taps = interp == kNearest ? 1 : interp == kLinear ? 2 : 4;
  a.index.resize(size_t{out_size} * a.taps);
  a.weight.resize(size_t{out_size} * a.taps);
  for (uint32_t o = 0; o < out_size; ++o) {
    const double x = source_coord(transform, o, in_size, out_size);
    uint32_t* idx = &a.index[size_t{o} * a.taps];
    float* w = &a.weight[size_t{o} * a.taps];
    if (interp == kNearest) {
      const double r = round_nearest(x, nearest);
      idx[0] = static_cast<uint32_t>(clamp_index(static_cast<int64_t>(std::clamp(r, -1.0, static_cast<double>(in_size))), in_size));
      w[0] = 1.0f;
    } else if (interp == kLinear) {
      const double xc = std::clamp(x, 0.0, static_cast<double>(in_size) - 1);
      const double f = std::floor(xc);
      idx[0] = static_cast<uint32_t>(f);
      idx[1] = static_cast<uint32_t>(clamp_index(static_cast<int64_t>(f) + 1, in_size));
      w[1] = static_cast<float>(xc - f);
      w[0] = static_cast<float>(1.0 - (xc - f));
    } else {
      const double f = std::floor(x);
      const double t = x - f;
      double ws[4], sum = 0.0;
      for (int k = 0; k < 4; ++k) {
        const int64_t i = static_cast<int64_t>(f) - 1 + k;
        ws[k] = cubic_weight(t - (k - 1), A);
        if (exclude_outside && (i < 0 || i >= in_size)) ws[k] = 0.0;
        sum += ws[k];
        idx[k] = static_cast<uint32_t>(clamp_index(i, in_size));
      }
      for (int k = 0; k < 4; ++k) w[k] = static_cast<float>(exclude_outside ? ws[k] / sum : ws[k]);
    }
  }
  return a;
}

// Shared shape checks: rank, N and C unchanged. Fills the spatial sizes.
// `above_max`: whether a rank above max_rank breaks the op definition or only
// this backend's limit.
Status check_shapes(const NodeDesc& node, size_t min_rank, size_t max_rank, StatusCode above_max,
                    std::vector<uint32_t>* in_sp, std::vector<uint32_t>* out_sp) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), min_rank, max_rank,
                            x.dims.size() < min_rank ? StatusCode::kInvalidArgument : above_max);
      !s.ok())
    return s;
  const size_t r = x.dims.size();
  if (y.dims.size() != r) return invalid(node, "out[0] rank is ", y.dims.size(), ", expected ", r, " as in[0]");
  if (y.dims[0] != x.dims[0]) return invalid(node, "out[0] dim 0 (batch) is ", y.dims[0], ", expected ", x.dims[0]);
  if (y.dims[r - 1] != x.dims[r - 1]) {
    return invalid(node, "out[0] dim ", r - 1, " (channels) is ", y.dims[r - 1], ", expected ", x.dims[r - 1]);
  }
  in_sp->assign(x.dims.begin() + 1, x.dims.end() - 1);
  out_sp->assign(y.dims.begin() + 1, y.dims.end() - 1);
  return Status::Ok();
}

Status prepare_resize(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"exclude_outside", "transformation_mode", "interpolation_mode", "nearest_mode",
                                     "cubic_coeff"});
      !s.ok())
    return s;
  bool exclude_outside = false;
  uint32_t transform = kHalfPixel, interp = kNearest, nearest = kRoundPreferFloor;
  float cubic_coeff = -0.75f;
  if (Status s = params.bool_scalar("exclude_outside", false, &exclude_outside); !s.ok()) return s;
  if (Status s = params.u32_scalar("transformation_mode", kHalfPixel, &transform); !s.ok()) return s;
  if (Status s = params.u32_scalar("interpolation_mode", kNearest, &interp); !s.ok()) return s;
  if (Status s = params.u32_scalar("nearest_mode", kRoundPreferFloor, &nearest); !s.ok()) return s;
  if (Status s = params.f32_scalar("cubic_coeff", -0.75f, &cubic_coeff); !s.ok()) return s;
  if (transform > kAsymmetric) {
    return invalid(node, "parameter 'transformation_mode' is ", transform,
                   ", expected 0 (HALF_PIXEL), 1 (PYTORCH_HALF_PIXEL), 2 (ALIGN_CORNERS) or 3 (ASYMMETRIC)");
  }
  if (interp > kCubic) {
    return invalid(node, "parameter 'interpolation_mode' is ", interp, ", expected 0 (NEAREST), 1 (LINEAR) or 2 (CUBIC)");
  }
  if (nearest > kCeil) {
    return invalid(node, "parameter 'nearest_mode' is ", nearest,
                   ", expected 0 (ROUND_PREFER_FLOOR), 1 (ROUND_PREFER_CEIL), 2 (FLOOR) or 3 (CEIL)");
  }
  std::vector<uint32_t> in_sp, out_sp;
  if (Status s = check_shapes(node, 3, 2 + kMaxSpatial, StatusCode::kUnsupported, &in_sp, &out_sp); !s.ok()) return s;
  if (kernel) {
    std::vector<AxisTaps> axes;
    for (size_t k = 0; k < in_sp.size(); ++k) {
      axes.push_back(resize_axis(in_sp[k], out_sp[k], transform, interp, nearest, exclude_outside, cubic_coeff));
    }
    const TensorDesc& x = node.inputs[0];
    *kernel = std::make_unique<ResizeKernel>(x.dims[0], x.dims.back(), in_sp, out_sp, std::move(axes));
  }
  return Status::Ok();
}

// ---- ResizeBilinear / ResizeNearestNeighbor (TensorFlow-style) ----

Status read_tf_flags(const NodeDesc& node, bool* align_corners, bool* half_pixel) {
  ParamReader params(node);
  if (Status s = params.check_names({"align_corners", "half_pixel_centers"}); !s.ok()) return s;
  if (Status s = params.bool_scalar("align_corners", false, align_corners); !s.ok()) return s;
  if (Status s = params.bool_scalar("half_pixel_centers", false, half_pixel); !s.ok()) return s;
  if (*align_corners && *half_pixel) {
    return invalid(node, "parameters 'align_corners' and 'half_pixel_centers' are both 1, at most one may be set");
  }
  return Status::Ok();
}

AxisTaps nearest_tf_axis(uint32_t in_size, uint32_t out_size, bool align_corners, bool half_pixel) {
  AxisTaps a;
  a.index.resize(out_size);
  a.weight.assign(out_size, 1.0f);
  for (uint32_t o = 0; o < out_size; ++o) {
    double i;
    if (align_corners) {
      i = out_size > 1 ? std::round(static_cast<double>(o) * (in_size - 1) / (out_size - 1)) : 0.0;
    } else if (half_pixel) {
      i = std::floor((o + 0.5) * in_size / out_size);
    } else {
      i = std::floor(static_cast<double>(o) * in_size / out_size);
    }
    a.index[o] = static_cast<uint32_t>(std::min(i, static_cast<double>(in_size) - 1));
  }
  return a;
}

template <bool kBilinear>
Status prepare_tf(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  bool align_corners = false, half_pixel = false;
  if (Status s = read_tf_flags(node, &align_corners, &half_pixel); !s.ok()) return s;
  std::vector<uint32_t> in_sp, out_sp;
  if (Status s = check_shapes(node, 4, 4, StatusCode::kInvalidArgument, &in_sp, &out_sp); !s.ok()) return s;
  if (kernel) {
    std::vector<AxisTaps> axes;
    for (size_t k = 0; k < 2; ++k) {
      if (kBilinear) {
        const uint32_t transform = align_corners ? kAlignCorners : half_pixel ? kHalfPixel : kAsymmetric;
        axes.push_back(resize_axis(in_sp[k], out_sp[k], transform, kLinear, kFloor, false, 0.0));
      } else {
        axes.push_back(nearest_tf_axis(in_sp[k], out_sp[k], align_corners, half_pixel));
      }
    }
    const TensorDesc& x = node.inputs[0];
    *kernel = std::make_unique<ResizeKernel>(x.dims[0], x.dims[3], in_sp, out_sp, std::move(axes));
  }
  return Status::Ok();
}

}  // namespace

OpDef resize_def() { return {"Resize", &guarded_prepare<prepare_resize>, op_flags::kAdaptTypes}; }
OpDef resize_bilinear_def() {
  return {"ResizeBilinear", &guarded_prepare<prepare_tf<true>>, op_flags::kAdaptTypes};
}
OpDef resize_nearest_neighbor_def() {
  return {"ResizeNearestNeighbor", &guarded_prepare<prepare_tf<false>>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
