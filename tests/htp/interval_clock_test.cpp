// The execute clock (src/common/interval_clock.h) converts its ticks to real
// nanoseconds: checked against a sleep, which lasts at least what it asks
// for (the bounds are wide on purpose; this is not a timing test).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/interval_clock.h"

TEST(IntervalClock, TicksConvertToRealNanoseconds) {
  const auto s0 = std::chrono::steady_clock::now();
  const uint64_t t0 = openhtp::interval_ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const uint64_t t1 = openhtp::interval_ticks();
  const auto s1 = std::chrono::steady_clock::now();
  ASSERT_GT(t1, t0);
  const double measured = static_cast<double>(openhtp::interval_ns(t1 - t0));
  const double reference = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(s1 - s0).count());
  // The interval clock's span lies inside steady_clock's; a wrong rate (say
  // ticks taken for nanoseconds on a 2 GHz TSC) would be off by 2x or more.
  EXPECT_GT(measured, 0.9 * 30e6);
  EXPECT_LT(measured, 1.1 * reference);
  EXPECT_EQ(openhtp::interval_ns(0), 0u);
}
