#include "threads/cpu_preference.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <limits>

#include "common/cpu_mask.h"
#include "common/env_switch.h"
#include "common/interval_clock.h"
#include "common/log.h"

namespace openhtp::threads {
namespace {

// The execute path's clock (common/interval_clock.h: rdtsc where the TSC is
// invariant), as nanoseconds; only differences mean anything.
uint64_t now_ns() { return interval_ns(interval_ticks()); }

}  // namespace

bool cpu_preference_enabled() {
  static const bool on = env_switch_on("OPENHTP_CPU_PREFERENCE");
  return on;
}

CpuPreference::CpuPreference(CpuPreferenceTuning tuning, int cpus) : t_(tuning) {
  if (cpus <= 0) cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_CONF));
  cpus = std::clamp(cpus, 1, CPU_SETSIZE);
  est_.resize(static_cast<size_t>(cpus));
  allowed_.reserve(static_cast<size_t>(cpus));
}

bool move_calling_thread_to(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0 || !CPU_ISSET(cpu, &mask)) return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  // Setting a one-CPU mask migrates the thread before the call returns;
  // putting the old mask back then leaves it running there, free to move.
  if (sched_setaffinity(0, sizeof one, &one) != 0) return false;
  if (sched_setaffinity(0, sizeof mask, &mask) != 0 && sched_setaffinity(0, sizeof mask, &mask) != 0) {
    // Not seen; but a thread left pinned would be a silent slowdown.
    log(LogLevel::kWarn, "threads", "cpu preference: could not restore the thread's CPU mask after moving it to CPU %d",
        cpu);
  }
  return true;
}

bool CpuPreference::current(int cpu, uint64_t now_ns) const {
  return cpu >= 0 && static_cast<size_t>(cpu) < est_.size() && est_[cpu].ns != 0 &&
         now_ns - est_[cpu].at <= t_.stale_ns;
}

bool CpuPreference::would_sample(uint64_t start_ns) const {
  // The first execute, and the first after executes back to back gave way
  // to idle, ran on cold caches and cores still ramping up: not what this
  // CPU does. Executes that always come after idle (a graph run once a
  // camera frame) are alike in that, and are compared as they are.
  if (last_end_ == 0) return false;
  const bool after_idle = start_ns - last_end_ > t_.idle_gap_ns;
  return !after_idle || last_after_idle_;
}

uint64_t CpuPreference::estimate(int cpu) const {
  return cpu >= 0 && static_cast<size_t>(cpu) < est_.size() ? est_[cpu].ns : 0;
}

int CpuPreference::choose(int cpu, uint64_t now_ns, std::span<const int> allowed) {
  // Measured here first; and after a bounce, no moves for a while.
  if (!current(cpu, now_ns) || now_ns < quiet_until_) return -1;
  const uint64_t here = est_[cpu].ns;
  int best = -1;
  uint64_t best_ns = here;
  for (int c : allowed) {
    if (c != cpu && current(c, now_ns) && est_[c].ns < best_ns) {
      best = c;
      best_ns = est_[c].ns;
    }
  }
  if (best >= 0) {
    const uint64_t gain = here - best_ns;
    if (gain >= t_.min_gain_ns && static_cast<double>(gain) >= t_.min_gain_fraction * static_cast<double>(here)) {
      return best;
    }
  }
  // Try the CPU whose average is oldest (or missing), now and then; not
  // on an execute that would be no sample there.
  if (here < t_.explore_min_ns || !would_sample(now_ns) ||
      (explored_once_ && now_ns - last_explore_ < t_.explore_period_ns)) {
    return -1;
  }
  int pick = -1;
  uint64_t oldest = std::numeric_limits<uint64_t>::max();
  for (int c : allowed) {
    if (c == cpu || current(c, now_ns)) continue;
    const uint64_t at = static_cast<size_t>(c) < est_.size() ? est_[c].at : 0;
    if (at < oldest) {
      oldest = at;
      pick = c;
    }
  }
  if (pick < 0) return -1;
  last_explore_ = now_ns;
  explored_once_ = true;
  ++explorations_;
  return pick;
}

