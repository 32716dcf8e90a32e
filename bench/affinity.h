// Pins threads to chosen CPUs for the length of a scope, to take thread
// placement out of a measurement on purpose:
//   - both sides of a round trip on one CPU reproduces what an oversubscribed
//     machine does by accident, and decides whether spin-then-sleep waiting
//     degrades gracefully (on a 2-core shared machine it happens often);
//   - the two sides on two different CPUs is the placement a round trip is
//     fastest in, so a ratio of two such measurements shows protocol cost
//     rather than scheduling luck.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <vector>

namespace bench {

enum class Placement {
  kFree,       // wherever the scheduler puts things (the product case)
  kSameCpu,    // client and server threads share the first allowed CPU
  kCpusApart,  // client on the first allowed CPU, server on the second
};

// Thread ids of process `pid` (from /proc/<pid>/task); empty on error.
std::vector<pid_t> threads_of(pid_t pid);

// The CPU number of the `index`-th CPU the calling thread may run on, or -1.
int allowed_cpu(int index);

class ScopedPin {
 public:
  // Pins every thread in `tids` (0 = the calling thread) to CPU `cpu`; the
  // destructor restores each thread's previous mask.
  ScopedPin(const std::vector<pid_t>& tids, int cpu);
  ~ScopedPin();
  ScopedPin(const ScopedPin&) = delete;
  ScopedPin& operator=(const ScopedPin&) = delete;

  // False when `cpu` < 0 or some thread could not be pinned.
  bool ok() const { return ok_; }

 private:
  struct Saved {
    pid_t tid;
    cpu_set_t mask;
  };
  std::vector<Saved> saved_;
  bool ok_ = false;
};

}  // namespace bench
