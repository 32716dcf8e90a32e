// The CPU time of every thread of this process, read at a graph's step
// boundaries while DETAILED profiling is on, so that a step's time can be
// told apart by the thread that spent it. The emulator's "HVX threads" are
// whatever threads run the kernels: the executing thread, the graph's
// pthreadpool workers and oneDNN's OpenMP workers; none of them is ours to
// instrument, but Linux lets a process read any of its threads' CPU clocks.
//
// What a figure means: CPU time, so a worker that spin-waits for work (as
// pthreadpool's do, briefly) counts as busy; a sleeping one does not.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace openhtp::htp {

class ThreadClocks {
 public:
  // Lists the process's threads again: the calling thread first (index 0)
  // the first time, then every thread not seen before, appended, so an
  // index keeps meaning the same thread.
  void refresh();
  // Each known thread's CPU time so far, in nanoseconds, by index (a thread
  // that has exited reads as its last value). The calling thread's own
  // clock is read last (`self_last`, before a step) or first (after it), so
  // reading the others' clocks is not counted as the step's work.
  void read(std::vector<uint64_t>* ns, bool self_last);
  size_t size() const { return tids_.size(); }

 private:
  std::vector<pid_t> tids_;
  std::vector<uint64_t> last_;
};

}  // namespace openhtp::htp
