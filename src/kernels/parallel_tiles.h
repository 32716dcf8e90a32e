// Splitting a fast path's work over the graph's pool (threads/threadpool.h:
// OpenMP, the workers every kernel shares): body(start, count) over [0, n) in
// tiles, or in one call on the caller's thread. Each
// fast path decides *whether* to split (a measured grain, next to its code);
// this is only the how, in one place.
#pragma once

#include <cstddef>

#include "ops/op.h"
#include "threads/shares.h"
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

// One share per thread (kShareMinElems, run_in_shares): threads/shares.h,
// which the type adapter's conversions use too.
using threads::kShareMinElems;
using threads::run_in_shares;

}  // namespace openhtp::kernels
