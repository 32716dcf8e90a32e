// Stft: the short-time Fourier transform, as ONNX STFT-17 with QNN's
// parameters.
//
//   in[0]  signal [batch, length] or [batch, length, 1] (real) or
//          [batch, length, 2] (complex: re, im)
//   in[1]  window [frame_length], optional (default all 1: rectangular)
//   param  frame_step u32 M (>= 1); frame_length u32 (default the window's
//          length; mandatory without a window); onesided bool, 1 (a complex
//          signal needs 0)
//   out[0] [batch, frames, bins, 2] (re, im), frames = (length -
//          frame_length) / frame_step + 1, bins = frame_length/2 + 1 when
//          onesided, else frame_length
//
//   out[b, f, k] = sum_n x[b, f*frame_step + n] * w[n] * exp(-2 pi i k n / frame_length)
//
// computed directly (O(frame_length * bins) per frame) from a cos/sin table
// built at prepare, accumulated in double.
#include <cmath>
#include <numbers>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct StftGeometry {
  size_t batch = 0, length = 0, frames = 0, bins = 0, frame_length = 0, step = 0;
  bool complex = false, window = false;
};

class StftKernel final : public OpKernel {
 public:
  explicit StftKernel(const StftGeometry& g) : g_(g), cos_(g.frame_length * g.bins), sin_(g.frame_length * g.bins) {
    for (size_t k = 0; k < g.bins; ++k)
      for (size_t n = 0; n < g.frame_length; ++n) {
        // k*n mod L keeps the angle small, so the table is exact to double rounding.
        const double a = 2.0 * std::numbers::pi * double((k * n) % g.frame_length) / double(g.frame_length);
        cos_[k * g.frame_length + n] = std::cos(a);
        sin_[k * g.frame_length + n] = std::sin(a);
      }
  }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = g_.window ? static_cast<const float*>(in[1]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t L = g_.frame_length, ch = g_.complex ? 2 : 1;
    for (size_t b = 0; b < g_.batch; ++b)
      for (size_t f = 0; f < g_.frames; ++f) {
        const float* frame = x + (b * g_.length + f * g_.step) * ch;
        for (size_t k = 0; k < g_.bins; ++k) {
          double re = 0, im = 0;
          for (size_t n = 0; n < L; ++n) {
            const double wn = w ? double{w[n]} : 1.0;
            const double xr = frame[n * ch] * wn, xi = g_.complex ? frame[n * ch + 1] * wn : 0.0;
            const double c = cos_[k * L + n], s = sin_[k * L + n];
            // (xr + i xi) (c - i s)
            re += xr * c + xi * s;
            im += xi * c - xr * s;
          }
          float* o = y + ((b * g_.frames + f) * g_.bins + k) * 2;
          o[0] = static_cast<float>(re);
          o[1] = static_cast<float>(im);
        }
      }
  }

 private:
  StftGeometry g_;
  std::vector<double> cos_, sin_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 2, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"signal", "window"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"frame_step", "frame_length", "onesided"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  StftGeometry g;
  g.window = has_input(node, 1);
  if (Status s = check_rank(node, x, in_label(0, "signal"), 2, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (x.dims.size() == 3 && x.dims[2] != 1 && x.dims[2] != 2) {
    return invalid(node, "in[0] (signal) dim 2 is ", x.dims[2], ", expected 1 (real) or 2 (complex)");
  }
  g.complex = x.dims.size() == 3 && x.dims[2] == 2;
  g.batch = x.dims[0];
  g.length = x.dims[1];
  uint32_t step = 0, frame_length = 0;
  bool onesided = true;
  if (Status s = params.u32_scalar("frame_step", std::nullopt, &step); !s.ok()) return s;
  if (step == 0) return invalid(node, "parameter 'frame_step' is 0, expected >= 1");
  if (g.window) {
    const TensorDesc& w = node.inputs[1];
    if (Status s = check_rank(node, w, in_label(1, "window"), 1, 1, StatusCode::kInvalidArgument); !s.ok()) return s;
    if (Status s = params.u32_scalar("frame_length", w.dims[0], &frame_length); !s.ok()) return s;
    if (frame_length != w.dims[0]) {
      return invalid(node, "parameter 'frame_length' is ", frame_length, ", expected the window's length ", w.dims[0]);
    }
  } else if (Status s = params.u32_scalar("frame_length", std::nullopt, &frame_length); !s.ok()) {
    return s;
  }
  if (frame_length == 0 || frame_length > g.length) {
    return invalid(node, "parameter 'frame_length' is ", frame_length, ", expected 1 to the signal length ", g.length);
  }
  if (Status s = params.bool_scalar("onesided", true, &onesided); !s.ok()) return s;
  if (onesided && g.complex) {
    return invalid(node, "parameter 'onesided' is 1 with a complex signal, expected 0 (ONNX STFT)");
  }
  g.step = step;
  g.frame_length = frame_length;
  g.frames = (g.length - frame_length) / step + 1;
  g.bins = onesided ? frame_length / 2 + 1 : frame_length;
  const uint32_t out_dims[] = {static_cast<uint32_t>(g.batch), static_cast<uint32_t>(g.frames),
                               static_cast<uint32_t>(g.bins), 2};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (uint64_t{g.frame_length} * g.bins > (uint64_t{1} << 26)) {
    return unsupported(node, "frame_length ", g.frame_length, " needs a ", g.frame_length, "x", g.bins,
                       " DFT table, more than 2^26 entries");
  }
  if (kernel) *kernel = std::make_unique<StftKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef stft_def() { return {"Stft", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
