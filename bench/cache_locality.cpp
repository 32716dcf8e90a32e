// bench_cache_locality: what it costs a node to read a tensor the other core
// wrote. A vectorized sum over a buffer, four ways, interleaved over rounds:
//   one     written and read by the calling thread;
//   split   written half by each of two OpenMP threads, read by the caller;
//   same    written by two, read by two, each its own half;
//   swapped written by two, read by two, each the other's half.
// On the 2-vCPU VMs this project runs on, a buffer below the last-level
// cache's size lives in the writer's cache and "split" and "swapped" cost
// about twice "one" (docs/performance.md, session 6): the reason the
// memory-bound nodes after a 2-thread convolution do not get faster with a
// second thread. Ratios matter, not the microseconds.
//   bench_cache_locality [MiB ...]   (default 1 2 4 16)
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Sums [lo, hi) in 16 independent lanes, so it vectorizes without
// reassociating floats.
__attribute__((noinline)) float sum(const float* a, size_t lo, size_t hi) {
  float lane[16] = {};
  size_t i = lo;
  for (; i + 16 <= hi; i += 16) {
    for (int k = 0; k < 16; ++k) lane[k] += a[i + k];
  }
  float s = 0;
  for (int k = 0; k < 16; ++k) s += lane[k];
  for (; i < hi; ++i) s += a[i];
  return s;
}

void write_split(std::vector<float>& a, float v) {
  const size_t n = a.size();
#pragma omp parallel num_threads(2)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    for (size_t i = t * n / 2; i < (t + 1) * n / 2; ++i) a[i] = v + static_cast<float>(i & 7);
  }
}

double read_split(const std::vector<float>& a, bool swapped) {
  const size_t n = a.size();
  float part[2] = {};
  const double t0 = now_us();
#pragma omp parallel num_threads(2)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num()) ^ (swapped ? 1 : 0);
    part[t] = sum(a.data(), t * n / 2, (t + 1) * n / 2);
  }
  const double dt = now_us() - t0;
  volatile float sink = part[0] + part[1];
  (void)sink;
  return dt;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes_mib;
  for (int i = 1; i < argc; ++i) sizes_mib.push_back(static_cast<size_t>(std::atoi(argv[i])));
  if (sizes_mib.empty()) sizes_mib = {1, 2, 4, 16};
  constexpr int kRounds = 200;
  std::printf("%8s %10s %10s %10s %10s   (us, mean of %d rounds)\n", "MiB", "one", "split", "same", "swapped",
              kRounds);
  for (size_t mib : sizes_mib) {
    std::vector<float> a(mib * 1024 * 1024 / sizeof(float), 1.0f);
    double one = 0, split = 0, same = 0, swapped = 0;
    volatile float sink = 0;
    for (int r = 0; r < kRounds; ++r) {
      for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(r) + static_cast<float>(i & 7);
      double t0 = now_us();
      sink = sum(a.data(), 0, a.size());
      one += now_us() - t0;
      write_split(a, static_cast<float>(r));
      t0 = now_us();
      sink = sum(a.data(), 0, a.size());
      split += now_us() - t0;
      write_split(a, static_cast<float>(r));
      same += read_split(a, false);
      write_split(a, static_cast<float>(r));
      swapped += read_split(a, true);
    }
    (void)sink;
    std::printf("%8zu %10.1f %10.1f %10.1f %10.1f\n", mib, one / kRounds, split / kRounds, same / kRounds,
                swapped / kRounds);
  }
  return 0;
}
