#include "common/interval_clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace openhtp {
namespace interval_clock_detail {

bool use_tsc() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __cpuid(0x80000007u, a, b, c, d);
  return (d & (1u << 8)) != 0;  // invariant TSC
#else
  return false;
#endif
}

namespace {

#if defined(__x86_64__)
// One steady_clock reading and the TSC at the same instant: the clock read
// between two TSC reads, the narrowest bracket of a few (a preemption
// between the reads widens it by a time slice, and a rate taken from such
// an endpoint would be off by that slice over the 2 ms: under a loaded
// CI, a 4 ms slice would make every DSP time a third of the truth).
struct Pair {
  std::chrono::steady_clock::time_point at;
  double tsc = 0;
};

Pair read_pair() {
  Pair best;
  uint64_t best_width = ~uint64_t{0};
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = __rdtsc();
    const auto at = std::chrono::steady_clock::now();
    const uint64_t after = __rdtsc();
    if (after >= before && after - before < best_width) {
      best_width = after - before;
      best.at = at;
      best.tsc = static_cast<double>(before) + static_cast<double>(after - before) / 2;
    }
  }
  return best;
}

// TSC cycles per nanosecond, measured over ~2 ms of steady_clock time.
double measure_ticks_per_ns() {
  const Pair p0 = read_pair();
  while (std::chrono::steady_clock::now() - p0.at < std::chrono::milliseconds(2)) {
  }
  const Pair p1 = read_pair();
  const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(p1.at - p0.at).count());
  const double rate = ns > 0 ? (p1.tsc - p0.tsc) / ns : 0;
  return rate > 0 ? rate : 1.0;
}
#endif

}  // namespace
}  // namespace interval_clock_detail

uint64_t interval_ns(uint64_t ticks) {
#if defined(__x86_64__)
  static const bool tsc = interval_clock_detail::use_tsc();
  if (tsc) {
    static const double ns_per_tick = 1.0 / interval_clock_detail::measure_ticks_per_ns();  // a multiply per call
    return static_cast<uint64_t>(static_cast<double>(ticks) * ns_per_tick);
  }
#endif
  return ticks;
}

}  // namespace openhtp
