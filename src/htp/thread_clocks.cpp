#include "htp/thread_clocks.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

namespace openhtp::htp {

namespace {

// The kernel's encoding of another thread's CPU clock (what
// pthread_getcpuclockid returns): ~tid << 3 | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED.
clockid_t cpu_clock_of(pid_t tid) { return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6u); }

}  // namespace

void ThreadClocks::refresh() {
  auto add = [this](pid_t tid) {
    if (std::find(tids_.begin(), tids_.end(), tid) != tids_.end()) return;
    tids_.push_back(tid);
    last_.push_back(0);
  };
  add(static_cast<pid_t>(gettid()));
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr) return;
  std::vector<pid_t> found;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    found.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  closedir(d);
  std::sort(found.begin(), found.end());
  for (pid_t t : found) add(t);
}

void ThreadClocks::read(std::vector<uint64_t>* ns, bool self_last) {
  ns->resize(tids_.size());
  const pid_t self = static_cast<pid_t>(gettid());
  auto read_one = [&](size_t i) {
    timespec ts{};
    if (clock_gettime(cpu_clock_of(tids_[i]), &ts) == 0) {
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
