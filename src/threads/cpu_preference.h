// Which CPU a one-thread graph runs fastest on, learned from its own
// executes, and the move of the executing thread there before an execute.
//
// Why: the CPUs of a VM are not equal, and which is slower changes by the
// hour. On this project's two-vCPU machines one ran MobileNetV2 fp32 at
// 4.7-4.95 ms while the other ran it at 3.86-3.96, and minutes later the
// other way round (docs/performance.md, "Session 28"). Linux keeps a woken
// thread on the CPU it last ran on whenever that one is idle, so the DSP
// process's executing thread stayed on the slow vCPU for a whole run while
// the client waiting for it sat on the fast one: ONNX models' one-thread
// executes through FastRPC read 1.08-1.35x the same graph in-process in 8
// of 20 benchmark cells. The kernel cannot see a vCPU's speed; the graph
// can, by timing its executes on each CPU.
//
// The policy, per graph (one instance per graph; its executes are
// serialized, so it takes no lock):
//   - a sample is one execute that started and ended on the same CPU, did
//     not yield, and was not the first after back-to-back executes gave way
//     to idle (the first run after tens of ms of idle is 14-20 % slow while
//     the cores ramp up: that is the idle, not the CPU; executes that all
//     come after idle, one a camera frame, are alike and all count);
//   - each CPU keeps a moving average of its samples, current for
//     `stale_ns` after its last one;
//   - before an execute, the thread moves to the CPU with the best current
//     average when that saves at least `min_gain_fraction` and `min_gain_ns`
//     an execute (a move costs ~50 us on these VMs: an IPI to an idle vCPU);
//   - an allowed CPU with no current average is tried (one execute there)
//     at most once per `explore_period_ns`, for graphs of at least
//     `explore_min_ns`, so the choice keeps up when the speeds swap;
//   - a move is not a pin: the thread's affinity mask is put back at once,
//     and the kernel may move it on. When it does during the execute after
//     a move (the target CPU was busy: another thread took the same
//     decision, or a process runs there), moves stop for `backoff_ns`,
//     doubling up to 16x while it keeps happening, so that a contended
//     machine does not pay a move per execute for nothing.
// Executes shorter than `short_ns` are looked at one in
// `short_sample_every` (a tiny execute is ~130 ns in-process; the probe,
// two reads of the execute path's clock and sched_getcpu, ~25 ns).
//
// OPENHTP_CPU_PREFERENCE=off turns it off (for comparisons).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace openhtp::threads {

struct CpuPreferenceTuning {
  double min_gain_fraction = 0.08;
  uint64_t min_gain_ns = 150'000;
  uint64_t explore_min_ns = 1'000'000;
  uint64_t explore_period_ns = 100'000'000;
  uint64_t stale_ns = 2'000'000'000;
  uint64_t idle_gap_ns = 20'000'000;
  uint64_t backoff_ns = 1'000'000'000;
  uint64_t short_ns = 100'000;
  uint32_t short_sample_every = 64;
};

class CpuPreference {
 public:
  // Sized here for CPUs 0 .. cpus-1 (0: every CPU this machine can have),
  // so that an execute allocates nothing (prepared_graph.h's contract; the
  // Non-RPC domain's heap is the DSP heap). A CPU number beyond is ignored.
  explicit CpuPreference(CpuPreferenceTuning tuning = {}, int cpus = 0);

  // The decision, on plain values: the thread is on `cpu` at `now_ns` and
  // may run on `allowed`; the CPU to move to, or -1 to stay. Counts an
  // exploration when it chooses one.
  int choose(int cpu, uint64_t now_ns, std::span<const int> allowed);
  // One execute on `cpu` from start_ns to end_ns. `ended_on` is the CPU at
  // the end (a different one: the kernel moved the thread, not a sample);
  // `yielded`: it was paused, not a sample either.
  void record(int cpu, int ended_on, uint64_t start_ns, uint64_t end_ns, bool yielded = false);
  // The thread was moved to `cpu` for the next execute (begin() does this
  // when its move succeeds): if that execute ends elsewhere, moves back off.
  void moved(int cpu);
  // The average for `cpu`, ns (0: none).
  uint64_t estimate(int cpu) const;
  uint32_t explorations() const { return explorations_; }

  // On the executing thread, around one execute: begin() may move it.
  struct Probe {
    bool active = false;
    int cpu = -1;
    uint64_t start_ns = 0;
  };
  Probe begin();
  void end(const Probe& probe, bool yielded);

 private:
  struct Estimate {
    uint64_t ns = 0;  // moving average; 0: no sample yet
    uint64_t at = 0;  // when the last sample ended
  };
  bool current(int cpu, uint64_t now_ns) const;
  // Whether an execute starting at start_ns would be a sample (the idle rule).
  bool would_sample(uint64_t start_ns) const;
  const std::vector<int>& allowed(uint64_t now_ns);

  CpuPreferenceTuning t_;
  std::vector<Estimate> est_;  // by CPU number
  uint64_t last_end_ = 0;      // the last execute's end (idle gap)
  bool last_after_idle_ = false;  // the last execute started after idle
  uint64_t last_explore_ = 0;
  bool explored_once_ = false;
  bool short_ = false;         // the last sample was under short_ns
  uint32_t skipped_ = 0;
  // The last move's target until its execute is recorded, then -1.
  int moved_to_ = -1;
  uint64_t quiet_until_ = 0;   // no moves before this (after a bounce)
  uint32_t bounces_ = 0;       // in a row
  uint32_t explorations_ = 0;
  std::vector<int> allowed_;
  uint64_t allowed_at_ = 0;
  bool allowed_read_ = false;
};

// Moves the calling thread to `cpu` and puts its affinity mask back as it
// was, so it is not pinned there. False (nothing changed) when `cpu` is not
// in the mask or the kernel refuses.
bool move_calling_thread_to(int cpu);
// OPENHTP_CPU_PREFERENCE, read once.
bool cpu_preference_enabled();

}  // namespace openhtp::threads
