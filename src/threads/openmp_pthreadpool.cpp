// pthreadpool's C API on OpenMP: one threading runtime for a whole graph.
//
// Why: a graph's kernels come from two libraries with two thread pools.
// oneDNN (Debian's build) runs on OpenMP, whose workers spin for a while after
// each parallel region (src/common/openmp_policy.h: sleeping ones cost a
// ~50 us wake-up per region); XNNPACK and openhtp's own loops ran on
// pthreadpool, whose workers are other threads. On two cores the two sets
// fought: an XNNPACK operator right after a oneDNN convolution woke its
// pthreadpool worker onto a core where an OpenMP worker was still spinning,
// and the memory-bound nodes between convolutions got *slower* with a second
// thread (EfficientNet-B0 fp32 at 2 threads: depthwise 1.0 -> 1.3 ms,
// ReduceMean 0.47 -> 0.85, Transpose 0.14 -> 0.27; docs/performance.md,
// "One threading runtime").
//
// So the pool a graph makes with pthreadpool_create() is this file's: a
// thread count, and every parallelize call is an OpenMP parallel loop over
// the call's tiles on the calling thread's OpenMP team — the same workers
// oneDNN uses, spinning between regions, so the next kernel finds them awake
// whichever library it comes from.
//
// How XNNPACK reaches it: libXNNPACK.so calls pthreadpool_parallelize_* by
// name. These definitions have default visibility and live in the program or
// the library (libQnnHtpSkel.so) that links openhtp's kernels, which the
// dynamic linker searches before libpthreadpool.so (a dependency of
// libXNNPACK.so, loaded after it). A process that had already put another
// pthreadpool in the global scope would win that search; the kernels check
// with threads::dispatches() that XNNPACK's calls arrive here before giving
// it a pool (kernels/xnnpack_runtime.cpp), and run XNNPACK on the calling
// thread otherwise.
//
// Semantics kept from pthreadpool: a null pool, or one of one thread, runs
// the loop on the caller; tiles are handed out with their start indices and
// sizes exactly as pthreadpool's reference loops describe; every call
// returns after all its tiles ran; PTHREADPOOL_FLAG_DISABLE_DENORMALS holds
// on every thread that runs a tile. PTHREADPOOL_FLAG_YIELD_WORKERS has no
// equivalent: OpenMP's wait policy decides.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "common/interval_clock.h"
#include "threads/share_times.h"
#include "threads/team_dispatch.h"
#include "threads/threadpool.h"

// The opaque type of pthreadpool.h, defined by this implementation.
struct pthreadpool {
  size_t threads;
};

