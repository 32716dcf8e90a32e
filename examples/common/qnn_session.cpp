#include "qnn_session.h"

#include <cstdarg>
#include <cstdio>

namespace examples {
namespace {

void log_to_stderr(const char* fmt, QnnLog_Level_t level, uint64_t, va_list args) {
  std::fprintf(stderr, "  [backend %s] ", level == QNN_LOG_LEVEL_ERROR ? "error" : "warning");
  std::vfprintf(stderr, fmt, args);
  std::fputc('\n', stderr);
}

}  // namespace

std::string describe_qnn_error(const QNN_INTERFACE_VER_TYPE& api, Qnn_ErrorHandle_t e) {
  char code[32];
  std::snprintf(code, sizeof code, "error %llu", static_cast<unsigned long long>(e));
  const char* message = nullptr;
  if (api.errorGetMessage != nullptr && api.errorGetMessage(e, &message) == QNN_SUCCESS && message != nullptr) {
    return std::string(code) + " (" + message + ")";
  }
  return code;
}

bool QnnSession::open(std::string* error) {
  Qnn_ErrorHandle_t e = api_.logCreate(log_to_stderr, QNN_LOG_LEVEL_WARN, &log);
  if (e != QNN_SUCCESS) {
    *error = "logCreate: " + describe_qnn_error(api_, e);
    return false;
  }
  if ((e = api_.backendCreate(log, nullptr, &backend)) != QNN_SUCCESS) {
    *error = "backendCreate: " + describe_qnn_error(api_, e);
    return false;
  }
  if ((e = api_.contextCreate(backend, nullptr, nullptr, &context)) != QNN_SUCCESS) {
    *error = "contextCreate: " + describe_qnn_error(api_, e);
    return false;
  }
  return true;
}

QnnSession::~QnnSession() {
  if (context != nullptr) api_.contextFree(context, nullptr);
  if (backend != nullptr) api_.backendFree(backend);
  if (log != nullptr) api_.logFree(log);
}

}  // namespace examples
