// Loading a QNN backend library the way the QNN SampleApp does: dlopen it,
// ask QnnInterface_getProviders for its function tables, and keep a copy of
// the one whose core API version this program was compiled against.
#pragma once

#include <string>

#include "QnnInterface.h"
#include "openhtp/qnn_ext.h"

namespace examples {

using QnnInterfaceGetProvidersFn_t = Qnn_ErrorHandle_t (*)(const QnnInterface_t*** providerList,
                                                           uint32_t* numProviders);
using OpenHtpGetLastExecuteStatsFn_t = Qnn_ErrorHandle_t (*)(Qnn_GraphHandle_t graph, OpenHtp_ExecuteStats_t* stats);

class QnnBackendLibrary {
 public:
  QnnBackendLibrary() = default;
  QnnBackendLibrary(const QnnBackendLibrary&) = delete;
  QnnBackendLibrary& operator=(const QnnBackendLibrary&) = delete;
  ~QnnBackendLibrary();

  // Loads `library` (e.g. "libQnnHtp.so") and copies the table of the first
  // provider with core API major == QNN_API_VERSION_MAJOR and minor >=
  // QNN_API_VERSION_MINOR. False, with `error` set, otherwise.
  bool load(const std::string& library, std::string* error);

  QNN_INTERFACE_VER_TYPE api = QNN_INTERFACE_VER_TYPE_INIT;
  std::string path;           // the file dlopen really loaded
  std::string provider_name;  // "" when the provider gives none
  Qnn_ApiVersion_t api_version{};
  // openhtp's copy-accounting extension; nullptr with any other backend.
  OpenHtpGetLastExecuteStatsFn_t get_last_execute_stats = nullptr;

 private:
  void* handle_ = nullptr;
};

}  // namespace examples
