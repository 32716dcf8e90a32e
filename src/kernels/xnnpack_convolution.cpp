// Conv2d and DepthWiseConv2d through XNNPACK's integer and fp16 kernels:
//   qu8: UFIXED_POINT_8 activations, UFIXED_POINT_8 per-tensor weights (any
//        zero point), bit-exact integer arithmetic with fp32 requantization;
//   qc8: SFIXED_POINT_8 symmetric weights, per-channel or per-tensor, with
//        int8 or uint8 activations (uint8 is flipped to int8, see
//        xnn::flip_sign_bits);
//   f16: FLOAT_16 activations, weights and bias; a fused clamp (htp/fusion.h)
//        as the output min/max.
// fp32 convolutions go to oneDNN (onednn_convolution.cpp), which is faster
// than this XNNPACK build at fp32.
//
// Weights are transposed to OHWI and packed by XNNPACK at prepare; the
// kernel keeps no pointer to the node's weight buffer.
#include "kernels/xnnpack_convolution.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/filter_layout.h"
#include "kernels/quant_params.h"
#include "kernels/xnnpack_runtime.h"
#include "ops/parsed_params.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;
using ops::ConvGeometry;

enum class Kind { kQu8, kQc8, kF16 };

class ConvKernel final : public ops::OpKernel {
 public:
  ConvKernel(Operator op, Kind kind, const ConvGeometry& g, size_t elem_bytes, bool flip_in, bool flip_out,
             pthreadpool_t pool)
      : op_(std::move(op)), kind_(kind), g_(g), flip_in_(flip_in), flip_out_(flip_out), pool_(pool),
        in_bytes_(size_t{g.N} * g.H * g.W * g.Cin * elem_bytes),
        out_bytes_(size_t{g.N} * g.Ho * g.Wo * g.Cout * elem_bytes) {}

  // The first setup sizes XNNPACK's indirection buffers for this shape; later
  // setups with the same shape only re-point them, so run() allocates nothing.
  // A flipped input is always copied (into the workspace, with XNNPACK's
  // padding after it); any other is read in place unless it is not planned
  // and ends near a page end (xnnpack_runtime.h).
  bool setup_once(bool x_planned) {
    input_.prepare(x_planned, in_bytes_);
    workspace_ = ops::Workspace(flip_in_ ? ops::align_workspace(in_bytes_ + kReadSlack) : input_.workspace_bytes());
    return setup(setup_placeholder(), const_cast<void*>(setup_placeholder())) == xnn_status_success;
  }
  size_t workspace_bytes() const override { return workspace_.bytes(); }
  void set_workspace(void* memory) override { workspace_.bind(memory); }
  size_t read_slack_bytes() const override { return flip_in_ ? 0 : kReadSlack; }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const void* x;
    if (flip_in_) {
      uint8_t* flipped = workspace_.data();
      flip_sign_bits(static_cast<const uint8_t*>(in[0]), flipped, in_bytes_);
      x = flipped;
    } else {
      x = input_.readable(in[0], workspace_.data());
    }
    setup(x, out[0]);
    xnn_run_operator(op_.get(), pool_);
    if (flip_out_) {
      uint8_t* y = static_cast<uint8_t*>(out[0]);
      flip_sign_bits(y, y, out_bytes_);
    }
  }

 private:
  xnn_status setup(const void* x, void* y) {
    switch (kind_) {
      case Kind::kQu8:
        return xnn_setup_convolution2d_nhwc_qu8(op_.get(), g_.N, g_.H, g_.W, static_cast<const uint8_t*>(x),
                                                static_cast<uint8_t*>(y), pool_);
      case Kind::kQc8:
        return xnn_setup_convolution2d_nhwc_qc8(op_.get(), g_.N, g_.H, g_.W, static_cast<const int8_t*>(x),
                                                static_cast<int8_t*>(y), pool_);
      case Kind::kF16:
        return xnn_setup_convolution2d_nhwc_f16(op_.get(), g_.N, g_.H, g_.W, x, y, pool_);
    }
    return xnn_status_invalid_parameter;
  }

  Operator op_;
  Kind kind_;
  ConvGeometry g_;
  bool flip_in_, flip_out_;
  pthreadpool_t pool_;
  size_t in_bytes_, out_bytes_;
  ReadableInput input_;
  ops::Workspace workspace_;
};

