// bench_team_dispatch: what handing one loop to the graph pool's other
// thread costs, against the floor two threads on these CPUs can do it in.
//
//   pingpong      two threads bounce one atomic word: one cache-line round
//                 trip per iteration, the least a handoff and its join can
//                 cost (no work, no protocol);
//   team          an empty two-share pthreadpool_parallelize_1d inside a
//                 thread team (threads/team.h): what every split step of a
//                 two-thread graph pays on top of its work;
//   region        the same call outside a team: one OpenMP parallel region
//                 per call, what a step paid before teams.
// A two-thread MobileNetV2 execute makes ~53 such calls (docs/performance.md,
// session 23), so team - pingpong, times 53, is what the protocol itself
// adds to an execute. Only the ratios to pingpong mean anything on a shared
// machine; bench/run_bench.sh runs this beside the model benchmarks.
#include <benchmark/benchmark.h>
#include <pthreadpool.h>

#include <atomic>
#include <cstddef>
#include <thread>

#include "common/cpu_relax.h"
#include "threads/team.h"
#include "threads/threadpool.h"

namespace {

using openhtp::cpu_relax;

void BM_PingPong(benchmark::State& state) {
  alignas(64) std::atomic<uint64_t> word{0};
  std::atomic<bool> stop{false};
  std::thread other([&] {
    // Answers each odd value with the next even one until told to stop.
    for (uint64_t seen = 0; !stop.load(std::memory_order_relaxed);) {
      const uint64_t v = word.load(std::memory_order_acquire);
      if (v != seen && (v & 1) != 0) {
        word.store(v + 1, std::memory_order_release);
        seen = v + 1;
      } else {
        cpu_relax();
      }
    }
  });
  uint64_t v = 0;
  for (auto _ : state) {
    word.store(++v, std::memory_order_release);
    while (word.load(std::memory_order_acquire) != v + 1) cpu_relax();
    ++v;
  }
  stop.store(true);
  other.join();
}

void empty_share(void* counter, size_t) { benchmark::DoNotOptimize(counter); }

void BM_TeamDispatch(benchmark::State& state) {
  pthreadpool_t pool = openhtp::threads::create_pool(2);
  int counter = 0;
  auto body = [&] {
    for (auto _ : state) pthreadpool_parallelize_1d(pool, empty_share, &counter, 2, 0);
  };
  openhtp::threads::run_with_team(pool, body);
  openhtp::threads::destroy_pool(pool);
}

void BM_RegionDispatch(benchmark::State& state) {
  pthreadpool_t pool = openhtp::threads::create_pool(2);
  int counter = 0;
  for (auto _ : state) pthreadpool_parallelize_1d(pool, empty_share, &counter, 2, 0);
  openhtp::threads::destroy_pool(pool);
}

// Real time: the work is spread over two threads, and the waits are the cost.
BENCHMARK(BM_PingPong)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_TeamDispatch)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_RegionDispatch)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace
