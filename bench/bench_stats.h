// Per-call latency samples and their median. The machine these benchmarks run
// on is shared: another process that grabs a core for a few milliseconds
// inflates every call it overlaps, and the mean over a run (what Google
// Benchmark reports as the time) follows those outliers. The median call is
// what an undisturbed call costs as long as fewer than half of the calls were
// disturbed, so every benchmark also reports medians ("p50_*" counters), and
// the summary builds its ratios from them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

namespace bench {

class Samples {
 public:
  explicit Samples(benchmark::IterationCount expected) { v_.reserve(static_cast<size_t>(expected)); }
  void add(double x) { v_.push_back(x); }
  bool empty() const { return v_.empty(); }
  // Median (upper median for an even count); 0 when empty. Reorders samples.
  double median() {
    if (v_.empty()) return 0.0;
    auto mid = v_.begin() + static_cast<std::ptrdiff_t>(v_.size() / 2);
    std::nth_element(v_.begin(), mid, v_.end());
    return *mid;
  }

 private:
  std::vector<double> v_;
};

}  // namespace bench
