// Timestamps for timing short intervals on the execute path (the "DSP time"
// of every execute). A steady_clock read costs ~24 ns on these VMs (vDSO),
// two per execute were a sixth of a tiny in-process execute; rdtsc costs
// ~10 ns. So on x86-64 with an invariant TSC (constant rate, not stopped in
// sleep states: CPUID 80000007h EDX bit 8) ticks are TSC cycles, converted
// with a rate measured once against steady_clock; anywhere else ticks are
// steady_clock nanoseconds. Only differences of ticks mean anything.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace openhtp {

namespace interval_clock_detail {
bool use_tsc();  // decided once
}

inline uint64_t interval_ticks() {
#if defined(__x86_64__)
  static const bool tsc = interval_clock_detail::use_tsc();
  if (tsc) return __rdtsc();
#endif
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Nanoseconds in `ticks` (a difference of two interval_ticks()). The first
// call on a TSC machine calibrates the rate (about 2 ms); call it once early
// (htp::make_runtime does) to keep that off the first execute.
uint64_t interval_ns(uint64_t ticks);

}  // namespace openhtp
