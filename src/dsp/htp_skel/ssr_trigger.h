// Subsystem restart on demand, for clients testing their recovery path (what
// ONNX Runtime's QNN provider had to mock a whole backend for):
//
//   OPENHTP_SSR_AT=<point>:<n>    point: execute | prepare | register
//
// makes the DSP process die (SIGKILL on itself, as a crashed cDSP would) when
// the n-th call of that kind (1-based) arrives, before it runs. The DSP
// counts its own calls: one register per buffer (each descriptor of a
// QnnMem_register), one prepare per graph (docs/user-guide.md says so). Read once by
// the DSP process, which inherits the client's environment; the in-process
// door never consults it. docs/user-guide.md ("Recovering from a DSP crash").
#pragma once

#include <atomic>
#include <cstdint>

namespace openhtp::skel {

enum class SsrPoint { kNone, kExecute, kPrepare, kRegister };

class SsrTrigger {
 public:
  // From OPENHTP_SSR_AT; kNone when unset or malformed (said once on stderr).
  static SsrTrigger& instance();
  // Counts a call of skel method `method` (ipc/htp_protocol.h) at its point;
  // does not return when it is the chosen one. Inline: with no point set
  // (every run but a recovery test) a call costs one load.
  void before_call(uint32_t method) {
    if (point_ != SsrPoint::kNone) count(method);
  }

 private:
  SsrTrigger();
  void count(uint32_t method);
  SsrPoint point_ = SsrPoint::kNone;
  uint64_t nth_ = 0;
  std::atomic<uint64_t> seen_{0};
};

}  // namespace openhtp::skel