namespace openhtp::threads {
namespace {

std::atomic<uint64_t> g_dispatches{0};
std::atomic<uint64_t> g_split_dispatches{0};

// A grid of up to six dimensions; the last one varies fastest. tile[d] is 1
// for a dimension that is not tiled.
constexpr int kMaxDims = 6;
struct Grid {
  int dims = 0;
  size_t range[kMaxDims] = {};
  size_t tile[kMaxDims] = {};
  size_t tiles[kMaxDims] = {};  // ceil(range / tile)
  size_t count = 1;             // product of tiles; 0 when any range is 0
};

Grid make_grid(std::initializer_list<size_t> ranges, std::initializer_list<size_t> tiles) {
  Grid g;
  g.dims = static_cast<int>(ranges.size());
  const size_t tiled_from = ranges.size() - tiles.size();  // tiles apply to the last dimensions
  int d = 0;
  for (size_t r : ranges) g.range[d++] = r;
  d = 0;
  for (; d < g.dims; ++d) g.tile[d] = 1;
  d = static_cast<int>(tiled_from);
  for (size_t t : tiles) g.tile[d++] = std::max<size_t>(t, 1);
  for (d = 0; d < g.dims; ++d) {
    g.tiles[d] = (g.range[d] + g.tile[d] - 1) / g.tile[d];
    g.count *= g.tiles[d];
  }
  return g;
}

// Calls task(start, size) for tile `t` of the grid (start[d], size[d] per
// dimension).
template <typename Task>
inline void run_tile(const Grid& g, size_t t, const Task& task) {
  size_t start[kMaxDims], size[kMaxDims];
  for (int d = g.dims - 1; d >= 0; --d) {
    const size_t i = t % g.tiles[d];
    t /= g.tiles[d];
    start[d] = i * g.tile[d];
    size[d] = std::min(g.tile[d], g.range[d] - start[d]);
  }
  task(start, size);
}

// Thread i's tiles of n split `threads` ways as libgomp's schedule(static)
// without a chunk size splits them: contiguous, the first n % threads
// threads one more.
std::pair<size_t, size_t> static_share(size_t n, size_t i, size_t threads) {
  size_t q = n / threads, r = n % threads;
  if (i < r) {
    r = 0;
    ++q;
  }
  const size_t begin = q * i + r;
  return {begin, begin + q};
}

template <typename Task>
void parallelize(pthreadpool_t pool, uint32_t flags, const Grid& g, const Task& task) {
  g_dispatches.fetch_add(1, std::memory_order_relaxed);
  if (g.count == 0) return;
  const bool denormals_off = (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) != 0;
  const size_t threads = pool == nullptr ? 1 : std::min(pool->threads, g.count);
  if (threads <= 1) {
    DenormalsOff guard(denormals_off);
    for (size_t t = 0; t < g.count; ++t) run_tile(g, t, task);
    return;
  }
  g_split_dispatches.fetch_add(1, std::memory_order_relaxed);
  // Inside a team (team.h) the loop's shares go to the team's waiting
  // threads, split as schedule(static) below splits them. The job goes by
  // value (team_dispatch.h: the tasks capture by value for this).
  struct Job {
    Grid g;
    Task task;
    bool denormals_off;
  };
  static_assert(std::is_trivially_copyable_v<Job> && sizeof(Job) <= kTeamJobBytes);
  const Job job{g, task, denormals_off};
  const ShareFn share = [](void* ctx, size_t i, size_t n) {
    const Job& j = *static_cast<const Job*>(ctx);
    const auto [begin, end] = static_share(j.g.count, i, n);
    if (begin == end) return;
    DenormalsOff guard(j.denormals_off);
    for (size_t t = begin; t < end; ++t) run_tile(j.g, t, j.task);
  };
  if (detail::run_on_team(share, &job, sizeof(job))) return;
  // Timed when the caller profiles (share_times.h): each thread its share's
  // wall time; the caller, the rest of the region's (its start, the others'
  // shares after its own, the join).
  ShareTimes* const times = installed_share_times();
  const uint64_t region_start = times != nullptr ? interval_ticks() : 0;
  uint64_t caller_share = 0;
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    const uint64_t start = times != nullptr ? interval_ticks() : 0;
    {
      DenormalsOff guard(denormals_off);
#pragma omp for schedule(static) nowait
      for (size_t t = 0; t < g.count; ++t) run_tile(g, t, task);
    }
    if (times != nullptr) {
      const size_t me = static_cast<size_t>(omp_get_thread_num());
      const uint64_t ticks = interval_ticks() - start;
      if (me < kMaxTimedThreads) times->busy[me].ticks += ticks;
      if (me == 0) caller_share = ticks;
    }
  }
  if (times != nullptr) times->caller_wait_ticks += interval_ticks() - region_start - caller_share;
}

}  // namespace

uint64_t dispatches() { return g_dispatches.load(std::memory_order_relaxed); }
uint64_t split_dispatches() { return g_split_dispatches.load(std::memory_order_relaxed); }

pthreadpool_t create_pool(size_t threads) {
  if (threads == 0) threads = static_cast<size_t>(std::max(1, omp_get_num_procs()));
  return new (std::nothrow) pthreadpool{threads};
}

void destroy_pool(pthreadpool_t pool) { delete pool; }

size_t pool_threads(pthreadpool_t pool) { return pool == nullptr ? 1 : pool->threads; }

std::vector<pid_t> pool_thread_ids(pthreadpool_t pool) {
  const size_t threads = omp_in_parallel() ? 1 : pool_threads(pool);
  std::vector<pid_t> ids(threads, 0);
  if (threads == 1) {
    ids[0] = gettid();
    return ids;
  }
  // Written and read as atomics: the region's join orders them, but through
  // libgomp, which ThreadSanitizer does not see.
  std::vector<std::atomic<pid_t>> seen(threads);
#pragma omp parallel num_threads(static_cast<int>(threads))
  seen[static_cast<size_t>(omp_get_thread_num())].store(gettid(), std::memory_order_release);
  for (size_t t = 0; t < threads; ++t) ids[t] = seen[t].load(std::memory_order_acquire);
  // OpenMP may give fewer threads than asked: their entries stay 0.
  while (ids.size() > 1 && ids.back() == 0) ids.pop_back();
  return ids;
}

void parallelize_1d_tile_1d(pthreadpool_t pool, pthreadpool_task_1d_tile_1d_t task, void* context, size_t range,
                            size_t tile, uint32_t flags) {
  parallelize(pool, flags, make_grid({range}, {tile}),
              [=](const size_t* s, const size_t* n) { task(context, s[0], n[0]); });
}

#if defined(__x86_64__) || defined(__i386__)
DenormalsOff::DenormalsOff(bool active) : active_(active) {
  if (!active_) return;
  saved_ = _mm_getcsr();
  _mm_setcsr(saved_ | 0x8040u);  // FTZ (bit 15) | DAZ (bit 6)
}
DenormalsOff::~DenormalsOff() {
  if (active_) _mm_setcsr(saved_);
}
#else
DenormalsOff::DenormalsOff(bool active) : active_(active) {}
DenormalsOff::~DenormalsOff() = default;
#endif

}  // namespace openhtp::threads

using openhtp::threads::make_grid;
using openhtp::threads::parallelize;

