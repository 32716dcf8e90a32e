// A QNN backend opened through its provider table: logger + backend handle,
// freed in reverse order. The importer links no backend; tools and tests
// pass the QnnInterface_getProviders they linked or dlsym'ed.
#pragma once

#include <string>

#include "QnnInterface.h"

namespace openhtp::onnx_import {

using GetProvidersFn = Qnn_ErrorHandle_t (*)(const QnnInterface_t*** providers, uint32_t* count);

class BackendSession {
 public:
  BackendSession() = default;
  BackendSession(const BackendSession&) = delete;
  BackendSession& operator=(const BackendSession&) = delete;
  ~BackendSession();

  // Picks the provider with our core API major version; logs warnings and
  // errors to stderr (QNN_LOG_LEVEL_WARN) unless `quiet`.
  bool open(GetProvidersFn get_providers, std::string* error, bool quiet = false);
  // A new context on this backend (default device: the FastRPC DSP process).
  // `weight_sharing`: QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED, so
  // that graphs added to it hold identical weights once.
  bool create_context(Qnn_ContextHandle_t* out, std::string* error, bool weight_sharing = false);

  QNN_INTERFACE_VER_TYPE api = QNN_INTERFACE_VER_TYPE_INIT;
  Qnn_LogHandle_t log = nullptr;
  Qnn_BackendHandle_t backend = nullptr;
};

}  // namespace openhtp::onnx_import
