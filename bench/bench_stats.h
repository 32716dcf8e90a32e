// Per-call latency samples and their median. The machine these benchmarks run
// on is shared: another process that grabs a core for a few milliseconds
// inflates every call it overlaps, and the mean over a run (what Google
// Benchmark reports as the time) follows those outliers. The median call is
// what an undisturbed call costs as long as fewer than half of the calls were
// disturbed, so every benchmark also reports medians ("p50_*" counters), and
// the summary builds its ratios from them.
//
// Plain C++ (no Google Benchmark): the programs that are not Google
// Benchmarks (bench_nonrpc) use it too.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

class Samples {
 public:
  // `expected`: how many samples to reserve room for (a Google Benchmark
  // State's max_iterations, say), so that add() never allocates mid-run.
  explicit Samples(int64_t expected = 0) { v_.reserve(static_cast<size_t>(std::max<int64_t>(expected, 0))); }
  void add(double x) { v_.push_back(x); }
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  // Median (upper median for an even count); 0 when empty. Reorders samples.
  double median() { return quantile(0.5); }
  // The sample at rank floor(q * count) (q in [0, 1]; 0.5 is the upper
  // median, 0.9 the 90th percentile); 0 when empty. Reorders samples.
  double quantile(double q) {
    if (v_.empty()) return 0.0;
    const size_t rank = std::min(v_.size() - 1, static_cast<size_t>(q * static_cast<double>(v_.size())));
    auto at = v_.begin() + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(v_.begin(), at, v_.end());
    return *at;
  }

 private:
  std::vector<double> v_;
};

}  // namespace bench
