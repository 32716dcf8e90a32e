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

bool QnnSession::open_backend(std::string* error) {
  Qnn_ErrorHandle_t e = api_.logCreate(log_to_stderr, QNN_LOG_LEVEL_WARN, &log);
  if (e != QNN_SUCCESS) {
    *error = "logCreate: " + describe_qnn_error(api_, e);
    return false;
  }
  if ((e = api_.backendCreate(log, nullptr, &backend)) != QNN_SUCCESS) {
    *error = "backendCreate: " + describe_qnn_error(api_, e);
    return false;
  }
  return true;
}

bool QnnSession::open(std::string* error) {
  if (!open_backend(error)) return false;
  if (Qnn_ErrorHandle_t e = api_.contextCreate(backend, nullptr, nullptr, &context); e != QNN_SUCCESS) {
    *error = "contextCreate: " + describe_qnn_error(api_, e);
    return false;
  }
  return true;
}

bool QnnSession::open_from_binary(const std::vector<uint8_t>& binary, std::string* error) {
  if (!open_backend(error)) return false;
  if (Qnn_ErrorHandle_t e =
          api_.contextCreateFromBinary(backend, nullptr, nullptr, binary.data(), binary.size(), &context, nullptr);
      e != QNN_SUCCESS) {
    *error = "contextCreateFromBinary: " + describe_qnn_error(api_, e);
    return false;
  }
  return true;
}

bool QnnSession::retrieve(const char* name, Qnn_GraphHandle_t* graph, std::string* error) {
  if (Qnn_ErrorHandle_t e = api_.graphRetrieve(context, name, graph); e != QNN_SUCCESS) {
    *error = std::string("graphRetrieve(\"") + name + "\"): " + describe_qnn_error(api_, e);
    return false;
  }
  return true;
}

void QnnSession::close() {
  if (context != nullptr) api_.contextFree(context, nullptr);
  if (backend != nullptr) api_.backendFree(backend);
  if (log != nullptr) api_.logFree(log);
  context = nullptr, backend = nullptr, log = nullptr;
}

QnnSession::~QnnSession() { close(); }

}  // namespace examples
