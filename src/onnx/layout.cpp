#include "onnx/layout.h"

#include <cstring>

namespace openhtp::onnx_import {

std::vector<uint32_t> to_channel_last_perm(size_t rank) {
  std::vector<uint32_t> p{0};
  for (uint32_t i = 2; i < rank; ++i) p.push_back(i);
  p.push_back(1);
  return p;
}

std::vector<uint32_t> from_channel_last_perm(size_t rank) { return inverse_perm(to_channel_last_perm(rank)); }

std::vector<uint32_t> inverse_perm(const std::vector<uint32_t>& perm) {
  std::vector<uint32_t> inv(perm.size());
  for (uint32_t i = 0; i < perm.size(); ++i) inv[perm[i]] = i;
  return inv;
}

bool is_identity_perm(const std::vector<uint32_t>& perm) {
  for (uint32_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != i) return false;
  }
  return true;
}

Tensor permute_tensor(const Tensor& t, const std::vector<uint32_t>& perm) {
  const size_t rank = t.dims.size();
  Tensor out;
  out.elem_type = t.elem_type;
  out.dims = permute_dims(t.dims, perm);
  out.data.resize(t.data.size());
  const size_t esize = onnx_type::element_size(t.elem_type);
  // Strides of the input, then walk the output in order.
  std::vector<size_t> in_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * static_cast<size_t>(t.dims[i]);
  std::vector<size_t> idx(rank, 0);
  const size_t n = t.count();
  for (size_t o = 0; o < n; ++o) {
    size_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += idx[i] * in_strides[perm[i]];
    std::memcpy(out.data.data() + o * esize, t.data.data() + src * esize, esize);
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < static_cast<size_t>(out.dims[i])) break;
      idx[i] = 0;
    }
  }
  return out;
}

Tensor conv_weight_to_hwio(const Tensor& oihw) { return permute_tensor(oihw, kConvWeightPerm); }

Tensor conv_transpose_weight_to_qnn(const Tensor& iohw) { return permute_tensor(iohw, kConvTransposeWeightPerm); }

Tensor conv_transpose3d_weight_to_qnn(const Tensor& iodhw) {
  return permute_tensor(iodhw, kConvTranspose3dWeightPerm);
}

uint32_t channel_last_axis(int64_t onnx_axis, size_t rank) {
  const std::vector<uint32_t> p = to_channel_last_perm(rank);
  for (uint32_t j = 0; j < rank; ++j) {
    if (p[j] == static_cast<uint32_t>(onnx_axis)) return j;
  }
  return static_cast<uint32_t>(onnx_axis);
}

}  // namespace openhtp::onnx_import
