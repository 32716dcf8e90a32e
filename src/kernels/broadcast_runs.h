// Numpy broadcasting as the fewest, longest runs: an element-wise op's
// output dims with each input's broadcast strides (0 along a broadcast
// axis), size-1 axes dropped and neighbouring axes merged wherever every
// input is laid out contiguously (or broadcast) across them. The
// per-channel scale of a squeeze-excite block, [1,H,W,C] x [1,1,1,C],
// becomes [H*W, C] with strides {C, 1} and {0, 1}: one row broadcast down a
// dense matrix, which the binary fast paths run as a plain loop.
#pragma once

#include <algorithm>
#include <array>
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

// The same for N inputs, in fixed arrays (a kernel's run() walks them
// without allocating). rank 0: more axes than kMaxRunRank stay apart.
inline constexpr size_t kMaxRunRank = 8;
template <size_t N>
struct Runs {
  size_t rank = 0;
  std::array<size_t, kMaxRunRank> dims{};
  std::array<std::array<size_t, kMaxRunRank>, N> strides{};  // [input][axis]
  size_t elements() const {
    size_t n = 1;
    for (size_t ax = 0; ax < rank; ++ax) n *= dims[ax];
    return n;
  }
};
// strides[k]: input k's broadcast strides against out_dims.
template <size_t N>
Runs<N> collapse_runs(const std::vector<uint32_t>& out_dims, const std::array<std::vector<size_t>, N>& strides) {
  Runs<N> r;
  for (size_t ax = 0; ax < out_dims.size(); ++ax) {
    const size_t d = out_dims[ax];
    if (d == 1) continue;
    bool merges = r.rank > 0;
    for (size_t k = 0; k < N && merges; ++k) merges = r.strides[k][r.rank - 1] == strides[k][ax] * d;
    if (merges) {
      r.dims[r.rank - 1] *= d;
      for (size_t k = 0; k < N; ++k) r.strides[k][r.rank - 1] = strides[k][ax];
      continue;
    }
    if (r.rank == kMaxRunRank) return Runs<N>{};
    r.dims[r.rank] = d;
    for (size_t k = 0; k < N; ++k) r.strides[k][r.rank] = strides[k][ax];
    ++r.rank;
  }
  if (r.rank == 0) {  // one element
    r.rank = 1;
    r.dims[0] = 1;
  }
  return r;
}

// The outputs [start, start + count), in row-major order, run piece by run
// piece: row(offsets, inner_strides, m, at) for m outputs from output index
// `at`, input k read from offsets[k] at stride inner_strides[k] (0: one
// value held). The multi-index of `start` is found once; then an odometer
// over the outer axes.
template <size_t N, typename Row>
void for_each_run(const Runs<N>& r, size_t start, size_t count, Row&& row) {
  const size_t last = r.rank - 1, inner = r.dims[last];
  std::array<size_t, kMaxRunRank> idx{};
  std::array<size_t, N> off{}, inner_strides{};
  for (size_t k = 0; k < N; ++k) inner_strides[k] = r.strides[k][last];
  size_t rows = start / inner, pos = start % inner;
  for (size_t ax = last; ax-- > 0;) {
    idx[ax] = rows % r.dims[ax];
    rows /= r.dims[ax];
    for (size_t k = 0; k < N; ++k) off[k] += idx[ax] * r.strides[k][ax];
  }
  for (size_t done = 0; done < count;) {
    const size_t m = std::min(inner - pos, count - done);
    std::array<size_t, N> at = off;
    for (size_t k = 0; k < N; ++k) at[k] += pos * inner_strides[k];
    row(at, inner_strides, m, start + done);
    done += m;
    pos = 0;
    for (size_t ax = last; ax-- > 0;) {
      for (size_t k = 0; k < N; ++k) off[k] += r.strides[k][ax];
      if (++idx[ax] < r.dims[ax]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= r.strides[k][ax] * r.dims[ax];
      idx[ax] = 0;
    }
  }
}

}  // namespace openhtp::kernels
