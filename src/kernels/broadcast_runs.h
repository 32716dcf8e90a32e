// Numpy broadcasting as the fewest, longest runs: an element-wise op's
// output dims with each input's broadcast strides (0 along a broadcast
// axis), size-1 axes dropped and neighbouring axes merged wherever both
// inputs are laid out contiguously (or both broadcast) across them. The
// per-channel scale of a squeeze-excite block, [1,H,W,C] x [1,1,1,C],
// becomes [H*W, C] with strides {C, 1} and {0, 1}: one row broadcast down a
// dense matrix, which the binary fast paths run as a plain loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace openhtp::kernels {

struct BroadcastRuns {
  std::vector<size_t> dims;    // at least one axis
  std::vector<size_t> sa, sb;  // element strides of the two inputs per axis

  // One input a row of dims[1] elements broadcast down the other, dense,
  // [dims[0], dims[1]] matrix: which one (-1 none, 0 = a is the row, 1 = b).
  int row_input() const;
};

BroadcastRuns collapse_broadcast(const std::vector<uint32_t>& out_dims, const std::vector<size_t>& sa,
                                 const std::vector<size_t>& sb);

}  // namespace openhtp::kernels
