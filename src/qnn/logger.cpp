#include "qnn/logger.h"

#include <cstdarg>
#include <cstdio>

#include "common/log_sinks.h"

namespace openhtp::qnn {
namespace {

LogSinks& sinks() {
  static auto* s = new LogSinks(0x10600000);  // leaked: clients may log from static destructors
  return *s;
}
thread_local char t_last_error[1024];

Qnn_ErrorHandle_t to_qnn(LogSinks::Result r) {
  switch (r) {
    case LogSinks::Result::kOk: return QNN_SUCCESS;
    case LogSinks::Result::kInvalidArgument: return QNN_LOG_ERROR_INVALID_ARGUMENT;
    case LogSinks::Result::kInvalidHandle: return QNN_LOG_ERROR_INVALID_HANDLE;
  }
  return QNN_LOG_ERROR_INVALID_ARGUMENT;
}

}  // namespace

// A refused log call is reported like any other refusal (to the log
// handles that remain, else stderr), naming the call and the value.
static Qnn_ErrorHandle_t reported(const char* api, LogSinks::Result r, Qnn_LogHandle_t handle, QnnLog_Level_t level) {
  if (r == LogSinks::Result::kInvalidHandle) {
    log_message(QNN_LOG_LEVEL_ERROR, "%s: %p is not a live log handle", api, static_cast<const void*>(handle));
  } else if (r == LogSinks::Result::kInvalidArgument) {
    log_message(QNN_LOG_LEVEL_ERROR, "%s: level %d is not ERROR (1) to DEBUG (5), or the handle pointer is NULL", api,
                static_cast<int>(level));
  }
  return to_qnn(r);
}

Qnn_ErrorHandle_t log_create(QnnLog_Callback_t callback, QnnLog_Level_t max_level, Qnn_LogHandle_t* handle) {
  return reported("logCreate", sinks().create(callback, max_level, handle), nullptr, max_level);
}

Qnn_ErrorHandle_t log_set_level(Qnn_LogHandle_t handle, QnnLog_Level_t max_level) {
  return reported("logSetLogLevel", sinks().set_level(handle, max_level), handle, max_level);
}

Qnn_ErrorHandle_t log_free(Qnn_LogHandle_t handle) {
  return reported("logFree", sinks().free(handle), handle, QNN_LOG_LEVEL_ERROR);
}

bool log_handle_valid(Qnn_LogHandle_t handle) { return sinks().contains(handle); }

void log_message(QnnLog_Level_t level, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (level == QNN_LOG_LEVEL_ERROR) std::snprintf(t_last_error, sizeof t_last_error, "%s", msg);
  const bool any = !sinks().empty();
  sinks().deliver(level, msg, "QnnHtp");
  // With no log handle at all, errors still reach stderr: never silently lost.
  if (!any && level == QNN_LOG_LEVEL_ERROR) std::fprintf(stderr, "QnnHtp error: %s\n", msg);
}

const char* last_error_message() { return t_last_error; }

}  // namespace openhtp::qnn
