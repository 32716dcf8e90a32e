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

// TSC cycles per nanosecond, measured over ~2 ms of steady_clock time.
double measure_ticks_per_ns() {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const uint64_t c0 = interval_ticks();
  auto t1 = t0;
  while (t1 - t0 < std::chrono::milliseconds(2)) t1 = clock::now();
  const uint64_t c1 = interval_ticks();
  const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  const double rate = static_cast<double>(c1 - c0) / ns;
  return rate > 0 ? rate : 1.0;
}

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
