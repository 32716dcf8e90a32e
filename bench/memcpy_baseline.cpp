// Baseline: what one memcpy of a large tensor costs on this machine. A
// client-buffer execute must copy its inputs into the transport buffer and
// its outputs back; the best it can do is run those copies at memcpy speed,
// so its achieved copy bandwidth is judged against this.
//
// Two variants: the plain one copies the same 16 MiB pair every time (32 MiB
// in use, so part of it may stay in the last-level cache), the "cold" one
// rotates over four pairs (128 MiB) so every copy streams from DRAM. A
// client-buffer execute touches 64 MiB per call (client in/out, transport
// in/out), so its copies land between the two.
#include <vector>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <benchmark/benchmark.h>

#include "bench_registry.h"
#include "bench_stats.h"

namespace bench {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

void BM_Memcpy(benchmark::State& state, size_t bytes, int pairs) {
  // Page-aligned like the transport buffer and rpcmem allocations, and
  // written once so that page faults stay out of the timed loop (the execute
  // benchmarks also warm their buffers up before timing).
  std::vector<std::unique_ptr<void, FreeDeleter>> src, dst;
  for (int i = 0; i < pairs; ++i) {
    src.emplace_back(std::aligned_alloc(4096, bytes));
    dst.emplace_back(std::aligned_alloc(4096, bytes));
    if (!src.back() || !dst.back()) {
      state.SkipWithError("allocation failed");
      return;
    }
    std::memset(src.back().get(), 0x5a, bytes);
    std::memset(dst.back().get(), 0, bytes);
  }
  // A 16 MiB copy takes ~1 ms, so reading the clock around each one costs
  // nothing measurable and gives the median copy (see bench_stats.h).
  Samples ns(state.max_iterations);
  size_t i = 0;
  for (auto _ : state) {
    void* d = dst[i].get();
    const void* s = src[i].get();
    i = (i + 1) % static_cast<size_t>(pairs);
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(d, s, bytes);
    benchmark::DoNotOptimize(d);
    benchmark::ClobberMemory();
    ns.add(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  if (!ns.empty()) state.counters["p50_bytes_per_second"] = static_cast<double>(bytes) / (ns.median() * 1e-9);
}

}  // namespace

void register_memcpy_baseline() {
  with_min(benchmark::RegisterBenchmark("BM_Memcpy/16MiB", BM_Memcpy, size_t{16} << 20, 1))
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  with_min(benchmark::RegisterBenchmark("BM_Memcpy/16MiB/cold", BM_Memcpy, size_t{16} << 20, 4))
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
