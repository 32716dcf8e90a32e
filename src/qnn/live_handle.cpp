#include "qnn/live_handle.h"

#include "qnn/logger.h"

namespace openhtp::qnn {

const char* kind_name(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kBackend: return "backend";
    case ObjectKind::kDevice: return "device";
    case ObjectKind::kContext: return "context";
    case ObjectKind::kGraph: return "graph";
    case ObjectKind::kMem: return "memory";
    case ObjectKind::kProfile: return "profile";
    case ObjectKind::kSignal: return "signal";
  }
  return "QNN";
}

void report_dead_handle(const char* api, ObjectKind kind, const void* handle) {
  QNN_LOG_ERROR("%s: %p is not a live %s handle", api, handle, kind_name(kind));
}

Qnn_ErrorHandle_t null_argument(const char* api, const char* argument, Qnn_ErrorHandle_t code) {
  QNN_LOG_ERROR("%s: %s is NULL", api, argument);
  return code;
}

}  // namespace openhtp::qnn
