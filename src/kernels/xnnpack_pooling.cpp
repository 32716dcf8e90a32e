// PoolMax2d and PoolAvg2d through XNNPACK, FLOAT_32 and UFIXED_POINT_8:
//   max, f32: any padding / CEIL rounding (the windows CEIL adds are more
//        bottom/right padding, which max pooling never reads). XNNPACK's max
//        instructions drop or mangle a NaN (a window {NaN, 1, 2, 3} gave
//        +inf), so an input holding a NaN is pooled by the reference;
//   max, u8:  the same, when input and output share one encoding (then max
//        commutes with dequantization, so the result is exact);
//   avg, f32: padding only with count_pad_for_edges = 0 (XNNPACK divides by
//        the taps inside the input, as the reference then does);
//   avg, qu8: no padding at all;
//   global average (window = whole input, no padding): XNNPACK's global
//        average pooling, f32 and qu8.
// f32 averages: a NaN sum comes out of XNNPACK's clamp as -inf, so an
// output of -inf (which a finite window never gives) is recomputed by the
// reference, which keeps NaN and a true -inf alike
// (xnnpack_one_input_kernel.h).
#include <cmath>

#include "kernels/nonfinite_scan.h"
#include "kernels/parallel_tiles.h"
#include "kernels/quant_params.h"
#include "kernels/xnnpack_one_input_kernel.h"
#include "kernels/xnnpack_paths.h"
#include "kernels/xnnpack_runtime.h"
#include "ops/parsed_params.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;
using ops::PoolGeometry;

enum class Kind { kMaxF32, kMaxU8, kAvgF32, kAvgQu8, kGlobalF32, kGlobalQu8 };

class PoolKernel final : public OneInputKernel {
 public:
  PoolKernel(Operator op, Kind kind, const PoolGeometry& g, size_t in_bytes, pthreadpool_t pool)
      : OneInputKernel(std::move(op), in_bytes, pool), kind_(kind), g_(g) {}

 private:
  bool reference_needed(const void* x, const void* y) const override {
    const uint64_t in = uint64_t{g_.N} * g_.axes[1].in * g_.axes[2].in * g_.C;
    const uint64_t out = uint64_t{g_.N} * g_.axes[1].out * g_.axes[2].out * g_.C;
    switch (kind_) {
      case Kind::kMaxF32: return any_nan(static_cast<const float*>(x), in);
      case Kind::kAvgF32:
      case Kind::kGlobalF32: return any_equal(static_cast<const float*>(y), out, -INFINITY);
      default: return false;
    }
  }

  // The first setup sizes the indirection buffers (see xnnpack_convolution.cpp).
  xnn_status setup(const void* x, void* y) override {
    const auto* xf = static_cast<const float*>(x);
    const auto* xu = static_cast<const uint8_t*>(x);
    auto* yf = static_cast<float*>(y);
    auto* yu = static_cast<uint8_t*>(y);
    const size_t N = g_.N, H = g_.axes[1].in, W = g_.axes[2].in;
    switch (kind_) {
      case Kind::kMaxF32: return xnn_setup_max_pooling2d_nhwc_f32(op_.get(), N, H, W, xf, yf, pool_);
      case Kind::kMaxU8: return xnn_setup_max_pooling2d_nhwc_u8(op_.get(), N, H, W, xu, yu, pool_);
      case Kind::kAvgF32: return xnn_setup_average_pooling2d_nhwc_f32(op_.get(), N, H, W, xf, yf, pool_);
      case Kind::kAvgQu8: return xnn_setup_average_pooling2d_nhwc_qu8(op_.get(), N, H, W, xu, yu, pool_);
      case Kind::kGlobalF32: return xnn_setup_global_average_pooling_nwc_f32(op_.get(), N, H * W, xf, yf, pool_);
      case Kind::kGlobalQu8: return xnn_setup_global_average_pooling_nwc_qu8(op_.get(), N, H * W, xu, yu, pool_);
    }
    return xnn_status_invalid_parameter;
  }

  Kind kind_;
  PoolGeometry g_;
};

// Pooling reads each input element about once and does next to no
// arithmetic: it is memory-bound, so it splits from kShareMinElems
// (parallel_tiles.h), not from pool_for's ~1M multiply-adds. XNNPACK splits
// a pooling over output rows, so each thread then reads mostly the rows it
// wrote. ResNet-18's 112x112x64 max pooling (0.8M elements, under pool_for's
// bar) ran on one thread reading half its input from the other core's
// cache: 0.096 ms at one thread, 0.16-0.17 at two; split, 0.074-0.089
// (docs/performance.md, session 14).
bool finish(xnn_status created, xnn_operator_t op, Kind kind, const ops::NodeDesc& node, const PoolGeometry& g,
            size_t elem_bytes, std::unique_ptr<ops::OpKernel>* kernel) {
  if (created != xnn_status_success) return false;
  const uint64_t elems = uint64_t{g.N} * g.axes[1].in * g.axes[2].in * g.C;
  pthreadpool_t pool = elems >= kShareMinElems ? pool_of(node) : nullptr;
  auto k = std::make_unique<PoolKernel>(Operator(op), kind, g, elems * elem_bytes, pool);
  if (!k->setup_once(node.inputs[0].planned)) return false;
  if (kind == Kind::kMaxF32 || kind == Kind::kAvgF32 || kind == Kind::kGlobalF32) {
    std::unique_ptr<ops::OpKernel> reference;
    if (!ops::prepare_reference(node, &reference).ok() || !reference) return false;
    k->keep_reference(std::move(reference));
  }
  *kernel = std::move(k);
  return true;
}

