#include "ops/shape.h"

#include <algorithm>

namespace openhtp::ops::detail {

bool checked_num_elements(std::span<const uint32_t> dims, uint64_t* n) {
  uint64_t total = 1;
  for (uint32_t d : dims) {
    if (d != 0 && total > UINT64_MAX / d) return false;
    total *= d;
  }
  *n = total;
  return true;
}

size_t product(std::span<const uint32_t> dims, size_t begin, size_t end) {
  size_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

std::vector<size_t> row_major_strides(std::span<const uint32_t> dims) {
  std::vector<size_t> strides(dims.size());
  size_t s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

bool broadcast_shape(std::span<const uint32_t> a, std::span<const uint32_t> b,
                     std::vector<uint32_t>* out, size_t* bad_axis) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    // Axis i of the result lines up with the last-aligned axis of each input.
    const uint32_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const uint32_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) {
      *bad_axis = i;
      return false;
    }
    (*out)[i] = std::max(da, db);
  }
  return true;
}

std::vector<size_t> broadcast_strides(std::span<const uint32_t> dims,
                                      std::span<const uint32_t> out_dims) {
  const size_t rank = out_dims.size();
  const size_t lead = rank - dims.size();
  const std::vector<size_t> own = row_major_strides(dims);
  std::vector<size_t> strides(rank, 0);
  for (size_t i = lead; i < rank; ++i) {
    strides[i] = dims[i - lead] == 1 ? 0 : own[i - lead];
  }
  return strides;
}

TapRange valid_taps(uint64_t o, uint32_t stride, uint32_t pad_before, uint32_t dilation,
                    uint32_t taps, uint32_t in_size) {
  // Signed 64-bit: the first position may be negative (in the top/left pad),
  // and o*stride + pads stay far below 2^63 for u32 inputs.
  const int64_t first = static_cast<int64_t>(o * stride) - pad_before;
  const int64_t d = dilation;
  // Smallest t with first + t*d >= 0.
  int64_t lo = first >= 0 ? 0 : (-first + d - 1) / d;
  // One past the largest t with first + t*d < in_size.
  int64_t hi = first >= in_size ? 0 : (in_size - first + d - 1) / d;
  hi = std::min<int64_t>(hi, taps);
  lo = std::min<int64_t>(lo, hi);
  return {static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)};
}

}  // namespace openhtp::ops::detail
