// The graph's thread pool (pthreadpool_t, made by pthreadpool_create): the
// pthreadpool C API, implemented in openmp_pthreadpool.cpp on OpenMP so that
// every kernel of a graph runs on one set of worker threads. What the rest of
// openhtp needs beyond that API is here.
#pragma once

#include <pthreadpool.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace openhtp::threads {

// The same pool as pthreadpool_create / pthreadpool_destroy /
// pthreadpool_get_threads_count / pthreadpool_parallelize_1d_tile_1d, called
// by openhtp's own code directly, not through the exported C names: those
// are there for XNNPACK and could be bound to another pthreadpool loaded
// before this library; these cannot. threads 0: one per CPU.
pthreadpool_t create_pool(size_t threads);
void destroy_pool(pthreadpool_t pool);
size_t pool_threads(pthreadpool_t pool);  // 1 for null
void parallelize_1d_tile_1d(pthreadpool_t pool, pthreadpool_task_1d_tile_1d_t task, void* context, size_t range,
                            size_t tile, uint32_t flags);

// The Linux thread ids of the threads a parallelize call from the calling
// thread runs on, by thread number (0: the caller): the caller's OpenMP
// workers, the same ones oneDNN's own parallel regions from this thread run
// on (libgomp keeps one set per calling thread). Opens one parallel region;
// from inside one (a team included) only the caller's id.
std::vector<pid_t> pool_thread_ids(pthreadpool_t pool);

// How many parallelize calls openmp_pthreadpool.cpp has served in this
// process (any pool, null included). It only grows. A caller that hands a
// pool to a library (XNNPACK) checks with it that the library's calls reach
// this implementation and not another pthreadpool loaded before it.
uint64_t dispatches();
// Of those, the calls that ran on more than one thread: a test's way to see
// that a kernel split its work.
uint64_t split_dispatches();

// The calling thread's denormal mode as pthreadpool's
// PTHREADPOOL_FLAG_DISABLE_DENORMALS asks: flush-to-zero and
// denormals-are-zero while the guard lives, the old mode restored after.
class DenormalsOff {
 public:
  explicit DenormalsOff(bool active);
  ~DenormalsOff();
  DenormalsOff(const DenormalsOff&) = delete;
  DenormalsOff& operator=(const DenormalsOff&) = delete;

 private:
  bool active_;
  uint32_t saved_ = 0;
};

}  // namespace openhtp::threads