// The node's pool geometry (read once, by prepare_node) when it is 2-D.
// XNNPACK is given bottom/right padding PoolAxis::pad_end_reached(): the
// windows CEIL rounding adds past pb/pr are read as padding, so its
// floor-mode output sizes equal the node's.
const PoolGeometry* geometry_2d(const ops::NodeDesc& node) {
  const PoolGeometry* g = ops::parsed_as<PoolGeometry>(node);
  return g != nullptr && g->spatial == 2 ? g : nullptr;
}

// f32 in and out, or u8 in and out (nullopt otherwise).
enum class Types { kF32, kU8, kOther };
Types types_of(const ops::NodeDesc& node) {
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (x.dtype == dtype::kFloat32 && y.dtype == dtype::kFloat32) return Types::kF32;
  if (u8_zero_point(x) && u8_zero_point(y)) return Types::kU8;
  return Types::kOther;
}

}  // namespace

bool prepare_pool_max2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (!ready()) return false;
  const PoolGeometry* parsed = geometry_2d(node);
  if (parsed == nullptr) return false;
  const PoolGeometry& g = *parsed;
  const ops::PoolAxis &h = g.axes[1], &w = g.axes[2];
  const Types t = types_of(node);
  xnn_operator_t op = nullptr;
  if (t == Types::kF32) {
    const xnn_status st =
        xnn_create_max_pooling2d_nhwc_f32(h.pad_begin, w.pad_end_reached(), h.pad_end_reached(), w.pad_begin, h.filter,
                                          w.filter, h.stride, w.stride, 1, 1, g.C, g.C, g.C, -INFINITY, INFINITY,
                                          kRunFlags, &op);
    return finish(st, op, Kind::kMaxF32, node, g, sizeof(float), kernel);
  }
  if (t == Types::kU8) {
    const ops::Quant& qx = node.inputs[0].quant;
    const ops::Quant& qy = node.outputs[0].quant;
    if (qx.scale != qy.scale || qx.offset != qy.offset) return false;
    const xnn_status st =
        xnn_create_max_pooling2d_nhwc_u8(h.pad_begin, w.pad_end_reached(), h.pad_end_reached(), w.pad_begin, h.filter,
                                         w.filter, h.stride, w.stride, 1, 1, g.C, g.C, g.C, 0, 255, kRunFlags, &op);
    return finish(st, op, Kind::kMaxU8, node, g, 1, kernel);
  }
  return false;
}

bool prepare_pool_avg2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (!ready()) return false;
  const PoolGeometry* parsed = geometry_2d(node);
  if (parsed == nullptr) return false;
  const PoolGeometry& g = *parsed;
  const ops::PoolAxis &h = g.axes[1], &w = g.axes[2];
  const Types t = types_of(node);
  if (t == Types::kOther) return false;
  const bool global = h.filter == h.in && w.filter == w.in && !g.any_padding() && h.out == 1 && w.out == 1;
  xnn_operator_t op = nullptr;
  if (t == Types::kF32) {
    if (global) {
      const xnn_status st = xnn_create_global_average_pooling_nwc_f32(g.C, g.C, g.C, -INFINITY, INFINITY, kRunFlags, &op);
      return finish(st, op, Kind::kGlobalF32, node, g, sizeof(float), kernel);
    }
    if (g.any_padding() && g.count_pad) return false;
    const xnn_status st =
        xnn_create_average_pooling2d_nhwc_f32(h.pad_begin, w.pad_end_reached(), h.pad_end_reached(), w.pad_begin,
                                              h.filter, w.filter, h.stride, w.stride, g.C, g.C, g.C, -INFINITY,
                                              INFINITY, kRunFlags, &op);
    return finish(st, op, Kind::kAvgF32, node, g, sizeof(float), kernel);
  }
  const ops::Quant& qx = node.inputs[0].quant;
  const ops::Quant& qy = node.outputs[0].quant;
  const uint8_t x_zp = *u8_zero_point(node.inputs[0]), y_zp = *u8_zero_point(node.outputs[0]);
  if (global) {
    const xnn_status st = xnn_create_global_average_pooling_nwc_qu8(g.C, g.C, g.C, x_zp, qx.scale, y_zp, qy.scale,
                                                                    0, 255, kRunFlags, &op);
    return finish(st, op, Kind::kGlobalQu8, node, g, 1, kernel);
  }
  if (g.any_padding()) return false;
  const xnn_status st = xnn_create_average_pooling2d_nhwc_qu8(0, 0, 0, 0, h.filter, w.filter, h.stride, w.stride,
                                                              g.C, g.C, g.C,
                                                              x_zp, qx.scale, y_zp, qy.scale, 0, 255, kRunFlags, &op);
  return finish(st, op, Kind::kAvgQu8, node, g, 1, kernel);
}

}  // namespace openhtp::kernels::xnn
