#include "common/cpu_mask.h"

#include <sched.h>

#include <algorithm>

namespace openhtp {

void calling_thread_cpus(std::vector<int>* cpus, size_t limit) {
  const int end = static_cast<int>(std::min<size_t>(limit, CPU_SETSIZE));
  cpus->clear();
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  for (int c = 0; c < end; ++c) {
    if (CPU_ISSET(c, &set)) cpus->push_back(c);
  }
}

std::vector<int> calling_thread_cpus() {
  std::vector<int> cpus;
  calling_thread_cpus(&cpus, CPU_SETSIZE);
  return cpus;
}

bool set_calling_thread_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

}  // namespace openhtp
