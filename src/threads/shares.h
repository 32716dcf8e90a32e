// Splitting a memory-bound pass over a graph's pool in one contiguous share
// per thread: the kernels' elementwise loops (kernels/parallel_tiles.h) and
// the type adapter's conversions (ops/type_adapter.cpp) split the same way,
// so each thread reads what its own core just wrote.
#pragma once

#include <cstddef>

#include "threads/threadpool.h"

namespace openhtp::threads {

// From how many elements a memory-bound step (a table lookup, a pooling, a
// row broadcast, a softmax, a norm: ~0.1-1 ns an element) splits into one
// share per thread: its input is most often what a multi-threaded producer
// just wrote in shares, which one thread would read half of from the other
// core's cache. Each of those steps was left on one thread below 256K
// elements or pool_for's 1M multiply-adds once, and got faster split
// (docs/performance.md, sessions 7 and 14). The type adapter's conversions
// (ops/type_adapter.cpp) split from the same size, the same way.
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
  const size_t threads = pool_threads(pool);
  if (threads <= 1 || n < min || n < threads) {
    body(size_t{0}, n);
    return;
  }
  parallelize_1d_tile_1d(
      pool, [](void* ctx, size_t start, size_t count) { (*static_cast<Body*>(ctx))(start, count); }, &body, n,
      (n + threads - 1) / threads, 0);
}

}  // namespace openhtp::threads
