#include "system/system_log.h"

#include <cstdarg>
#include <cstdio>

#include "System/QnnSystemCommon.h"
#include "common/log_sinks.h"
#include "system/api_guard.h"
#include "System/QnnSystemLog.h"

namespace openhtp::system {
namespace {

LogSinks& sinks() {
  static auto* s = new LogSinks(0x53500000);  // leaked: clients may log from static destructors
  return *s;
}

Qnn_ErrorHandle_t to_qnn(LogSinks::Result r) {
  switch (r) {
    case LogSinks::Result::kOk: return QNN_SUCCESS;
    case LogSinks::Result::kInvalidArgument: return QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT;
    case LogSinks::Result::kInvalidHandle: return QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE;
  }
  return QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT;
}

}  // namespace

Qnn_ErrorHandle_t log_create(QnnLog_Callback_t callback, QnnLog_Level_t max_level, Qnn_LogHandle_t* handle) {
  return to_qnn(sinks().create(callback, max_level, handle));
}

Qnn_ErrorHandle_t log_set_level(Qnn_LogHandle_t handle, QnnLog_Level_t max_level) {
  return to_qnn(sinks().set_level(handle, max_level));
}

Qnn_ErrorHandle_t log_free(Qnn_LogHandle_t handle) { return to_qnn(sinks().free(handle)); }

void log_message(QnnLog_Level_t level, const char* fmt, ...) {
  if (!sinks().admits(level)) return;  // formatting is not free; skip it when nobody listens
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sinks().deliver(level, msg, "QnnSystem");
}

}  // namespace openhtp::system

extern "C" {

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemLog_create(QnnLog_Callback_t callback, QnnLog_Level_t maxLogLevel,
                                                     Qnn_LogHandle_t* logger) try {
  return openhtp::system::log_create(callback, maxLogLevel, logger);
} catch (...) {
  return openhtp::system::api_exception("systemLogCreate");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemLog_setLogLevel(Qnn_LogHandle_t logger, QnnLog_Level_t maxLogLevel) try {
  return openhtp::system::log_set_level(logger, maxLogLevel);
} catch (...) {
  return openhtp::system::api_exception("systemLogSetLogLevel");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemLog_free(Qnn_LogHandle_t logger) try {
  return openhtp::system::log_free(logger);
} catch (...) {
  return openhtp::system::api_exception("systemLogFree");
}

}  // extern "C"
