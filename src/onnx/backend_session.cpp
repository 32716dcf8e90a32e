#include "onnx/backend_session.h"

#include <cstdarg>
#include <cstdio>

#include "HTP/QnnHtpContext.h"
#include "onnx/graph_submit.h"

namespace openhtp::onnx_import {

namespace {

void log_to_stderr(const char* fmt, QnnLog_Level_t level, uint64_t, va_list args) {
  std::fprintf(stderr, "  [backend %s] ", level == QNN_LOG_LEVEL_ERROR ? "error" : "warning");
  std::vfprintf(stderr, fmt, args);
  std::fputc('\n', stderr);
}

void log_nowhere(const char*, QnnLog_Level_t, uint64_t, va_list) {}

}  // namespace

BackendSession::~BackendSession() {
  if (backend != nullptr) api.backendFree(backend);
  if (log != nullptr) api.logFree(log);
}

bool BackendSession::open(GetProvidersFn get_providers, std::string* error, bool quiet) {
  const QnnInterface_t** providers = nullptr;
  uint32_t count = 0;
  if (get_providers(&providers, &count) != QNN_SUCCESS || providers == nullptr || count == 0) {
    *error = "QnnInterface_getProviders returned no providers";
    return false;
  }
  bool found = false;
  for (uint32_t i = 0; i < count && !found; ++i) {
    if (providers[i] != nullptr && providers[i]->apiVersion.coreApiVersion.major == QNN_API_VERSION_MAJOR) {
      api = providers[i]->QNN_INTERFACE_VER_NAME;
      found = true;
    }
  }
  if (!found) {
    *error = "no provider implements QNN core API major version " + std::to_string(QNN_API_VERSION_MAJOR);
    return false;
  }
  if (Qnn_ErrorHandle_t e = api.logCreate(quiet ? log_nowhere : log_to_stderr, QNN_LOG_LEVEL_WARN, &log);
      e != QNN_SUCCESS) {
    *error = "logCreate: " + describe_qnn_error(api, e);
    return false;
  }
  if (Qnn_ErrorHandle_t e = api.backendCreate(log, nullptr, &backend); e != QNN_SUCCESS) {
    *error = "backendCreate: " + describe_qnn_error(api, e);
    return false;
  }
  return true;
}

bool BackendSession::create_context(Qnn_ContextHandle_t* out, std::string* error, bool weight_sharing) {
  QnnHtpContext_CustomConfig_t sharing{};
  sharing.option = QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED;
  sharing.weightSharingEnabled = true;
  QnnContext_Config_t config = QNN_CONTEXT_CONFIG_INIT;
  config.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
  config.customConfig = &sharing;
  const QnnContext_Config_t* configs[] = {&config, nullptr};
  if (Qnn_ErrorHandle_t e = api.contextCreate(backend, nullptr, weight_sharing ? configs : nullptr, out);
      e != QNN_SUCCESS) {
    *error = "contextCreate: " + describe_qnn_error(api, e);
    return false;
  }
  return true;
}

}  // namespace openhtp::onnx_import
