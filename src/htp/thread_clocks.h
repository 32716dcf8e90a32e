// The CPU time of a graph's threads, read around a step whose kernel opens
// OpenMP regions of its own (a oneDNN primitive planned for several
// threads): those threads run oneDNN's code, not ours, so they cannot time
// their own shares as the graph's pool does for every other step
// (threads/share_times.h); Linux lets a process read any of its threads'
// CPU clocks instead. Each read is a system call (~1.5 us on these VMs),
// which is why only those steps pay for it.
//
// What a figure means: CPU time, so a worker that spin-waits for work (as
// OpenMP's do, briefly, at a region's end) counts as busy; a sleeping one
// does not.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace openhtp::htp {

class ThreadClocks {
 public:
  // The threads to read, by thread number (threads::pool_thread_ids: the
  // calling thread first, then its OpenMP workers); 0 entries are skipped.
  void set_threads(std::vector<pid_t> tids);
  // Each thread's CPU time so far, in nanoseconds, by thread number (one
  // that cannot be read, as it exited, reads as its last value). The
  // calling thread's own clock is read last (`self_last`, before a step) or
  // first (after it), so reading the others' clocks is not counted as the
  // step's work.
  void read(std::vector<uint64_t>* ns, bool self_last);
  size_t size() const { return tids_.size(); }

 private:
  std::vector<pid_t> tids_;
  std::vector<uint64_t> last_;
};

}  // namespace openhtp::htp
