// The QNN encodings the XNNPACK integer paths accept, translated into
// XNNPACK's terms (zero_point = -offset; int32 bias in units of
// in_scale * w_scale[c]).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ops/op.h"

namespace openhtp::kernels {

// UFIXED_POINT_8 per-tensor with zero point in [0, 255].
std::optional<uint8_t> u8_zero_point(const ops::TensorDesc& t);
// SFIXED_POINT_8 per-tensor with zero point in [-128, 127].
std::optional<int8_t> s8_zero_point(const ops::TensorDesc& t);

// Symmetric int8 weights (SFIXED_POINT_8, every offset 0), per-tensor or
// per-channel along `channel_axis`: one scale per output channel.
std::optional<std::vector<float>> symmetric_s8_scales(const ops::TensorDesc& w, size_t channel_axis,
                                                      size_t channels);

// The bias (node input 2) as XNNPACK's int32 bias, whose unit is
// in_scale * w_scales[c]. QNN's SFIXED_POINT_32 bias normally has exactly
// that scale (or scale 0, meaning it); any other encoding is rescaled, and
// refused when rounding to the new unit could move an output by more than
// 0.05 of its step. Absent bias: zeros. False = not representable (decline).
bool int32_bias(const ops::NodeDesc& node, float in_scale, std::span<const float> w_scales, float out_scale,
                std::vector<int32_t>* bias);

}  // namespace openhtp::kernels
