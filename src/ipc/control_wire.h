// A QnnSignal's bound on one call (htp::CallControl), as it crosses to the
// DSP: it lives in the client's rpcmem memory and travels by reference as the
// call's last input buffer, flagged by kAttrControl in the call's scalars, so
// the DSP reads the abort word live while the call runs and the client's
// QnnSignal_trigger reaches a call already in flight. Execute, GraphPrepare
// and ContextLoadBinary take one (src/ipc/htp_protocol.h).
#pragma once

#include <atomic>
#include <cstdint>

namespace openhtp::ipc::htp_wire {

inline constexpr uint32_t kAttrControl = 1;  // a REMOTE_SCALARS_METHOD_ATTR bit

struct ControlWire {
  std::atomic<uint32_t> abort{0};  // set by QnnSignal_trigger while the call runs
  uint32_t reserved = 0;
  int64_t deadline_ns = 0;  // CLOCK_MONOTONIC; 0: none
};
static_assert(sizeof(ControlWire) == 16 && std::atomic<uint32_t>::is_always_lock_free);

}  // namespace openhtp::ipc::htp_wire
