// QnnSignal: a client's bound on one call (execute, finalize, create from
// binary) — a timeout, and an abort another thread may trigger while the call
// runs. The signal's ControlWire lives in rpcmem memory, so that the FastRPC
// door passes it to the DSP by reference and the runtime there sees an abort
// at the next op boundary (docs/design.md §4, src/ipc/control_wire.h).
//
// QNN's rules: one call at a time per signal (another one is refused with
// ..._SIGNAL_IN_USE); setConfig and free only while idle (SIGNAL_IN_USE);
// trigger only while in use (SIGNAL_IDLE otherwise).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "QnnSignal.h"
#include "ipc/control_wire.h"
#include "qnn/object_table.h"

namespace openhtp::qnn {

struct Signal : Object {
  ~Signal() override;
  uint64_t backend_handle = 0;
  std::atomic<uint64_t> timeout_us{0};   // 0: none
  std::atomic<bool> in_use{false};
  ipc::htp_wire::ControlWire* wire = nullptr;  // in rpcmem memory
};

// Holds `signal` (may be NULL: no bound) for one call. ok() is false, with
// the error to return in error(), when the handle is not a live signal or
// the signal is in use by another call.
class SignalUse {
 public:
  // Without a signal (the usual execute) nothing happens out of line.
  SignalUse(Qnn_SignalHandle_t signal, const char* call, Qnn_ErrorHandle_t in_use_error) {
    if (signal != nullptr) hold(signal, call, in_use_error);
  }
  ~SignalUse() {
    if (signal_) release();
  }
  SignalUse(const SignalUse&) = delete;
  SignalUse& operator=(const SignalUse&) = delete;

  bool ok() const { return error_ == QNN_SUCCESS; }
  Qnn_ErrorHandle_t error() const { return error_; }
  // What to hand the stub: null without a signal.
  ipc::htp_wire::ControlWire* control() const { return signal_ ? signal_->wire : nullptr; }

 private:
  void hold(Qnn_SignalHandle_t signal, const char* call, Qnn_ErrorHandle_t in_use_error);
  void release();

  std::shared_ptr<Signal> signal_;
  Qnn_ErrorHandle_t error_ = QNN_SUCCESS;
};

}  // namespace openhtp::qnn
