// A caller's bound on one runtime call: QNN's signals (QnnSignal: TIMEOUT and
// ABORT) as the runtime sees them. The abort word may be set by another
// thread — or, over FastRPC, another process: it lives in shared memory —
// while the call runs; the deadline is CLOCK_MONOTONIC, which both processes
// of one machine share. The runtime looks at it while an execute waits for
// the HTP, at every op boundary of a running graph, and between the nodes of
// a prepare; a call stopped this way leaves nothing behind and the session
// usable.
#pragma once

#include <atomic>
#include <cstdint>

namespace openhtp::htp {

struct CallControl {
  enum class Verdict { kGoOn, kAborted, kTimedOut };

  const std::atomic<uint32_t>* abort = nullptr;  // non-zero: abort the call
  int64_t deadline_ns = 0;                       // CLOCK_MONOTONIC; 0: none

  bool bounded() const { return abort != nullptr || deadline_ns != 0; }
  Verdict check() const;
};

int64_t monotonic_now_ns();

}  // namespace openhtp::htp
