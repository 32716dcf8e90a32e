#include "threads/team.h"

#include <omp.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

#include "common/cpu_relax.h"
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

// The master writes a job, then moves the epoch word on; each other thread,
// waiting (ipc::futex_wait_change: a bounded spin, then a futex sleep the
// publisher wakes only when someone announced it) for the epoch to move past
// the last one it served, runs its share and counts `done` up; the master
// runs share 0 and waits for `done` to reach the count of shares handed out
// before it writes the next job (so no thread can miss an epoch).
//
// The job shares the epoch's cache line, so a worker gets the signal and
// what it says in one line transfer, and the loop's own bytes (its grid and
// task) sit in the team's lines right after it, whose loads do not wait on
// each other; `done` only ever counts up, so the master's next job is not
// held behind a store into the line the workers last wrote.
// bench/team_dispatch_bench.cpp measures a dispatch against a bare
// ping-pong: 0.9-1.1 us against 0.41-0.47 (1.47 us before; session 24).
struct Team {
  // The job's line: written by the master before the epoch moves, read by
  // the workers after.
  struct alignas(64) Job {
    ipc::FutexWord epoch;
    ShareFn share = nullptr;
    void* context = nullptr;
    ShareTimes* times = nullptr;  // the master's, when a profiler asks (share_times.h)
    size_t threads = 1;
    bool exit = false;
  } job;
  // What the share reads: the job's own bytes, copied here by the master
  // (team_dispatch.h run_on_team); job.context points here.
  alignas(64) unsigned char payload[kTeamJobBytes];
  // The workers' line: each counts one share done; the first exception a
  // share threw (a worker's) waits here for the master.
  alignas(64) std::atomic<uint64_t> done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  // The master's own: what it published and how many shares it handed out.
  alignas(64) uint32_t epochs = 0;
  uint64_t handed_out = 0;

  void publish() { ipc::futex_publish(job.epoch, ++epochs); }

  void run_share(size_t t) {
    try {
      job.share(job.context, t, job.threads);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
    }
  }
  // run_share, its wall time added to thread t's slot; returns when it ended.
  uint64_t run_timed_share(size_t t) {
    const uint64_t start = interval_ticks();
    run_share(t);
    const uint64_t end = interval_ticks();
    if (t < kMaxTimedThreads) job.times->busy[t].ticks += end - start;
    return end;
  }

  // The master: every thread runs share(context, t, threads); returns when all did.
  void dispatch(ShareFn fn, const void* bytes, size_t size) {
    std::memcpy(payload, bytes, size);
    job.share = fn;
    job.context = payload;
    job.times = installed_share_times();
    handed_out += job.threads - 1;
    publish();
    uint64_t own_end = 0;
    if (job.times != nullptr) {
      own_end = run_timed_share(0);
    } else {
      run_share(0);
    }
    for (uint32_t i = 1; done.load(std::memory_order_acquire) != handed_out; ++i) {
      cpu_relax();
      if ((i & 4095) == 0) sched_yield();  // a worker that lost its CPU gets it back sooner
    }
    // The workers' slots were written before their `done` increments,
    // which the load above acquired.
    if (job.times != nullptr) job.times->caller_wait_ticks += interval_ticks() - own_end;
    if (failed.load(std::memory_order_acquire)) {
      failed.store(false, std::memory_order_relaxed);
      std::rethrow_exception(std::exchange(error, nullptr));
    }
  }

  // Thread t (> 0) until the master says exit.
  void serve(size_t t) {
    const int64_t spin_ns = omp_get_num_procs() > 1 ? kSpinNs : 0;
    for (uint32_t seen = 0;;) {
      const uint32_t e = ipc::futex_wait_change(job.epoch, seen, spin_ns, 0);
      seen = e;
      if (job.exit) return;
      if (job.times != nullptr) {
        run_timed_share(t);
      } else {
        run_share(t);
      }
      done.fetch_add(1, std::memory_order_release);
    }
  }

  void finish() {
    job.exit = true;
    publish();
  }
};

thread_local Team* tl_team = nullptr;

}  // namespace

bool teams_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("OPENHTP_THREAD_TEAMS");
    return v == nullptr || std::strcmp(v, "off") != 0;
  }();
  return on;
}

void run_with_team(pthreadpool_t pool, void (*body)(void*), void* context) {
  const size_t want = pool_threads(pool);
  if (want <= 1 || tl_team != nullptr || omp_in_parallel() || !teams_enabled()) {
    body(context);
    return;
  }
  Team team;
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast<int>(want))
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    if (t == 0) {
      team.job.threads = static_cast<size_t>(omp_get_num_threads());  // OpenMP may give fewer than asked
      // The others read `threads` only after the first epoch, which this
      // thread publishes after writing it.
      tl_team = team.job.threads > 1 ? &team : nullptr;
      try {
        body(context);
      } catch (...) {
        error = std::current_exception();
      }
      tl_team = nullptr;
      team.finish();
    } else {
      team.serve(t);
    }
  }
  if (error) std::rethrow_exception(error);
}

namespace detail {

bool run_on_team(ShareFn share, const void* job, size_t bytes) {
  Team* team = tl_team;
  // A job larger than the team's lines runs as the caller's own region
  // (the one caller static_asserts that its job fits).
  if (team == nullptr || bytes > kTeamJobBytes) return false;
  team->dispatch(share, job, bytes);
  return true;
}

}  // namespace detail

}  // namespace openhtp::threads
