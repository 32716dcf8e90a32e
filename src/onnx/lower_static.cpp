// ONNX ops whose output depends only on static shapes and constant inputs:
// computed at import into a STATIC tensor, which a Reshape copies to the
// output (QNN has no op for them, and none is needed at run time).
//
//   EyeLike(x)                        ones where j - i == k, over x's static [rows, cols];
//                                     dtype attribute or x's type
//   HannWindow / HammingWindow /      w[n] = a0 - a1 cos(2 pi n / M) + a2 cos(4 pi n / M),
//   BlackmanWindow(size)              n < size, M = size (periodic, the default) or size - 1;
//                                     (a0, a1, a2) = (0.5, 0.5, 0), (25/46, 21/46, 0),
//                                     (0.42, 0.5, 0.08) as in ONNX's reference; size must be
//                                     constant (the output's shape depends on it)
#include <cmath>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

void emit_constant_output(const onnx::NodeProto& node, LoweringContext& ctx, const Tensor& value) {
  ctx.add_node(QNN_OP_RESHAPE, {ctx.static_from(node.output(0) + "_value", value)}, {ctx.output(node.output(0))});
}

std::string check_eye_like(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->dims.size() != 2) return "input must be 2-D, got rank " + std::to_string(v->dims.size());
  return "";
}

void lower_eye_like(const onnx::NodeProto& node, LoweringContext& ctx) {
  const ValueInfo& y = ctx.info(node.output(0));
  const int64_t rows = y.dims[0], cols = y.dims[1], k = attr_int(node, "k", 0);
  Tensor eye = Tensor::zeros(y.elem_type, {rows, cols});
  for (int64_t i = 0; i < rows; ++i) {
    if (i + k >= 0 && i + k < cols) eye.set(static_cast<size_t>(i * cols + i + k), 1.0);
  }
  emit_constant_output(node, ctx, eye);
}

std::string check_window(const onnx::NodeProto& node, const Model& model) {
  if (std::string why = check_constant_inputs(node, model, {0}); !why.empty()) {
    return why + ": the window's size is its output's shape";
  }
  return "";
}

void lower_window(const onnx::NodeProto& node, LoweringContext& ctx) {
  const Tensor* size_t_ = ctx.constant(node.input(0));
  const int64_t size = size_t_->get_int(0);
  const bool periodic = attr_int(node, "periodic", 1) != 0;
  const std::string& t = node.op_type();
  double a0 = 0.5, a1 = 0.5, a2 = 0.0;
  if (t == "HammingWindow") {
    a0 = 25.0 / 46.0;
    a1 = 1.0 - a0;
  } else if (t == "BlackmanWindow") {
    a0 = 0.42;
    a2 = 0.08;
  }
  const ValueInfo& y = ctx.info(node.output(0));
  Tensor w = Tensor::zeros(y.elem_type, {size});
  const double m = static_cast<double>(periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    const double x = 2.0 * M_PI * static_cast<double>(n) / m;
    w.set(static_cast<size_t>(n), a0 - a1 * std::cos(x) + a2 * std::cos(2.0 * x));
  }
  emit_constant_output(node, ctx, w);
}

}  // namespace

std::vector<OpLowering> static_lowerings() {
  return {
      {"EyeLike", check_eye_like, lower_eye_like},
      {"HannWindow", check_window, lower_window},
      {"HammingWindow", check_window, lower_window},
      {"BlackmanWindow", check_window, lower_window},
  };
}

}  // namespace openhtp::onnx_import