std::unique_ptr<ops::OpKernel> finish(xnn_status created, xnn_operator_t op, Kind kind, const ConvGeometry& g,
                                      size_t elem_bytes, bool flip_in, bool flip_out, bool x_planned,
                                      pthreadpool_t pool) {
  if (created != xnn_status_success) return nullptr;
  auto k = std::make_unique<ConvKernel>(Operator(op), kind, g, elem_bytes, flip_in, flip_out, pool);
  if (!k->setup_once(x_planned)) return nullptr;
  return k;
}

bool prepare_qu8(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& w = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  const auto x_zp = u8_zero_point(x), w_zp = u8_zero_point(w), y_zp = u8_zero_point(y);
  if (!x_zp || !w_zp || !y_zp) return false;
  const std::vector<float> w_scales(g.Cout, w.quant.scale);
  std::vector<int32_t> bias;
  if (!int32_bias(node, x.quant.scale, w_scales, y.quant.scale, &bias)) return false;
  int32_t y_lo, y_hi;
  if (!output_clamp(node, 0, 255, &y_lo, &y_hi)) return false;
  const std::vector<uint8_t> ohwi = hwio_to_ohwi(static_cast<const uint8_t*>(w.static_data), g);
  xnn_operator_t op = nullptr;
  const xnn_status st = xnn_create_convolution2d_nhwc_qu8(
      g.pt, g.pr, g.pb, g.pl, g.KH, g.KW, g.sh, g.sw, g.dh, g.dw, g.group, g.cin_g(), g.cout_g(), g.Cin, g.Cout,
      *x_zp, x.quant.scale, *w_zp, w.quant.scale, ohwi.data(), bias.data(), *y_zp, y.quant.scale,
      static_cast<uint8_t>(y_lo), static_cast<uint8_t>(y_hi), kRunFlags, &op);
  *kernel = finish(st, op, Kind::kQu8, g, 1, false, false, x.planned, pool_for(node, uint64_t{g.N} * g.Ho * g.Wo * g.Cout * g.KH * g.KW * g.cin_g()));
  return *kernel != nullptr;
}

bool prepare_qc8(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& w = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  const auto w_scales = symmetric_s8_scales(w, 3, g.Cout);
  if (!w_scales) return false;
  Qc8ConvSpec spec{g, nullptr, *w_scales, nullptr, 0, 0, x.quant.scale, y.quant.scale, false, false};
  if (!set_qc8_zero_points(x, y, &spec)) return false;
  spec.x_planned = x.planned;
  if (!output_clamp(node, spec.u8_out ? 0 : -128, spec.u8_out ? 255 : 127, &spec.out_lo, &spec.out_hi)) return false;
  std::vector<int32_t> bias;
  if (!int32_bias(node, x.quant.scale, *w_scales, y.quant.scale, &bias)) return false;
  const std::vector<int8_t> ohwi = hwio_to_ohwi(static_cast<const int8_t*>(w.static_data), g);
  spec.ohwi = ohwi.data();
  spec.bias = bias.data();
  *kernel = make_qc8_conv(spec, pool_for(node, uint64_t{g.N} * g.Ho * g.Wo * g.Cout * g.KH * g.KW * g.cin_g()));
  return *kernel != nullptr;
}

bool prepare_f16(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& w = node.inputs[1];
  if (w.dtype != dtype::kFloat16 || node.outputs[0].dtype != dtype::kFloat16) return false;
  // A fused clamp (htp/fusion.h, FLOAT_16) is the output min/max; nothing else.
  float lo = -INFINITY, hi = INFINITY;
  if (node.has_epilogue()) {
    const ops::Epilogue& e = *node.epilogue;
    if (e.residual != nullptr || e.swish) return false;
    lo = e.lo;
    hi = e.hi;
  }
  const void* bias = nullptr;
  if (g.has_bias) {
    const ops::TensorDesc& b = node.inputs[2];
    if (b.dtype != dtype::kFloat16 || b.static_data == nullptr) return false;
    bias = b.static_data;
  }
  const std::vector<uint16_t> ohwi = hwio_to_ohwi(static_cast<const uint16_t*>(w.static_data), g);
  xnn_operator_t op = nullptr;
  const xnn_status st = xnn_create_convolution2d_nhwc_f16(
      g.pt, g.pr, g.pb, g.pl, g.KH, g.KW, g.sh, g.sw, g.dh, g.dw, g.group, g.cin_g(), g.cout_g(), g.Cin, g.Cout,
      ohwi.data(), bias, lo, hi, kRunFlags, &op);
  *kernel = finish(st, op, Kind::kF16, g, 2, false, false, node.inputs[0].planned, pool_for(node, uint64_t{g.N} * g.Ho * g.Wo * g.Cout * g.KH * g.KW * g.cin_g()));
  return *kernel != nullptr;
}

}  // namespace

