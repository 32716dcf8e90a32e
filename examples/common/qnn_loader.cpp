#include "qnn_loader.h"

#include <dlfcn.h>

#include "shared_library.h"

namespace examples {

QnnBackendLibrary::~QnnBackendLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

bool QnnBackendLibrary::load(const std::string& library, std::string* error) {
  handle_ = open_shared_library(library, &path, error);
  if (handle_ == nullptr) return false;

  auto fail = [&](std::string why) {
    *error = path + ": " + std::move(why);
    dlclose(handle_);
    handle_ = nullptr;
    return false;
  };

  auto get_providers = reinterpret_cast<QnnInterfaceGetProvidersFn_t>(dlsym(handle_, "QnnInterface_getProviders"));
  if (get_providers == nullptr) return fail("no QnnInterface_getProviders symbol");

  const QnnInterface_t** providers = nullptr;
  uint32_t count = 0;
  if (get_providers(&providers, &count) != QNN_SUCCESS || providers == nullptr || count == 0) {
    return fail("QnnInterface_getProviders returned no providers");
  }

  // Same major (the table layout) and at least our minor (every entry we
  // were compiled to call exists).
  for (uint32_t i = 0; i < count; ++i) {
    const QnnInterface_t* p = providers[i];
    if (p == nullptr) continue;
    const Qnn_Version_t& core = p->apiVersion.coreApiVersion;
    if (core.major == QNN_API_VERSION_MAJOR && core.minor >= QNN_API_VERSION_MINOR) {
      api = p->QNN_INTERFACE_VER_NAME;
      provider_name = p->providerName != nullptr ? p->providerName : "";
      api_version = p->apiVersion;
      // Not part of QNN: only openhtp's libQnnHtp has it.
      get_last_execute_stats =
          reinterpret_cast<OpenHtpGetLastExecuteStatsFn_t>(dlsym(handle_, "OpenHtp_getLastExecuteStats"));
      return true;
    }
  }
  return fail("no provider implements core API " + std::to_string(QNN_API_VERSION_MAJOR) + "." +
              std::to_string(QNN_API_VERSION_MINOR) + " or a later minor version");
}

}  // namespace examples
