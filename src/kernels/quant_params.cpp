#include "kernels/quant_params.h"

#include <cmath>

namespace openhtp::kernels {

namespace dtype = ops::dtype;

std::optional<uint8_t> u8_zero_point(const ops::TensorDesc& t) {
  if (t.dtype != dtype::kUfixed8 || !t.quant.present || t.quant.per_channel()) return std::nullopt;
  const int32_t zp = -t.quant.offset;
  if (zp < 0 || zp > 255) return std::nullopt;
  return static_cast<uint8_t>(zp);
}

std::optional<int8_t> s8_zero_point(const ops::TensorDesc& t) {
  if (t.dtype != dtype::kSfixed8 || !t.quant.present || t.quant.per_channel()) return std::nullopt;
  const int32_t zp = -t.quant.offset;
  if (zp < -128 || zp > 127) return std::nullopt;
  return static_cast<int8_t>(zp);
}

std::optional<std::vector<float>> symmetric_s8_scales(const ops::TensorDesc& w, size_t channel_axis,
                                                      size_t channels) {
  if (w.dtype != dtype::kSfixed8 || !w.quant.present) return std::nullopt;
  const ops::Quant& q = w.quant;
  if (!q.per_channel()) {
    if (q.offset != 0) return std::nullopt;
    return std::vector<float>(channels, q.scale);
  }
  if (static_cast<size_t>(q.axis) != channel_axis || q.scales.size() != channels || q.offsets.size() != channels)
    return std::nullopt;
  for (int32_t o : q.offsets) {
    if (o != 0) return std::nullopt;
  }
  return q.scales;
}

bool int32_bias(const ops::NodeDesc& node, float in_scale, std::span<const float> w_scales, float out_scale,
                std::vector<int32_t>* bias) {
  const size_t channels = w_scales.size();
  bias->assign(channels, 0);
  if (node.inputs.size() < 3 || !node.inputs[2].present) return true;
  const ops::TensorDesc& b = node.inputs[2];
  if (b.static_data == nullptr || b.dims.size() != 1 || b.dims[0] != channels) return false;
  if (b.dtype != dtype::kSfixed32 || !b.quant.present) return false;
  const int32_t* q = static_cast<const int32_t*>(b.static_data);
  // Scale 0 per-tensor: QNN's "derive it", exactly XNNPACK's unit.
  if (!b.quant.per_channel() && b.quant.scale == 0.0f) {
    if (b.quant.offset != 0) return false;
    bias->assign(q, q + channels);
    return true;
  }
  if (b.quant.per_channel() && (b.quant.scales.size() != channels || b.quant.offsets.size() != channels))
    return false;
  for (size_t c = 0; c < channels; ++c) {
    const double real = (static_cast<double>(q[c]) + b.quant.offset_at(c)) * double{b.quant.scale_at(c)};
    const double unit = double{in_scale} * w_scales[c];
    const double v = real / unit;
    const double r = std::nearbyint(v);
    if (!(std::fabs(r) <= 2147483647.0)) return false;
    // Rounding error in output steps: |v - r| units of size unit / out_scale.
    if (std::fabs(v - r) * unit / out_scale > 0.05) return false;
    (*bias)[c] = static_cast<int32_t>(r);
  }
  return true;
}

}  // namespace openhtp::kernels
