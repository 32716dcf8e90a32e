// QNN log handles and the backend's one way of speaking to the client.
//
// Every rule the backend enforces reports through log_error(): one line that
// names the rule, the object and the offending value, delivered to the
// callback of every live log handle whose level admits it (clients create one
// per backend in practice). With no log handle at all, errors go to stderr so
// that they are never silently lost.
#pragma once

#include "QnnLog.h"

namespace openhtp::qnn {

Qnn_ErrorHandle_t log_create(QnnLog_Callback_t callback, QnnLog_Level_t max_level, Qnn_LogHandle_t* handle);
Qnn_ErrorHandle_t log_set_level(Qnn_LogHandle_t handle, QnnLog_Level_t max_level);
Qnn_ErrorHandle_t log_free(Qnn_LogHandle_t handle);
bool log_handle_valid(Qnn_LogHandle_t handle);

void log_message(QnnLog_Level_t level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// The calling thread's most recent error line (errorGetVerboseMessage).
const char* last_error_message();

}  // namespace openhtp::qnn

#define QNN_LOG_ERROR(...) ::openhtp::qnn::log_message(QNN_LOG_LEVEL_ERROR, __VA_ARGS__)
#define QNN_LOG_WARN(...) ::openhtp::qnn::log_message(QNN_LOG_LEVEL_WARN, __VA_ARGS__)
#define QNN_LOG_INFO(...) ::openhtp::qnn::log_message(QNN_LOG_LEVEL_INFO, __VA_ARGS__)
#define QNN_LOG_DEBUG(...) ::openhtp::qnn::log_message(QNN_LOG_LEVEL_DEBUG, __VA_ARGS__)
