// NCHW (ONNX) -> NHWC (QNN). Layout-sensitive ONNX ops (Conv, ConvTranspose,
// pools, Resize/Upsample, BatchNormalization, InstanceNormalization, ...)
// work on "channel-last" copies of their activations: the ONNX tensor
// permuted by [0, 2, ..., r-1, 1]. The lowering context keeps, per ONNX
// tensor, the QNN tensor in ONNX layout and/or the channel-last one and
// inserts a QNN Transpose only when a consumer needs the form that does not
// exist yet; so a Conv -> Relu -> Conv chain stays channel-last and the
// transpose pair a naive per-op conversion would put between the two convs
// (to NCHW and straight back) never appears: adjacent inverse transposes
// cancel by construction. Weights are converted here at import time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/model.h"

namespace openhtp::onnx_import {

enum class Layout { kOnnx, kChannelLast };

// Output dim i = input dim perm[i] (ONNX and QNN Transpose convention).
std::vector<uint32_t> to_channel_last_perm(size_t rank);    // [0, 2, .., r-1, 1]
std::vector<uint32_t> from_channel_last_perm(size_t rank);  // [0, r-1, 1, .., r-2]
std::vector<uint32_t> inverse_perm(const std::vector<uint32_t>& perm);
bool is_identity_perm(const std::vector<uint32_t>& perm);

template <typename T>
std::vector<T> permute_dims(const std::vector<T>& dims, const std::vector<uint32_t>& perm) {
  std::vector<T> out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = dims[perm[i]];
  return out;
}

// A constant transposed: out[idx] = in[idx permuted back].
Tensor permute_tensor(const Tensor& t, const std::vector<uint32_t>& perm);

// Conv weight OIHW -> QNN HWIO [kh, kw, I/group, O]; for depthwise (I/group
// == 1) this is already DepthWiseConv2d's [kh, kw, 1, Cout].
Tensor conv_weight_to_hwio(const Tensor& oihw);
inline const std::vector<uint32_t> kConvWeightPerm = {2, 3, 1, 0};
// ConvTranspose weight [Cin, Cout/group, kh, kw] -> QNN [kh, kw, Cin, Cout/group].
Tensor conv_transpose_weight_to_qnn(const Tensor& iohw);
inline const std::vector<uint32_t> kConvTransposeWeightPerm = {2, 3, 0, 1};
// 3-D ConvTranspose weight [Cin, Cout/group, kd, kh, kw] -> QNN TransposeConv3d
// [kd, kh, kw, Cin, Cout/group].
Tensor conv_transpose3d_weight_to_qnn(const Tensor& iodhw);
inline const std::vector<uint32_t> kConvTranspose3dWeightPerm = {2, 3, 4, 0, 1};

// ONNX axis (of a rank-r tensor) -> the same axis in the channel-last copy.
uint32_t channel_last_axis(int64_t onnx_axis, size_t rank);

}  // namespace openhtp::onnx_import
