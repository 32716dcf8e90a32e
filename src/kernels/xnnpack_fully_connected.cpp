// FullyConnected through XNNPACK:
//   qu8: UFIXED_POINT_8 input/output, UFIXED_POINT_8 per-tensor weights;
//   qc8: SFIXED_POINT_8 symmetric weights (per-channel along axis 0, the
//        output dim, or per-tensor). XNNPACK 2022 has no per-channel FC, so
//        this is a 1x1 qc8 convolution over a batch x 1 x 1 image: its OHWI
//        filter [m][1][1][n] is the FC weights [m, n] as they are.
//   f32 (prepare_fully_connected_f32): kept for kernels_bench's comparison
//        only; fp32 FC is registered from oneDNN (onednn_matmul.cpp).
// Weights are packed at prepare; the kernel keeps no pointer to them.
#include <cmath>
#include <vector>

#include "kernels/quant_params.h"
#include "kernels/xnnpack_convolution.h"
#include "kernels/xnnpack_one_input_kernel.h"
#include "kernels/xnnpack_paths.h"
#include "kernels/xnnpack_runtime.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;

class FcKernel final : public OneInputKernel {
 public:
  FcKernel(Operator op, bool is_float, size_t batch, size_t in_bytes, pthreadpool_t pool)
      : OneInputKernel(std::move(op), in_bytes, pool), float_(is_float), batch_(batch) {}

 private:
  // Only records the pointers (no indirection buffer): cheap per run.
  xnn_status setup(const void* x, void* y) override {
    if (float_) {
      return xnn_setup_fully_connected_nc_f32(op_.get(), batch_, static_cast<const float*>(x), static_cast<float*>(y),
                                              pool_);
    }
    return xnn_setup_fully_connected_nc_qu8(op_.get(), batch_, static_cast<const uint8_t*>(x),
                                            static_cast<uint8_t*>(y), pool_);
  }

  bool float_;
  size_t batch_;
};

struct FcShape {
  uint32_t batch, n, m;
};

bool read_shape(const ops::NodeDesc& node, FcShape* s) {
  if (node.inputs.size() < 2 || node.outputs.size() != 1) return false;
  const ops::TensorDesc& w = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  if (w.dims.size() != 2 || y.dims.size() != 2 || w.static_data == nullptr) return false;
  *s = FcShape{y.dims[0], w.dims[1], w.dims[0]};
  return true;
}

bool prepare_qu8(const ops::NodeDesc& node, const FcShape& s, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& w = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  const auto x_zp = u8_zero_point(x), w_zp = u8_zero_point(w), y_zp = u8_zero_point(y);
  if (!x_zp || !w_zp || !y_zp) return false;
  const std::vector<float> w_scales(s.m, w.quant.scale);
  std::vector<int32_t> bias;
  if (!int32_bias(node, x.quant.scale, w_scales, y.quant.scale, &bias)) return false;
  int32_t y_lo, y_hi;
  if (!output_clamp(node, 0, 255, &y_lo, &y_hi)) return false;
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_qu8(s.n, s.m, s.n, s.m, *x_zp, x.quant.scale, *w_zp, w.quant.scale,
                                        static_cast<const uint8_t*>(w.static_data), bias.data(), *y_zp,
                                        y.quant.scale, static_cast<uint8_t>(y_lo), static_cast<uint8_t>(y_hi), kRunFlags,
                                        &op) != xnn_status_success) {
    return false;
  }
  auto k = std::make_unique<FcKernel>(Operator(op), false, s.batch, size_t{s.batch} * s.n,
                                      pool_for(node, uint64_t{s.batch} * s.n * s.m));
  if (!k->setup_once(node.inputs[0].planned)) return false;
  *kernel = std::move(k);
  return true;
}

bool prepare_qc8(const ops::NodeDesc& node, const FcShape& s, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& w = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  const auto w_scales = symmetric_s8_scales(w, 0, s.m);
  if (!w_scales) return false;
  // A batch x 1 x 1 image through a 1x1 filter, no padding, one group.
  const ops::ConvGeometry g{.N = s.batch, .H = 1, .W = 1, .Cin = s.n, .KH = 1, .KW = 1, .Cout = s.m, .Ho = 1, .Wo = 1};
  Qc8ConvSpec spec{g, static_cast<const int8_t*>(w.static_data), *w_scales, nullptr, 0, 0,
                   x.quant.scale, y.quant.scale, false, false};
  if (!set_qc8_zero_points(x, y, &spec)) return false;
  spec.x_planned = x.planned;
  if (!output_clamp(node, spec.u8_out ? 0 : -128, spec.u8_out ? 255 : 127, &spec.out_lo, &spec.out_hi)) return false;
  std::vector<int32_t> bias;
  if (!int32_bias(node, x.quant.scale, *w_scales, y.quant.scale, &bias)) return false;
  spec.bias = bias.data();
  *kernel = make_qc8_conv(spec, pool_for(node, uint64_t{s.batch} * s.n * s.m));
  return *kernel != nullptr;
}

}  // namespace

bool prepare_fully_connected(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (!ready()) return false;
  FcShape s;
  if (!read_shape(node, &s)) return false;
  const uint32_t wt = node.inputs[1].dtype;
  if (wt == dtype::kUfixed8) return prepare_qu8(node, s, kernel);
  if (wt == dtype::kSfixed8) return prepare_qc8(node, s, kernel);
  return false;
}

bool prepare_fully_connected_f32(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (!ready()) return false;
  FcShape s;
  if (!read_shape(node, &s) || node.inputs[0].dtype != dtype::kFloat32 || node.inputs[1].dtype != dtype::kFloat32)
    return false;
  if (node.has_epilogue()) return false;  // kernels_bench's comparison only: no epilogue
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2].present;
  if (has_bias && (node.inputs[2].static_data == nullptr || node.inputs[2].dtype != dtype::kFloat32)) return false;
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_f32(s.n, s.m, s.n, s.m, static_cast<const float*>(node.inputs[1].static_data),
                                        has_bias ? static_cast<const float*>(node.inputs[2].static_data) : nullptr,
                                        -INFINITY, INFINITY, kRunFlags, &op) != xnn_status_success) {
    return false;
  }
  auto k = std::make_unique<FcKernel>(Operator(op), true, s.batch, size_t{s.batch} * s.n * sizeof(float),
                                      pool_for(node, uint64_t{s.batch} * s.n * s.m));
  if (!k->setup_once(node.inputs[0].planned)) return false;
  *kernel = std::move(k);
  return true;
}

}  // namespace openhtp::kernels::xnn
