// QnnSignal_create / setConfig / trigger / free and SignalUse (signal.h).
#include <new>

#include "htp/call_control.h"
#include "qnn/cdsprpc_link.h"
#include "qnn/api_guard.h"
#include "qnn/live_handle.h"
#include "qnn/logger.h"
#include "qnn/objects.h"
#include "qnn/signal.h"
#include "rpcmem.h"

using namespace openhtp;
using namespace openhtp::qnn;

namespace openhtp::qnn {

Signal::~Signal() {
  if (wire != nullptr) {
    wire->~ControlWire();
    cdsprpc().rpcmem_free(wire);
  }
}

void SignalUse::hold(Qnn_SignalHandle_t signal, const char* call, Qnn_ErrorHandle_t in_use_error) {
  signal_ = find_object<Signal>(ObjectKind::kSignal, signal);
  if (!signal_) {
    QNN_LOG_ERROR("%s: %p is not a live signal handle", call, signal);
    error_ = QNN_SIGNAL_ERROR_INVALID_HANDLE;
    return;
  }
  bool idle = false;
  if (!signal_->in_use.compare_exchange_strong(idle, true)) {
    QNN_LOG_ERROR("%s: signal %p is in use by another call (one call per signal at a time)", call, signal);
    error_ = in_use_error;
    signal_.reset();
    return;
  }
  const uint64_t timeout_us = signal_->timeout_us.load();
  signal_->wire->abort.store(0, std::memory_order_relaxed);
  signal_->wire->deadline_ns =
      timeout_us == 0 ? 0 : htp::monotonic_now_ns() + static_cast<int64_t>(timeout_us) * 1000;
  std::atomic_thread_fence(std::memory_order_release);
}

void SignalUse::release() { signal_->in_use.store(false); }

}  // namespace openhtp::qnn

namespace {

Qnn_ErrorHandle_t apply_signal_configs(const QnnSignal_Config_t** config, Signal* s) {
  for (const QnnSignal_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    switch ((*c)->option) {
      case QNN_SIGNAL_CONFIG_OPTION_TIMEOUT: s->timeout_us = (*c)->timeoutDurationUs; break;
      case QNN_SIGNAL_CONFIG_OPTION_ABORT: break;  // every signal can abort (QnnSignal_trigger)
      default:
        QNN_LOG_ERROR("signal config option %d is not supported (TIMEOUT and ABORT are)", static_cast<int>((*c)->option));
        return QNN_SIGNAL_ERROR_UNSUPPORTED;
    }
  }
  return QNN_SUCCESS;
}

}  // namespace

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnSignal_create(Qnn_BackendHandle_t backend, const QnnSignal_Config_t** config,
                                           Qnn_SignalHandle_t* signal) try {
  if (!find_object<Backend>(ObjectKind::kBackend, backend)) {
    QNN_LOG_ERROR("signalCreate: %p is not a live backend handle", backend);
    return QNN_SIGNAL_ERROR_INVALID_HANDLE;
  }
  if (signal == nullptr) return null_argument("signalCreate", "signal", QNN_SIGNAL_ERROR_INVALID_ARGUMENT);
  auto s = std::make_shared<Signal>();
  s->backend_handle = reinterpret_cast<uintptr_t>(backend);
  if (Qnn_ErrorHandle_t e = apply_signal_configs(config, s.get()); e != QNN_SUCCESS) return e;
  void* mem = cdsprpc().rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, sizeof(ipc::htp_wire::ControlWire));
  if (mem == nullptr) {
    QNN_LOG_ERROR("signalCreate: cannot allocate the signal's shared control word");
    return QNN_SIGNAL_ERROR_MEM_ALLOC;
  }
  s->wire = new (mem) ipc::htp_wire::ControlWire();
  *signal = ObjectTable::instance().add(ObjectKind::kSignal, s);
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("signalCreate");
}

QNN_API Qnn_ErrorHandle_t QnnSignal_setConfig(Qnn_SignalHandle_t signal, const QnnSignal_Config_t** config) try {
  auto s = live_object<Signal>("signalSetConfig", ObjectKind::kSignal, signal);
  if (!s) return QNN_SIGNAL_ERROR_INVALID_HANDLE;
  if (s->in_use.load()) {
    QNN_LOG_ERROR("signalSetConfig: signal %p is in use by a call", signal);
    return QNN_SIGNAL_ERROR_SIGNAL_IN_USE;
  }
  return apply_signal_configs(config, s.get());
} catch (...) {
  return api_exception("signalSetConfig");
}

QNN_API Qnn_ErrorHandle_t QnnSignal_trigger(Qnn_SignalHandle_t signal) try {
  auto s = live_object<Signal>("signalTrigger", ObjectKind::kSignal, signal);
  if (!s) return QNN_SIGNAL_ERROR_INVALID_HANDLE;
  if (!s->in_use.load()) {
    QNN_LOG_ERROR("signalTrigger: signal %p is not in use by any call", signal);
    return QNN_SIGNAL_ERROR_SIGNAL_IDLE;
  }
  s->wire->abort.store(1, std::memory_order_release);
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("signalTrigger");
}

QNN_API Qnn_ErrorHandle_t QnnSignal_free(Qnn_SignalHandle_t signal) try {
  auto s = live_object<Signal>("signalFree", ObjectKind::kSignal, signal);
  if (!s) return QNN_SIGNAL_ERROR_INVALID_HANDLE;
  if (s->in_use.load()) {
    QNN_LOG_ERROR("signalFree: signal %p is in use by a call", signal);
    return QNN_SIGNAL_ERROR_SIGNAL_IN_USE;
  }
  ObjectTable::instance().remove(ObjectKind::kSignal, signal);
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("signalFree");
}

}  // extern "C"
