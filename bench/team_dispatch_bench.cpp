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
//   chained       the same calls in threes as a MobileNetV2 block runs them
//                 with chained steps (htp/share_chain.h): the first two left
//                 unjoined (threads/team.h UnjoinedShares), the third joined;
//                 per call.
//   *_work        team and chained with ~4 us of work a share, one thread's
//                 share 0-50 % longer than the other's, drawn per call: what
//                 a barrier costs on top of the slowest share, and what
//                 leaving two of three calls unjoined gives back.
// A two-thread MobileNetV2 execute makes ~53 such calls (docs/performance.md,
// session 23), so team - pingpong, times 53, is what the protocol itself
// adds to an execute. Only the ratios to pingpong mean anything on a shared
// machine; bench/run_bench.sh runs this beside the model benchmarks.
#include <benchmark/benchmark.h>
#include <pthreadpool.h>

#include <atomic>
#include <chrono>
#include <optional>
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

void BM_ChainedDispatch(benchmark::State& state) {
  pthreadpool_t pool = openhtp::threads::create_pool(2);
  int counter = 0;
  auto body = [&] {
    for (auto _ : state) {
      for (int k = 0; k < 2; ++k) {
        const openhtp::threads::UnjoinedShares unjoined;
        pthreadpool_parallelize_1d(pool, empty_share, &counter, 2, 0);
      }
      pthreadpool_parallelize_1d(pool, empty_share, &counter, 2, 0);
    }
  };
  openhtp::threads::run_with_team(pool, body);
  openhtp::threads::destroy_pool(pool);
  state.SetItemsProcessed(state.iterations() * 3);
}

// Busy work of `ns` nanoseconds on the calling thread.
void spin_for(uint64_t ns) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < end) cpu_relax();
}
// Per call: ~4 us for each share, one of the two (drawn) up to 50 % longer.
// `call` changes only after a joined call, so no share reads it mid-change.
struct Work {
  uint64_t call = 0;
};
void work_share(void* context, size_t t) {
  const uint64_t call = static_cast<const Work*>(context)->call;
  const uint64_t h = (call + reinterpret_cast<uintptr_t>(context) + 1) * 0x9E3779B97F4A7C15ull;
  const size_t slow = (h >> 63) & 1;
  const uint64_t extra = (h >> 32) % 2000;  // 0-2 us on top of 4
  spin_for(4000 + (t == slow ? extra : 0));
}
void run_work(benchmark::State& state, bool chained) {
  pthreadpool_t pool = openhtp::threads::create_pool(2);
  Work work[3];
  auto body = [&] {
    for (auto _ : state) {
      for (int k = 0; k < 3; ++k) {
        std::optional<openhtp::threads::UnjoinedShares> unjoined;
        if (chained && k < 2) unjoined.emplace();
        pthreadpool_parallelize_1d(pool, work_share, &work[k], 2, 0);
      }
      for (Work& w : work) w.call = w.call * 3 + 1;  // after the joined third call
    }
  };
  openhtp::threads::run_with_team(pool, body);
  openhtp::threads::destroy_pool(pool);
  state.SetItemsProcessed(state.iterations() * 3);
}
void BM_TeamDispatch_work(benchmark::State& state) { run_work(state, false); }
void BM_ChainedDispatch_work(benchmark::State& state) { run_work(state, true); }

void BM_RegionDispatch(benchmark::State& state) {
  pthreadpool_t pool = openhtp::threads::create_pool(2);
  int counter = 0;
  for (auto _ : state) pthreadpool_parallelize_1d(pool, empty_share, &counter, 2, 0);
  openhtp::threads::destroy_pool(pool);
}

// Real time: the work is spread over two threads, and the waits are the cost.
BENCHMARK(BM_PingPong)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_TeamDispatch)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_ChainedDispatch)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_TeamDispatch_work)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_ChainedDispatch_work)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_RegionDispatch)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace
