// Shared by the element-wise fast paths (xnnpack_binary.cpp,
// xnnpack_unary.cpp, xnnpack_transpose.cpp): when an element-wise loop is
// worth the graph's pool, how it is split, and how an XNNPACK operator on
// flat arrays is kept from over-reading an input that may end on a page end.
// No threads of their own: everything runs on the graph's pthreadpool
// (KernelEnv::pool), as the other XNNPACK paths and the lookup tables do.
#pragma once

#include <pthreadpool.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "kernels/parallel_tiles.h"
#include "kernels/xnnpack_runtime.h"

namespace openhtp::kernels::xnn {

// When an element-wise node is split over the graph's pool, and in tiles of
// how many elements; below the threshold it runs on the caller's thread.
//   - cheap (a compare, an add, a copy: memory-bound at ~0.3 ns an
//     element): from 256K elements, in 128K tiles (dealt out in contiguous
//     blocks, one per thread). Sessions 1-5 split only from 16M: with
//     sleeping workers on a pool of their own, a 1.2M-element ReluMinMax
//     was 1.8x slower at 2 threads. With the graph's OpenMP workers spinning
//     (src/threads) the split costs a few microseconds, and what decides is
//     where the input lives: written by a producer on all threads, half of
//     it is in the other core's cache, where one thread reads it at half
//     speed (bench_cache_locality). At 2 threads EfficientNet-B0 fp32
//     7.51 -> 7.06 ms, uint8 3.50 -> 3.20 with these and the 8-bit loops'
//     thresholds lowered alike (docs/performance.md, session 6).
//   - costly (libm per element: fmod, floor division, powf in the fp32
//     binary loops, float_binary.h; 3-20 ns an element, compute-bound; asin
//     and atan were here until they got polynomials): from two 8K tiles (25-60 us each, against a few
//     microseconds to split). Sessions 1-5 split only from 2M elements: with
//     sleeping workers on a pool of their own a 451K-element Tanh was 1.5x
//     slower at 2 threads. On the graph's spinning workers (session 19) the
//     reference's Sin at 2 threads: 451K elements 2224 -> 1160-1184 us, 28K
//     elements 80-88 -> 42-46 us (Sin has its own polynomial since).
inline constexpr size_t kCheapMin = size_t{256} << 10;
inline constexpr size_t kCheapTile = size_t{128} << 10;
inline constexpr size_t kCostlyTile = size_t{8} << 10;
inline constexpr size_t kCostlyMin = 2 * kCostlyTile;

// The pool for an element-wise node of n elements, split from `min`
// elements on, or null to run it on the caller's thread.
inline pthreadpool_t elementwise_pool(const ops::NodeDesc& node, size_t n, size_t min) {
  return n >= min ? pool_of(node) : nullptr;
}


// An XNNPACK element-wise operator over n dense elements of `elem` bytes
// reads up to kReadSlack bytes past each input's end (xnnpack_runtime.h).
// When an input's end could fault, the operator runs on all but the last
// kReadSlack bytes in place — its over-read then stays inside the inputs —
// and on that tail from copies in fixed 2 x kReadSlack-byte buffers. No
// workspace, no read slack, no copy of a whole input. (elem divides
// kReadSlack: 1, 2 or 4 bytes.)
template <size_t N>
class OverReadGuard {
 public:
  using Inputs = std::array<const void*, N>;
  // fn(const Inputs& in, void* y, size_t count) runs the operator.
  template <typename Fn>
  void run(const Inputs& in, void* y, size_t n, size_t elem, Fn&& fn) {
    const size_t bytes = n * elem;
    bool readable = true;
    for (const void* p : in) readable = readable && tail_readable(p, bytes);
    if (readable) {
      fn(in, y, n);
      return;
    }
    const size_t tail = std::min(n, kReadSlack / elem);
    const size_t bulk = n - tail;
    if (bulk > 0) fn(in, y, bulk);
    const size_t at = bulk * elem;
    Inputs copies;
    for (size_t i = 0; i < N; ++i) {
      std::memcpy(tail_[i].data(), static_cast<const uint8_t*>(in[i]) + at, tail * elem);
      copies[i] = tail_[i].data();
    }
    fn(copies, static_cast<uint8_t*>(y) + at, tail);
  }

 private:
  // Constant size, like a lookup table: not workspace.
  alignas(64) std::array<std::array<uint8_t, 2 * kReadSlack>, N> tail_{};
};

}  // namespace openhtp::kernels::xnn
