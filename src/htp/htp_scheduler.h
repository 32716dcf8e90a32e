// Who runs on the emulated HTP (docs/design.md §4). One HTP runs one graph at
// a time (its kernels may use several threads); the executes waiting for it
// are served by priority (QNN's levels, LOW 0 … CRITICAL_PLUS 500), first
// come first served within a level. A higher-priority execute preempts a
// running lower-priority one at the next op boundary: the running graph
// calls yield(), which hands the HTP over and returns when the graph's turn
// comes again — before any other execute of its level, since a yielded
// ticket keeps its place in the line.
//
// Two executes that use one spill-fill region (graphs of one context, a
// spill-fill group, contexts sharing an external buffer) never preempt each
// other, and while one of them is paused the other does not start: a paused
// graph's spilled activations are still in that region. (Contexts sharing
// buffers have one priority by rule, so this only matters for graph-level
// priorities inside one context.)
//
// Operations that change what a graph may be using — registering memory,
// freeing a graph, resizing a region — take the HTP exclusively: they wait
// until no execute is running or paused, and no new execute starts while
// they wait.
//
// The uncontended path is one compare-and-swap each way, like the mutex it
// replaces; the mutex below is taken only when someone waits.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "htp/call_control.h"

namespace openhtp::htp {

class HtpScheduler {
 public:
  // One execute's claim on the HTP; lives on the executing thread's stack.
  struct Ticket {
    uint32_t priority = 0;
    const void* region = nullptr;  // the execute's spill-fill region (nullptr: none)

   private:
    friend class HtpScheduler;
    uint64_t seq = 0;
    bool granted = false;
    bool paused = false;  // yielded, waiting to resume
    bool admin = false;   // an exclusive() holder
    // Made only when the ticket waits: an uncontended execute, the common
    // case, never does, and need not pay to make and destroy one. A pointer,
    // not an optional: a Ticket is then a few words, set by a few stores
    // (an optional's 48 bytes of storage were cleared with `rep stos`,
    // ~4 ns of every execute on this project's machines).
    std::unique_ptr<std::condition_variable> cv;
  };

  HtpScheduler() = default;
  HtpScheduler(const HtpScheduler&) = delete;
  HtpScheduler& operator=(const HtpScheduler&) = delete;

  // Holds the HTP for `t` if it is free and nobody waits (then `t`'s
  // priority does not matter yet); false otherwise, changing nothing.
  bool try_acquire(Ticket& t) {
    uint32_t idle = 0;
    if (!state_.compare_exchange_strong(idle, kBusy, std::memory_order_acquire)) return false;
    t.granted = true;
    return true;
  }
  // Waits until `t` may run, then holds the HTP for it. With a bounded
  // `control` the wait ends early when it aborts or times out: then `t` was
  // taken out of the line and holds nothing.
  CallControl::Verdict acquire(Ticket& t, const CallControl* control = nullptr);
  void release(Ticket& t);

  // At an op boundary of `running`'s graph: true when a waiting execute
  // would preempt it. One relaxed load when nobody of higher priority waits.
  bool preempt_wanted(const Ticket& running) const {
    return max_waiting_priority_.load(std::memory_order_relaxed) > static_cast<int64_t>(running.priority) &&
           preempt_wanted_slow(running);
  }
  // Hands the HTP to the execute(s) that preempt `running` and returns when
  // `running` holds it again.
  void yield(Ticket& running);

  // Holds the HTP with no execute running or paused.
  class Exclusive {
   public:
    explicit Exclusive(HtpScheduler& s) : s_(s) { s_.acquire_exclusive(t_); }
    ~Exclusive() { s_.release(t_); }
    Exclusive(const Exclusive&) = delete;
    Exclusive& operator=(const Exclusive&) = delete;

   private:
    HtpScheduler& s_;
    Ticket t_;
  };

 private:
  static constexpr uint32_t kBusy = 1;    // the HTP is held
  static constexpr uint32_t kQueued = 2;  // someone waits: releases take the slow path

  void acquire_exclusive(Ticket& t);
  static std::condition_variable& cv_of(Ticket& t) {  // under mu_
    if (!t.cv) t.cv = std::make_unique<std::condition_variable>();
    return *t.cv;
  }
  bool preempt_wanted_slow(const Ticket& running) const;
  // The ticket to run next, or nullptr; mu_ held.
  Ticket* pick_next() const;
  bool conflicts_with_paused(const Ticket& t) const;
  // Gives the free HTP to pick_next() if any; mu_ held.
  void grant_next();
  void update_queue_state();

  std::atomic<uint32_t> state_{0};
  // The highest priority among queued executes that have not yielded; -1
  // when none (read without mu_ by preempt_wanted).
  std::atomic<int64_t> max_waiting_priority_{-1};
  mutable std::mutex mu_;
  std::vector<Ticket*> waiting_;
  uint64_t next_seq_ = 1;
  uint32_t paused_ = 0;
  uint32_t admins_waiting_ = 0;
};

}  // namespace openhtp::htp
