#include "threads/team.h"

#include <omp.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <utility>
#include <vector>

#include "common/cpu_relax.h"
#include "common/env_switch.h"
#include "common/interval_clock.h"
#include "ipc/futex_word.h"
#include "threads/share_times.h"
#include "threads/team_dispatch.h"
#include "threads/threadpool.h"

namespace openhtp::threads {
namespace {

// How long a team thread spins for the next loop before it sleeps: as long
// as libgomp's own workers wait between regions (GOMP_SPINCOUNT=300000,
// openmp_policy.h: 5.5 ms of PAUSEs on this CPU). 0.2 ms let them fall
// asleep in the uint8 LLM decode graph's single-threaded stretches, and
// waking a halted vCPU cost more than the regions saved: 2-thread decoding
// 500 -> 310 tokens/s; at 1 and 5 ms teams were level or ahead. The team
// ends with the execute, so no thread spins past it longer than libgomp's
// would.
constexpr int64_t kSpinNs = 5'000'000;

std::atomic<uint64_t> g_unjoined{0};  // unjoined_dispatches()
std::atomic<uint64_t> g_fenced{0};    // fenced_dispatches()

// The master writes a job into the next slot of a ring, then moves the
// epoch word on to the job's number; each other thread, waiting
// (ipc::futex_wait_change: a bounded spin, then a futex sleep the publisher
// wakes only when someone announced it) for the epoch to move past the last
// job it ran, runs its share of every job up to the epoch, in order, and
// after each stores the job's number in its own `done` line. The master runs
// share 0 and then, for a joined job, waits until every thread's `done`
// reached the epoch; a job left unjoined (UnjoinedShares) returns after the
// master's share, and the others run theirs while the master goes on to the
// next job. A slot is written again only when every thread is done with the
// job it held (kRing jobs back), so no thread can miss or misread a job. A
// fenced job (FencedShares) has each thread, the master included, wait
// before its share until every other thread's `done` reached the job it
// names; the master's own line, done[0], is stored after each of its
// shares for that.
//
// A job's slot holds its share function and, in the same lines, the loop's
// own bytes (its grid and task, copied by value), so a worker's loads of
// them do not wait on each other; each `done` line is written by one thread
// only, so the master's next job is not held behind a store into a line the
// workers last wrote. bench/team_dispatch_bench.cpp measures a dispatch
// against a bare ping-pong (session 24: 0.9-1.1 us against 0.41-0.47).
struct Team {
  // Jobs a master may be ahead of the slowest thread (unjoined ones).
  static constexpr uint32_t kRing = 8;
  struct alignas(64) Slot {
    ShareFn share = nullptr;
    ShareTimes* times = nullptr;  // the master's, when a profiler asks (share_times.h)
    uint32_t after = 0;           // fenced: no share starts before every thread ended this job (0: none)
    alignas(16) unsigned char payload[kTeamJobBytes];
  };
  struct alignas(64) Done {
    std::atomic<uint32_t> job{0};
  };

  // The epoch's line: written by the master, read by the workers.
  struct alignas(64) Head {
    ipc::FutexWord epoch;
    size_t threads = 1;
    bool exit = false;
  } head;
  Slot slots[kRing];
  std::vector<Done> done;  // [thread]; the master's (0) read only by fenced shares
  // The first exception a worker's share threw waits here for the master's
  // next join.
  alignas(64) std::atomic<bool> failed{false};
  std::exception_ptr error;
  // The master's own: the last job it published.
  alignas(64) uint32_t epochs = 0;

  explicit Team(size_t max_threads) : done(max_threads) {}

  void run_share(const Slot& slot, size_t t) {
    try {
      slot.share(const_cast<unsigned char*>(slot.payload), t, head.threads);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
    }
  }
  // run_share, its wall time added to thread t's slot; returns when it ended.
  uint64_t run_timed_share(const Slot& slot, size_t t) {
    const uint64_t start = interval_ticks();
    run_share(slot, t);
    const uint64_t end = interval_ticks();
    if (t < kMaxTimedThreads) slot.times->busy[t].ticks += end - start;
    return end;
  }

  // Spins until every thread but `self` finished job `job` (and so every
  // one before it).
  void wait_others(uint32_t job, size_t self) {
    for (size_t t = 0; t < head.threads; ++t) {
      if (t == self) continue;
      for (uint32_t i = 1; static_cast<int32_t>(done[t].job.load(std::memory_order_acquire) - job) < 0; ++i) {
        cpu_relax();
        if ((i & 4095) == 0) sched_yield();  // a thread that lost its CPU gets it back sooner
      }
    }
  }
  // The master: spins until every worker finished job `job`.
  void wait_done(uint32_t job) { wait_others(job, 0); }

  // Every job published so far done; what a worker's share threw, thrown.
  void join() {
    wait_done(epochs);
    if (failed.load(std::memory_order_acquire)) {
      failed.store(false, std::memory_order_relaxed);
      std::rethrow_exception(std::exchange(error, nullptr));
    }
  }

