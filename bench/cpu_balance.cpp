// bench_cpu_balance: whether this machine's CPUs are equally fast, and what
// that allows two threads. The same work runs pinned to each allowed CPU in
// turn, interleaved over rounds:
//   memory   a pass over a 4 MiB map (read, multiply-add, write), the shape
//            of a convolution's epilogue or a depthwise layer: it lives in
//            the last-level cache, as a graph's maps do between nodes;
//   compute  a chain of fused multiply-adds in registers.
// Then both CPUs run the memory pass at once, one copy each, to show what
// sharing the cache and memory costs; then the pass over ONE map split in
// halves, each CPU its own half, written by itself first — what a
// memory-bound node split over two threads gets at best — against the whole
// map on each CPU alone; and a cache line bounced between the two CPUs
// (the round trip a thread team's handoff costs).
//
// Why the last two: what a split gets on memory-bound work is measured here,
// not inferred from one CPU at a time; and the host moves the two vCPUs
// between a near placement (the line's round trip ~200 ns) and a far one
// (600-800 ns) within minutes, which moves the cost of every handoff
// between a graph's threads (docs/performance.md, "Session 12"). Read a
// run's two-thread figures against what is printed here.
//
// Why: on a shared host the vCPUs are not equally fast, and which one is
// slower changes with the host's load. On the VMs this project is measured
// on, a graph's slabs ran 15-25 % slower on one of the two vCPUs wherever
// the graph's threads were placed, CPU 0 in one hour and CPU 1 in the next
// (docs/performance.md, "Session 11"); in that second hour this pass was
// 1.6-2.4x slower alone on CPU 1 and 1.2-1.6x with both running. A split into
// equal shares finishes when the slower CPU does, so two threads are at most
// 2 x fast / slow as fast as one thread on the faster CPU; read
// bench_onnx_models' two-thread figures against the ratios printed here,
// taken in the same hour. The pass overstates a graph's share of the
// effect: a graph's nodes are not all memory-bound.
//   bench_cpu_balance [rounds]   (default 100)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "affinity.h"

namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr size_t kMapFloats = 4 * 1024 * 1024 / sizeof(float);

__attribute__((noinline)) void memory_pass(const float* a, float* b, size_t n, float k) {
  for (size_t i = 0; i < n; ++i) b[i] = a[i] * k + b[i];
}

__attribute__((noinline)) float compute_chain(size_t steps, float seed) {
  float lane[16];
  for (int k = 0; k < 16; ++k) lane[k] = seed + static_cast<float>(k) * 1e-3f;
  for (size_t i = 0; i < steps; ++i) {
    for (int k = 0; k < 16; ++k) lane[k] = lane[k] * 0.9999999f + 1e-7f;
    asm volatile("" : : "r"(lane) : "memory");  // keeps every step: the result is not computed at build time
  }
  float s = 0;
  for (float v : lane) s += v;
  return s;
}

// One timed memory pass on the calling thread (already pinned), both buffers
// written by this thread first so that they sit in this CPU's caches, not
// the other's (the bench_cache_locality effect). With a gate, the pass
// starts once `parties` threads have written theirs, so that they overlap;
// [lo, hi) limits it to one part of the map (the halves).
double timed_memory(std::vector<float>& a, std::vector<float>& b, int round, std::atomic<int>* gate = nullptr,
                    int parties = 0, size_t lo = 0, size_t hi = SIZE_MAX) {
  hi = std::min(hi, a.size());  // [lo, hi): the part of the map this thread passes over
  for (size_t i = lo; i < hi; ++i) {
    a[i] = static_cast<float>((i + round) & 15);
    b[i] = static_cast<float>(i & 7);
  }
  if (gate != nullptr) {
    gate->fetch_add(1);
    while (gate->load() < parties) {
    }
  }
  const double t0 = now_us();
  memory_pass(a.data() + lo, b.data() + lo, hi - lo, 1.0001f);
  return now_us() - t0;
}

