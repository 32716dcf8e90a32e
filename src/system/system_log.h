// Log handles of libQnnSystem (QnnSystemLog_create / setLogLevel / free) and
// the library's one way of explaining a failure.
//
// System-context calls take no log handle, so every live system log handle
// receives every line its level admits (clients create one in practice, if
// any). With no handle the library stays silent: the error code already says
// what failed, and a tool that reads untrusted binaries must not have a
// library write to its stderr behind its back.
#pragma once

#include "QnnLog.h"

namespace openhtp::system {

Qnn_ErrorHandle_t log_create(QnnLog_Callback_t callback, QnnLog_Level_t max_level, Qnn_LogHandle_t* handle);
Qnn_ErrorHandle_t log_set_level(Qnn_LogHandle_t handle, QnnLog_Level_t max_level);
Qnn_ErrorHandle_t log_free(Qnn_LogHandle_t handle);

void log_message(QnnLog_Level_t level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace openhtp::system

#define SYS_LOG_ERROR(...) ::openhtp::system::log_message(QNN_LOG_LEVEL_ERROR, __VA_ARGS__)
#define SYS_LOG_DEBUG(...) ::openhtp::system::log_message(QNN_LOG_LEVEL_DEBUG, __VA_ARGS__)
