// XNNPACK convolutions (qu8, qc8, f16), shared by Conv2d, DepthWiseConv2d
// and the per-channel FullyConnected (a 1x1 qc8 convolution).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "ops/conv_geometry.h"
#include "ops/op.h"

struct pthreadpool;

namespace openhtp::kernels::xnn {

// A per-channel int8-weight convolution. Weights are OHWI, bias in units of
// in_scale * w_scales[c]. Activations are int8 or, with `u8_in`/`u8_out`,
// uint8 given with their uint8 zero points (flipped to int8 around XNNPACK).
struct Qc8ConvSpec {
  ops::ConvGeometry g;
  const int8_t* ohwi;
  std::span<const float> w_scales;
  const int32_t* bias;
  int32_t in_zero_point, out_zero_point;
  float in_scale, out_scale;
  bool u8_in, u8_out;
  bool x_planned = false;  // the input's TensorDesc::planned (xnnpack_runtime.h)
  // Output range in the output's own codes (uint8 or int8, before any flip):
  // a fused clamp (output_clamp); the type's full range by default.
  int32_t out_lo = -1000, out_hi = 1000;
};
// A node's fused epilogue (ops::Epilogue) as XNNPACK's output min/max, in the
// codes [qmin, qmax] of the node's 8-bit output: the full range when there is
// none. False (decline the node) for a residual add or a bound that is not
// exactly one of the output's codes: XNNPACK clamps codes, so only a clamp on
// the output's grid gives what clamping the real value and quantizing does.
bool output_clamp(const ops::NodeDesc& node, int32_t qmin, int32_t qmax, int32_t* lo, int32_t* hi);
// Fills the spec's zero points from the activations' encodings: uint8
// (flipped to int8 around the operator) or int8, per tensor. False when
// either encoding is neither.
bool set_qc8_zero_points(const ops::TensorDesc& x, const ops::TensorDesc& y, Qc8ConvSpec* spec);
// Null when XNNPACK refuses the configuration.
std::unique_ptr<ops::OpKernel> make_qc8_conv(const Qc8ConvSpec& spec, pthreadpool* pool);

// Fast paths (fast_paths.cpp lists them). The geometry comes from
// node.parsed (ops/parsed_params.h).
bool prepare_conv2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

}  // namespace openhtp::kernels::xnn