bool output_clamp(const ops::NodeDesc& node, int32_t qmin, int32_t qmax, int32_t* lo, int32_t* hi) {
  *lo = qmin;
  *hi = qmax;
  if (!node.has_epilogue()) return true;
  const ops::Epilogue& e = *node.epilogue;
  const ops::TensorDesc& y = node.outputs[0];
  if (e.residual != nullptr || e.swish || !y.quant.present || y.quant.per_channel() || !(y.quant.scale > 0.0f)) return false;
  // real = (q + offset) * scale: the code of a bound, which must be a whole
  // code unless it rounds to an end of the codes or beyond (then the clamp
  // changes nothing that saturation does not). Rounded as the quantizer
  // rounds (half to even), so this agrees with htp/fusion.cpp's rules.
  auto code = [&](float real, int32_t* q) {
    const double v = double{real} / y.quant.scale - y.quant.offset;
    const double r = std::nearbyint(v);
    if (r <= qmin) *q = qmin;
    else if (r >= qmax) *q = qmax;
    else if (std::fabs(v - r) <= 1e-3) *q = static_cast<int32_t>(r);
    else return false;
    return true;
  };
  return code(e.lo, lo) && code(e.hi, hi);
}

bool set_qc8_zero_points(const ops::TensorDesc& x, const ops::TensorDesc& y, Qc8ConvSpec* spec) {
  if (auto zp = u8_zero_point(x)) {
    spec->in_zero_point = *zp;
    spec->u8_in = true;
  } else if (auto zp8 = s8_zero_point(x)) {
    spec->in_zero_point = *zp8;
  } else {
    return false;
  }
  if (auto zp = u8_zero_point(y)) {
    spec->out_zero_point = *zp;
    spec->u8_out = true;
  } else if (auto zp8 = s8_zero_point(y)) {
    spec->out_zero_point = *zp8;
  } else {
    return false;
  }
  return true;
}

std::unique_ptr<ops::OpKernel> make_qc8_conv(const Qc8ConvSpec& s, pthreadpool* pool) {
  // XNNPACK sees int8: a uint8 zero point z becomes z - 128 after the flip.
  const int32_t in_zp = s.u8_in ? s.in_zero_point - 128 : s.in_zero_point;
  const int32_t out_zp = s.u8_out ? s.out_zero_point - 128 : s.out_zero_point;
  const ConvGeometry& g = s.g;
  const int32_t flip = s.u8_out ? 128 : 0;
  const int32_t lo = std::max(s.out_lo - flip, -128), hi = std::min(s.out_hi - flip, 127);
  xnn_operator_t op = nullptr;
  const xnn_status st = xnn_create_convolution2d_nhwc_qc8(
      g.pt, g.pr, g.pb, g.pl, g.KH, g.KW, g.sh, g.sw, g.dh, g.dw, g.group, g.cin_g(), g.cout_g(), g.Cin, g.Cout,
      static_cast<int8_t>(in_zp), s.in_scale, s.w_scales.data(), s.ohwi, s.bias, static_cast<int8_t>(out_zp),
      s.out_scale, static_cast<int8_t>(lo), static_cast<int8_t>(hi), kRunFlags, &op);
  return finish(st, op, Kind::kQc8, g, 1, s.u8_in, s.u8_out, s.x_planned, pool);
}

bool prepare_conv2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (!ready()) return false;
  const ConvGeometry* parsed = ops::parsed_as<ConvGeometry>(node);
  if (parsed == nullptr) return false;
  const ConvGeometry& g = *parsed;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& w = node.inputs[1];
  if (w.static_data == nullptr) return false;  // weights are packed once; dynamic ones are not
  if (x.dtype == dtype::kFloat16) return prepare_f16(node, g, kernel);
  if (w.dtype == dtype::kUfixed8) return prepare_qu8(node, g, kernel);
  if (w.dtype == dtype::kSfixed8) return prepare_qc8(node, g, kernel);
  return false;
}

}  // namespace openhtp::kernels::xnn
