// Registration of every benchmark, in the order bench_main runs them:
// baselines first, so the ping-pong child is forked before any QNN session
// (and its DSP process) exists.
#pragma once

#include <algorithm>
#include <vector>

#include <benchmark/benchmark.h>

namespace bench {

void register_pingpong_baseline();
void register_memcpy_baseline();
void register_fastrpc_invoke_benchmark();
void register_execute_benchmarks();
// Frees what the benchmarks set up (registrations, buffers, backends) while
// the libraries are still alive, before static destruction.
void teardown_fastrpc_invoke_benchmark();
void teardown_execute_benchmarks();

// Every benchmark also reports the minimum over repetitions: on a shared,
// noisy machine the fastest repetition is the least disturbed one, and the
// summary can show it next to the median.
inline benchmark::internal::Benchmark* with_min(benchmark::internal::Benchmark* b) {
  return b->ComputeStatistics("min", [](const std::vector<double>& v) -> double {
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
  });
}

}  // namespace bench