#define OPENHTP_PTHREADPOOL_API extern "C" __attribute__((visibility("default")))

OPENHTP_PTHREADPOOL_API pthreadpool_t pthreadpool_create(size_t threads_count) {
  return openhtp::threads::create_pool(threads_count);
}

OPENHTP_PTHREADPOOL_API size_t pthreadpool_get_threads_count(pthreadpool_t pool) {
  return openhtp::threads::pool_threads(pool);
}

OPENHTP_PTHREADPOOL_API void pthreadpool_destroy(pthreadpool_t pool) { openhtp::threads::destroy_pool(pool); }

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_1d(pthreadpool_t pool, pthreadpool_task_1d_t fn, void* ctx,
                                                        size_t range, uint32_t flags) {
  parallelize(pool, flags, make_grid({range}, {}), [=](const size_t* s, const size_t*) { fn(ctx, s[0]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t pool, pthreadpool_task_1d_tile_1d_t fn,
                                                                void* ctx, size_t range, size_t tile, uint32_t flags) {
  openhtp::threads::parallelize_1d_tile_1d(pool, fn, ctx, range, tile, flags);
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_2d(pthreadpool_t pool, pthreadpool_task_2d_t fn, void* ctx,
                                                        size_t range_i, size_t range_j, uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j}, {}),
              [=](const size_t* s, const size_t*) { fn(ctx, s[0], s[1]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t pool, pthreadpool_task_2d_tile_1d_t fn,
                                                                void* ctx, size_t range_i, size_t range_j,
                                                                size_t tile_j, uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j}, {tile_j}),
              [=](const size_t* s, const size_t* n) { fn(ctx, s[0], s[1], n[1]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t pool, pthreadpool_task_2d_tile_2d_t fn,
                                                                void* ctx, size_t range_i, size_t range_j,
                                                                size_t tile_i, size_t tile_j, uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j}, {tile_i, tile_j}),
              [=](const size_t* s, const size_t* n) { fn(ctx, s[0], s[1], n[0], n[1]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_3d(pthreadpool_t pool, pthreadpool_task_3d_t fn, void* ctx,
                                                        size_t range_i, size_t range_j, size_t range_k,
                                                        uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j, range_k}, {}),
              [=](const size_t* s, const size_t*) { fn(ctx, s[0], s[1], s[2]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t pool, pthreadpool_task_3d_tile_2d_t fn,
                                                                void* ctx, size_t range_i, size_t range_j,
                                                                size_t range_k, size_t tile_j, size_t tile_k,
                                                                uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j, range_k}, {tile_j, tile_k}),
              [=](const size_t* s, const size_t* n) { fn(ctx, s[0], s[1], s[2], n[1], n[2]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_4d(pthreadpool_t pool, pthreadpool_task_4d_t fn, void* ctx,
                                                        size_t range_i, size_t range_j, size_t range_k,
                                                        size_t range_l, uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j, range_k, range_l}, {}),
              [=](const size_t* s, const size_t*) { fn(ctx, s[0], s[1], s[2], s[3]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t pool, pthreadpool_task_4d_tile_2d_t fn,
                                                                void* ctx, size_t range_i, size_t range_j,
                                                                size_t range_k, size_t range_l, size_t tile_k,
                                                                size_t tile_l, uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j, range_k, range_l}, {tile_k, tile_l}),
              [=](const size_t* s, const size_t* n) { fn(ctx, s[0], s[1], s[2], s[3], n[2], n[3]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_5d(pthreadpool_t pool, pthreadpool_task_5d_t fn, void* ctx,
                                                        size_t range_i, size_t range_j, size_t range_k,
                                                        size_t range_l, size_t range_m, uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j, range_k, range_l, range_m}, {}),
              [=](const size_t* s, const size_t*) { fn(ctx, s[0], s[1], s[2], s[3], s[4]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t pool, pthreadpool_task_5d_tile_2d_t fn,
                                                                void* ctx, size_t range_i, size_t range_j,
                                                                size_t range_k, size_t range_l, size_t range_m,
                                                                size_t tile_l, size_t tile_m, uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j, range_k, range_l, range_m}, {tile_l, tile_m}),
              [=](const size_t* s, const size_t* n) { fn(ctx, s[0], s[1], s[2], s[3], s[4], n[3], n[4]); });
}

OPENHTP_PTHREADPOOL_API void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t pool, pthreadpool_task_6d_tile_2d_t fn,
                                                                void* ctx, size_t range_i, size_t range_j,
                                                                size_t range_k, size_t range_l, size_t range_m,
                                                                size_t range_n, size_t tile_m, size_t tile_n,
                                                                uint32_t flags) {
  parallelize(pool, flags, make_grid({range_i, range_j, range_k, range_l, range_m, range_n}, {tile_m, tile_n}),
              [=](const size_t* s, const size_t* n) { fn(ctx, s[0], s[1], s[2], s[3], s[4], s[5], n[4], n[5]); });
}