// Mean round trip of one cache line between the calling thread (pinned) and
// a thread pinned to `other`, in ns: each side waits for the other's count.
double line_round_trip_ns(int other) {
  constexpr int kTrips = 20000;
  alignas(64) std::atomic<int> ball{0};
  std::thread peer([&] {
    const bench::ScopedPin pin({0}, other);
    for (int i = 0; i < kTrips; ++i) {
      while (ball.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      ball.store(2 * i + 2, std::memory_order_release);
    }
  });
  const double t0 = now_us();
  for (int i = 0; i < kTrips; ++i) {
    ball.store(2 * i + 1, std::memory_order_release);
    while (ball.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  const double t = now_us() - t0;
  peer.join();
  return t * 1000.0 / kTrips;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 100;
  const int cpu[2] = {bench::allowed_cpu(0), bench::allowed_cpu(1)};
  if (cpu[1] < 0) {
    std::printf("bench_cpu_balance: fewer than two allowed CPUs, nothing to compare\n");
    return 0;
  }
  std::vector<float> a(kMapFloats), b(kMapFloats, 0.0f), a2(kMapFloats), b2(kMapFloats, 0.0f);
  std::vector<double> mem[2], cmp[2], both[2], halves, trips;
  volatile float sink = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int c = 0; c < 2; ++c) {
      const int which = (r + c) % 2;  // alternate which CPU goes first
      const bench::ScopedPin pin({0}, cpu[which]);
      if (!pin.ok()) {
        std::printf("bench_cpu_balance: cannot pin to CPU %d\n", cpu[which]);
        return 1;
      }
      mem[which].push_back(timed_memory(a, b, r));
      const double t0 = now_us();
      sink = sink + compute_chain(20000, 1.0f + static_cast<float>(r & 1));
      cmp[which].push_back(now_us() - t0);
    }
    // Both at once: one thread per CPU, each on its own map.
    double t[2] = {};
    std::atomic<int> gate{0};
    std::thread other([&] {
      const bench::ScopedPin pin({0}, cpu[1]);
      t[1] = timed_memory(a2, b2, r, &gate, 2);
    });
    {
      const bench::ScopedPin pin({0}, cpu[0]);
      t[0] = timed_memory(a, b, r, &gate, 2);
    }
    other.join();
    both[0].push_back(t[0]);
    both[1].push_back(t[1]);
    // One map in halves, each CPU its own; the split ends with the later half.
    std::atomic<int> half_gate{0};
    double h[2] = {};
    std::thread second([&] {
      const bench::ScopedPin pin({0}, cpu[1]);
      h[1] = timed_memory(a, b, r, &half_gate, 2, a.size() / 2, a.size());
    });
    {
      const bench::ScopedPin pin({0}, cpu[0]);
      h[0] = timed_memory(a, b, r, &half_gate, 2, 0, a.size() / 2);
    }
    second.join();
    halves.push_back(std::max(h[0], h[1]));
    if (r % 10 == 0) {
      const bench::ScopedPin pin({0}, cpu[0]);
      trips.push_back(line_round_trip_ns(cpu[1]));
    }
  }
  (void)sink;
  std::printf("bench_cpu_balance: medians of %d interleaved rounds, us\n", rounds);
  std::printf("  %-28s %8s %-2d %7s %-2d %8s\n", "", "CPU", cpu[0], "CPU", cpu[1], "ratio");
  const auto line = [](const char* what, const std::vector<double>& x, const std::vector<double>& y) {
    const double m0 = median(x), m1 = median(y);
    std::printf("  %-28s %10.1f %10.1f %8.2f\n", what, m0, m1, std::max(m0, m1) / std::min(m0, m1));
    return std::max(m0, m1) / std::min(m0, m1);
  };
  const double mem_ratio = line("memory pass, alone", mem[0], mem[1]);
  line("compute chain, alone", cmp[0], cmp[1]);
  line("memory pass, both at once", both[0], both[1]);
  const double fast_alone = std::min(median(mem[0]), median(mem[1])), split = median(halves);
  std::printf("  %-28s %10.1f\n", "memory pass, halves on both", split);
  std::printf("  %-28s %10.0f ns\n", "cache line round trip", median(trips));
  std::printf("  CPUs %d and %d; slower / faster on the memory pass %.2f: two threads in equal shares are at\n"
              "  most %.2fx one thread on the faster CPU, %.2fx with shares matched to speed\n",
              cpu[0], cpu[1], mem_ratio, 2.0 / mem_ratio, 1.0 + 1.0 / mem_ratio);
  std::printf("  a memory-bound step split over the two CPUs: %.2fx the faster CPU alone (halves, measured)\n",
              fast_alone / split);
  return 0;
}
