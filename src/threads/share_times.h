// Who spent a graph step's time, for node profiling: while the executing
// thread has a ShareTimes installed (ScopedShareTimes), each thread that runs
// a share of a parallelize call — in a team (team.h) or in a parallel region
// of its own (openmp_pthreadpool.cpp) — adds that share's wall time to its
// slot, and the executing thread adds what it waited for the others.
//
// Why the threads time themselves: the step boundaries used to read every
// thread's CPU clock (htp/thread_clocks.h), and another thread's CPU clock is
// a system call, ~1.5 us on these VMs (page-table isolation), four or more
// around each step. DETAILED profiling made MobileNetV2 uint8's execute 1.05
// -> 1.72 ms at two threads, 1.60 -> 2.03 at one, and its nodes' own times
// 5-10 % longer (docs/performance.md, "Session 23"). The threads read the
// execute path's interval clock instead (common/interval_clock.h: the TSC,
// ~10 ns), two reads a share, only while profiling; slots hold its ticks,
// which interval_ns() turns into nanoseconds.
//
// What a slot counts: wall time inside the share, so a thread preempted in
// the middle of one counts the preemption; a spinning or sleeping wait for
// the next share does not count.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openhtp::threads {

// Threads beyond this many in one team are not timed (their shares run as
// usual).
inline constexpr size_t kMaxTimedThreads = 16;

struct ShareTimes {
  struct alignas(64) Slot {  // one cache line each: every thread writes only its own
    uint64_t ticks = 0;
  };
  Slot busy[kMaxTimedThreads];     // by thread number in the team or region (0: the executing thread)
  uint64_t caller_wait_ticks = 0;  // the executing thread's wait for the other threads' shares
};

// Installs `times` on the calling thread for its life (the one before it
// back after), so the parallelize calls this thread makes are timed into it.
class ScopedShareTimes {
 public:
  explicit ScopedShareTimes(ShareTimes* times);
  ~ScopedShareTimes();
  ScopedShareTimes(const ScopedShareTimes&) = delete;
  ScopedShareTimes& operator=(const ScopedShareTimes&) = delete;

 private:
  ShareTimes* saved_;
};

// The calling thread's installed ShareTimes; null when none.
ShareTimes* installed_share_times();

}  // namespace openhtp::threads
