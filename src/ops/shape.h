// Shape arithmetic shared by the kernels: element counts, row-major strides,
// numpy-style broadcasting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace openhtp::ops::detail {

// The largest tensor a kernel accepts (2^31 elements, 8 GiB of float32). It
// keeps every size computation far from overflow; the HTP's own memory is far
// smaller anyway.
inline constexpr uint64_t kMaxElements = uint64_t{1} << 31;

// Product of dims (1 for rank 0); false if it does not fit in 64 bits.
bool checked_num_elements(std::span<const uint32_t> dims, uint64_t* n);

// Product of dims[begin, end).
size_t product(std::span<const uint32_t> dims, size_t begin, size_t end);

// Row-major element strides: strides[i] = product(dims[i+1..]).
std::vector<size_t> row_major_strides(std::span<const uint32_t> dims);

// numpy broadcasting: the lower-rank shape is extended with leading 1s, then
// each axis must match or be 1. On failure returns false and sets *bad_axis to
// the failing axis of the (max-rank) result.
bool broadcast_shape(std::span<const uint32_t> a, std::span<const uint32_t> b,
                     std::vector<uint32_t>* out, size_t* bad_axis);

// Element strides of `dims` read as a tensor of shape `out_dims` (which it
// broadcasts to): leading-1 extended, stride 0 on every axis where dims is 1.
std::vector<size_t> broadcast_strides(std::span<const uint32_t> dims,
                                      std::span<const uint32_t> out_dims);

// Sliding windows (Conv2d, PoolMax2d) along one spatial axis. Output position
// o reads input positions o*stride - pad_before + t*dilation for taps
// t = 0..taps-1; TapRange is the [lo, hi) range of taps that land inside
// [0, in_size). Empty (lo == hi) when the window lies entirely in padding.
struct TapRange {
  uint32_t lo = 0;
  uint32_t hi = 0;
};
TapRange valid_taps(uint64_t o, uint32_t stride, uint32_t pad_before, uint32_t dilation,
                    uint32_t taps, uint32_t in_size);

}  // namespace openhtp::ops::detail
