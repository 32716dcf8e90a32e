#include "affinity.h"

#include <dirent.h>

#include <cstdlib>
#include <string>

namespace bench {

std::vector<pid_t> threads_of(pid_t pid) {
  std::vector<pid_t> tids;
  if (pid <= 0) return tids;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return tids;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') tids.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  closedir(d);
  return tids;
}

int allowed_cpu(int index) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &mine) && index-- == 0) return cpu;
  }
  return -1;
}

ScopedPin::ScopedPin(const std::vector<pid_t>& tids, int cpu) {
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ok_ = true;
  for (pid_t tid : tids) {
    Saved s{tid, {}};
    if (sched_getaffinity(tid, sizeof s.mask, &s.mask) != 0 || sched_setaffinity(tid, sizeof one, &one) != 0) {
      ok_ = false;  // e.g. the thread exited meanwhile
      continue;
    }
    saved_.push_back(s);
  }
}

ScopedPin::~ScopedPin() {
  for (const Saved& s : saved_) sched_setaffinity(s.tid, sizeof s.mask, &s.mask);
}

}  // namespace bench