  // The master: every thread runs share(context, t, threads); returns when
  // all did, or (unjoined) when the master's own share did.
  void dispatch(ShareFn fn, const void* bytes, size_t size, bool joined, uint32_t after) {
    const uint32_t e = epochs + 1;
    if (e > kRing) wait_done(e - kRing);  // the slot's last job is done everywhere
    Slot& slot = slots[e % kRing];
    std::memcpy(slot.payload, bytes, size);
    slot.share = fn;
    slot.times = installed_share_times();
    slot.after = after;
    epochs = e;
    ipc::futex_publish(head.epoch, e);
    if (after != 0) {
      g_fenced.fetch_add(1, std::memory_order_relaxed);
      wait_done(after);
    }
    uint64_t own_end = 0;
    if (slot.times != nullptr) {
      own_end = run_timed_share(slot, 0);
    } else {
      run_share(slot, 0);
    }
    done[0].job.store(e, std::memory_order_release);
    if (!joined) {
      g_unjoined.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    join();
    // The workers' slots were written before their `done` stores, which
    // join() acquired.
    if (slot.times != nullptr) slot.times->caller_wait_ticks += interval_ticks() - own_end;
  }

  // Thread t (> 0) until the master says exit.
  void serve(size_t t) {
    const int64_t spin_ns = omp_get_num_procs() > 1 ? kSpinNs : 0;
    for (uint32_t seen = 0;;) {
      const uint32_t e = ipc::futex_wait_change(head.epoch, seen, spin_ns, 0);
      if (head.exit) return;  // published after a join: no job is pending
      for (; seen != e;) {
        const Slot& slot = slots[++seen % kRing];
        if (slot.after != 0) wait_others(slot.after, t);
        if (slot.times != nullptr) {
          run_timed_share(slot, t);
        } else {
          run_share(slot, t);
        }
        done[t].job.store(seen, std::memory_order_release);
      }
    }
  }

  // Joins what is left unjoined (an exception from it goes to `*error` when
  // that is empty), then lets the workers go.
  void finish(std::exception_ptr* first_error) {
    try {
      join();
    } catch (...) {
      if (!*first_error) *first_error = std::current_exception();
    }
    head.exit = true;
    ipc::futex_publish(head.epoch, epochs + 1);
  }
};

thread_local Team* tl_team = nullptr;
thread_local bool tl_leave_unjoined = false;
thread_local uint32_t tl_fence_after = 0;  // FencedShares' job; 0: none

}  // namespace

bool teams_enabled() {
  static const bool on = env_switch_on("OPENHTP_THREAD_TEAMS");
  return on;
}

void run_with_team(pthreadpool_t pool, void (*body)(void*), void* context) {
  const size_t want = pool_threads(pool);
  if (want <= 1 || tl_team != nullptr || omp_in_parallel() || !teams_enabled()) {
    body(context);
    return;
  }
  Team team(want);
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast<int>(want))
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    if (t == 0) {
      team.head.threads = static_cast<size_t>(omp_get_num_threads());  // OpenMP may give fewer than asked
      // The others read `threads` only after the first epoch, which this
      // thread publishes after writing it.
      tl_team = team.head.threads > 1 ? &team : nullptr;
      try {
        body(context);
      } catch (...) {
        error = std::current_exception();
      }
      tl_team = nullptr;
      tl_leave_unjoined = false;
      tl_fence_after = 0;
      team.finish(&error);
    } else {
      team.serve(t);
    }
  }
  if (error) std::rethrow_exception(error);
}

size_t team_threads() { return tl_team != nullptr ? tl_team->head.threads : 0; }

UnjoinedShares::UnjoinedShares() : active_(tl_team != nullptr) { tl_leave_unjoined = active_; }
UnjoinedShares::~UnjoinedShares() {
  if (active_) tl_leave_unjoined = false;
}

FencedShares::FencedShares(uint32_t after) : active_(tl_team != nullptr) {
  if (active_) tl_fence_after = after;
}
FencedShares::~FencedShares() {
  if (active_) tl_fence_after = 0;
}

void join_team() {
  if (tl_team != nullptr) tl_team->join();
}

uint64_t unjoined_dispatches() { return g_unjoined.load(std::memory_order_relaxed); }
uint64_t fenced_dispatches() { return g_fenced.load(std::memory_order_relaxed); }

uint32_t team_jobs() { return tl_team != nullptr ? tl_team->epochs : 0; }

namespace detail {

bool run_on_team(ShareFn share, const void* job, size_t bytes) {
  Team* team = tl_team;
  // A job larger than the team's lines runs as the caller's own region
  // (the one caller static_asserts that its job fits).
  if (team == nullptr || bytes > kTeamJobBytes) return false;
  // Only the first loop under an UnjoinedShares is left unjoined, and only
  // the first under a FencedShares fenced.
  const bool joined = !std::exchange(tl_leave_unjoined, false);
  const uint32_t after = std::exchange(tl_fence_after, 0);
  team->dispatch(share, job, bytes, joined, after);
  return true;
}

}  // namespace detail

}  // namespace openhtp::threads
