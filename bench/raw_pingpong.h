// The fastest round trip two processes can make here through shared memory
// + futex, with no protocol on top: the baseline every execute benchmark is
// a ratio to (bench_execute's BM_RawPingPong, bench_nonrpc's tiny executes).
// It uses the very primitive the FastRPC channel uses (ipc/futex_word.h:
// spin, then FUTEX_WAIT on a shared word), so "remote call / ping-pong"
// isolates what the call protocol, the QNN layer and the skel add to the
// bare wake-up cost.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace bench {

struct PingPongPage;

class RawPingPong {
 public:
  struct Options {
    // Spin budget of both sides, in ns: -1 = the channel's own default
    // (resolved before the fork), 0 = always sleep in FUTEX_WAIT.
    int64_t spins = -1;
    // >= 0: the child moves itself to this CPU (the parent stays where its
    // caller pinned it, if anywhere; the child inherits that otherwise).
    int child_cpu = -1;
    // The child keeps its CPU busy this long before answering, like a DSP
    // running a large kernel, so the waiter outlasts its spin and sleeps.
    int reply_delay_us = 0;
  };

  // Forks the echo child on a fresh shared page; see ok().
  explicit RawPingPong(const Options& options);
  // Stops and reaps the child.
  ~RawPingPong();
  RawPingPong(const RawPingPong&) = delete;
  RawPingPong& operator=(const RawPingPong&) = delete;

  // False (with error()) when the page could not be mapped or fork failed.
  bool ok() const { return child_ > 0; }
  const std::string& error() const { return error_; }
  int64_t spins() const { return spins_; }

  // A few hundred trips, bounded to 20 ms: the child has to be scheduled and
  // fault the page in once (a co-located spinning pair needs ~1 ms a trip).
  void warm_up();
  // One round trip, timed exactly like each graphExecute of the execute
  // benchmarks (steady_clock around the call), so both carry the same
  // clock-read cost and their ratio is fair. In ns.
  double timed_round_trip();

 private:
  void round_trip();

  PingPongPage* page_ = nullptr;
  pid_t child_ = -1;
  int64_t spins_ = 0;
  uint32_t seq_ = 0;
  std::string error_;
};

}  // namespace bench