void CpuPreference::record(int cpu, int ended_on, uint64_t start_ns, uint64_t end_ns, bool yielded) {
  const bool sample = would_sample(start_ns);
  // The very first execute counts as neither: the one after it is a
  // sample only back to back.
  last_after_idle_ = last_end_ != 0 && start_ns - last_end_ > t_.idle_gap_ns;
  last_end_ = end_ns;
  if (moved_to_ >= 0) {
    if (ended_on != moved_to_) {
      // The kernel took the thread off the CPU it was moved to: that one
      // was busy. Back off, longer while it keeps happening.
      bounces_ = std::min<uint32_t>(bounces_ + 1, 5);
      quiet_until_ = end_ns + (t_.backoff_ns << (bounces_ - 1));
      log(LogLevel::kDebug, "threads", "cpu preference: moved to CPU %d, ended on %d: no moves for %llu ms", moved_to_,
          ended_on, static_cast<unsigned long long>((t_.backoff_ns << (bounces_ - 1)) / 1000000));
    } else {
      bounces_ = 0;
    }
    moved_to_ = -1;
  }
  if (yielded || cpu < 0 || ended_on != cpu || !sample || end_ns < start_ns) return;
  const uint64_t ns = std::max<uint64_t>(end_ns - start_ns, 1);
  short_ = ns < t_.short_ns;
  if (static_cast<size_t>(cpu) >= est_.size()) return;  // not a CPU this machine had at prepare
  Estimate& e = est_[cpu];
  // A stale average starts over: the speeds may have swapped since.
  e.ns = e.ns == 0 || end_ns - e.at > t_.stale_ns ? ns : (3 * e.ns + ns) / 4;
  e.at = end_ns;
}

void CpuPreference::moved(int cpu) { moved_to_ = cpu; }

const std::vector<int>& CpuPreference::allowed(uint64_t now_ns) {
  // Read again now and then: a cgroup or the client may change the mask.
  if (!allowed_read_ || now_ns - allowed_at_ > t_.explore_period_ns) {
    calling_thread_cpus(&allowed_, est_.size());  // within the capacity reserved at construction
    allowed_at_ = now_ns;
    allowed_read_ = true;
  }
  return allowed_;
}

CpuPreference::Probe CpuPreference::begin() {
  Probe p;
  if (short_ && ++skipped_ % t_.short_sample_every != 0) return p;
  p.active = true;
  p.cpu = sched_getcpu();
  uint64_t now = now_ns();
  // choose() asks this first too; asked here, the mask is not read for an
  // execute that could not move.
  if (current(p.cpu, now) && now >= quiet_until_) {
    const std::vector<int>& cpus = allowed(now);
    if (cpus.size() > 1) {
      const int to = choose(p.cpu, now, cpus);
      if (to >= 0) {
        if (move_calling_thread_to(to)) {
          if (log_enabled(LogLevel::kDebug)) {
            log(LogLevel::kDebug, "threads", "cpu preference: CPU %d -> %d (%.3f ms there%s, %.3f here)", p.cpu, to,
                static_cast<double>(estimate(to)) * 1e-6, current(to, now) ? "" : ", stale or none",
                static_cast<double>(estimate(p.cpu)) * 1e-6);
          }
          p.cpu = to;
          moved(to);
          now = now_ns();
        } else {
          allowed_read_ = false;  // the mask changed: read it again next time
          if (static_cast<size_t>(to) < est_.size()) est_[to] = Estimate{};
        }
      }
    }
  }
  p.start_ns = now;
  return p;
}

void CpuPreference::end(const Probe& probe, bool yielded) {
  if (!probe.active) return;
  record(probe.cpu, sched_getcpu(), probe.start_ns, now_ns(), yielded);
}

}  // namespace openhtp::threads
