#include "htp/thread_clocks.h"

#include <unistd.h>

#include <ctime>
#include <utility>

namespace openhtp::htp {

namespace {

// The kernel's encoding of another thread's CPU clock (what
// pthread_getcpuclockid returns): ~tid << 3 | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED.
clockid_t cpu_clock_of(pid_t tid) { return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6u); }

}  // namespace

void ThreadClocks::set_threads(std::vector<pid_t> tids) {
  if (tids == tids_) return;
  tids_ = std::move(tids);
  last_.assign(tids_.size(), 0);
}

void ThreadClocks::read(std::vector<uint64_t>* ns, bool self_last) {
  ns->resize(tids_.size());
  const pid_t self = static_cast<pid_t>(gettid());
  auto read_one = [&](size_t i) {
    timespec ts{};
    if (tids_[i] != 0 && clock_gettime(cpu_clock_of(tids_[i]), &ts) == 0) {
      last_[i] = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
    }
    (*ns)[i] = last_[i];
  };
  size_t mine = tids_.size();
  for (size_t i = 0; i < tids_.size(); ++i) {
    if (tids_[i] == self) mine = i;
  }
  if (!self_last && mine < tids_.size()) read_one(mine);
  for (size_t i = 0; i < tids_.size(); ++i) {
    if (i != mine) read_one(i);
  }
  if (self_last && mine < tids_.size()) read_one(mine);
}

}  // namespace openhtp::htp
