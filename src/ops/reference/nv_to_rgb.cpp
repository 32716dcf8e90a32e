// Nv12ToRgb / Nv21ToRgb: a semi-planar YUV 4:2:0 image to interleaved RGB.
//
//   in[0]  UINT_8, [N, ...] with H*W*3/2 bytes per image: the Y plane (H rows
//          of W), then H/2 rows of W/2 interleaved chroma pairs, U,V (NV12)
//          or V,U (NV21). Any layout of those bytes after dim 0 is accepted
//          ([N, H*3/2, W], [N, H*3/2, W, 1], [N, H*W*3/2]).
//   out[0] UINT_8 [N, H, W, 3]; H and W even.
//   param  output_order u32, 0 (RGB 0, BGR 1).
//
// Colour equations (QNN's documentation gives none; openhtp's choice): BT.601
// full range, as JPEG/JFIF (ITU-T T.871), chroma shared by each 2x2 block:
//   R = Y + 1.402 (V-128)
//   G = Y - 0.344136 (U-128) - 0.714136 (V-128)
//   B = Y + 1.772 (U-128)
// each rounded half away from zero and clamped to [0, 255].
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class NvKernel final : public OpKernel {
 public:
  NvKernel(uint32_t n, uint32_t h, uint32_t w, bool vu, bool bgr) : n_(n), h_(h), w_(w), vu_(vu), bgr_(bgr) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const uint8_t* src = static_cast<const uint8_t*>(in[0]);
    uint8_t* dst = static_cast<uint8_t*>(out[0]);
    const size_t plane = size_t{h_} * w_, image = plane * 3 / 2;
    for (uint32_t b = 0; b < n_; ++b) {
      const uint8_t* y = src + b * image;
      const uint8_t* uv = y + plane;
      uint8_t* o = dst + b * plane * 3;
      for (uint32_t r = 0; r < h_; ++r) {
        for (uint32_t c = 0; c < w_; ++c) {
          const uint8_t* pair = uv + (r / 2) * w_ + (c / 2) * 2;
          const double Y = y[size_t{r} * w_ + c];
          const double U = static_cast<double>(pair[vu_ ? 1 : 0]) - 128.0, V = static_cast<double>(pair[vu_ ? 0 : 1]) - 128.0;
          const uint8_t R = to_u8(Y + 1.402 * V), G = to_u8(Y - 0.344136 * U - 0.714136 * V), B = to_u8(Y + 1.772 * U);
          uint8_t* px = o + (size_t{r} * w_ + c) * 3;
          px[0] = bgr_ ? B : R;
          px[1] = G;
          px[2] = bgr_ ? R : B;
        }
      }
    }
  }

 private:
  static uint8_t to_u8(double v) {
    const double r = std::round(v);
    return static_cast<uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
  }
  uint32_t n_, h_, w_;
  bool vu_, bgr_;
};

template <bool kVu>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"output_order"}); !s.ok()) return s;
  uint32_t order = 0;
  if (Status s = params.u32_scalar("output_order", 0u, &order); !s.ok()) return s;
  if (order > 1) return invalid(node, "parameter 'output_order' is ", order, ", expected RGB 0 or BGR 1");
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (x.dtype != dtype::kUint8) {
    return unsupported(node, "in[0] data type is ", dtype::name(x.dtype), ", only UINT_8 is supported");
  }
  if (y.dtype != dtype::kUint8) {
    return unsupported(node, "out[0] data type is ", dtype::name(y.dtype), ", only UINT_8 is supported");
  }
  if (Status s = check_rank(node, y, out_label(0), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (y.dims[3] != 3) return invalid(node, "out[0] dim 3 is ", y.dims[3], ", expected 3 (channels)");
  if (y.dims[1] % 2 != 0 || y.dims[2] % 2 != 0) {
    return invalid(node, "out[0] height x width is ", y.dims[1], "x", y.dims[2], ", expected both even (4:2:0)");
  }
  if (x.dims.size() < 2 || x.dims[0] != y.dims[0]) {
    return invalid(node, "in[0] dims are ", dims_str(x.dims), ", expected [", y.dims[0], ", ...] (batch first)");
  }
  const uint64_t per_image = x.num_elements() / x.dims[0];
  const uint64_t want = uint64_t{y.dims[1]} * y.dims[2] * 3 / 2;
  if (per_image != want) {
    return invalid(node, "in[0] holds ", per_image, " bytes per image, expected H*W*3/2 = ", want, " for out[0] ",
                   dims_str(y.dims));
  }
  if (kernel) *kernel = std::make_unique<NvKernel>(y.dims[0], y.dims[1], y.dims[2], kVu, order == 1);
  return Status::Ok();
}

}  // namespace

OpDef nv12_to_rgb_def() { return {"Nv12ToRgb", &guarded_prepare<prepare<false>>}; }
OpDef nv21_to_rgb_def() { return {"Nv21ToRgb", &guarded_prepare<prepare<true>>}; }

}  // namespace openhtp::ops::detail
