// Splitting a fast path's work over the graph's pool (threads/threadpool.h:
// OpenMP, the workers every kernel shares): body(start, count) over [0, n) in
// tiles, or in one call on the caller's thread. Each
// fast path decides *whether* to split (a measured grain, next to its code);
// this is only the how, in one place.
#pragma once

#include <cstddef>

#include "ops/op.h"
#include "threads/threadpool.h"

namespace openhtp::kernels {

// The graph's pool for openhtp's own loops (null: one thread). XNNPACK
// operators take theirs through xnn::pool_of, which also checks that
// XNNPACK's calls reach this pool.
inline pthreadpool_t graph_pool(const ops::NodeDesc& node) { return node.env ? node.env->pool : nullptr; }

// On the pool in tiles of `tile` when `pool` is set and n is more than one
// tile; else one call.
template <typename Body>
void parallel_tiles(pthreadpool_t pool, size_t n, size_t tile, Body& body) {
  if (pool == nullptr || n <= tile) {
    body(size_t{0}, n);
    return;
  }
  threads::parallelize_1d_tile_1d(
      pool, [](void* ctx, size_t start, size_t count) { (*static_cast<Body*>(ctx))(start, count); }, &body, n, tile,
      0);
}

// The same, split only from two tiles on (a lone partial tile is not worth
// a worker's wake-up).
template <typename Body>
void run_tiles(pthreadpool_t pool, size_t n, size_t tile, Body& body) {
  parallel_tiles(n < 2 * tile ? nullptr : pool, n, tile, body);
}

// From how many elements a memory-bound step (a table lookup, a pooling, a
// row broadcast, a softmax, a norm: ~0.1-1 ns an element) splits into one
// share per thread: its input is most often what a multi-threaded producer
// just wrote in shares, which one thread would read half of from the other
// core's cache. Each of those steps was left on one thread below 256K
// elements or pool_for's 1M multiply-adds once, and got faster split
// (docs/performance.md, sessions 7 and 14).
inline constexpr size_t kShareMinElems = size_t{16} << 10;

// One contiguous share of [0, n) per pool thread, in order: body(start,
// count) on thread t gets share t (OpenMP's static schedule), when `pool`
// has more than one thread and n >= min; else one call. For memory-bound
// loops over a tensor a multi-threaded producer just wrote: its threads
// wrote it in contiguous shares (oneDNN splits over rows of pixels), so a
// consumer split the same way reads each share from the core whose cache
// holds it (bench_cache_locality: a buffer read by the other core costs
// 1.5-1.8x), however small the loop.
template <typename Body>
void run_in_shares(pthreadpool_t pool, size_t n, size_t min, Body& body) {
  const size_t threads = threads::pool_threads(pool);
  if (threads <= 1 || n < min || n < threads) {
    body(size_t{0}, n);
    return;
  }
  parallel_tiles(pool, n, (n + threads - 1) / threads, body);
}

}  // namespace openhtp::kernels
