#include "common/qnn_library.h"

#include <dlfcn.h>

namespace openhtp::tools {
namespace {

std::string dl_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

}  // namespace

bool load_backend_library(const std::string& path, BackendLibrary* out, std::string* error) {
  out->path = path;
  out->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (out->handle == nullptr) {
    *error = "cannot load backend library " + path + ": " + dl_error();
    return false;
  }
  using GetProvidersFn = Qnn_ErrorHandle_t (*)(const QnnInterface_t***, uint32_t*);
  auto get_providers = reinterpret_cast<GetProvidersFn>(dlsym(out->handle, "QnnInterface_getProviders"));
  if (get_providers == nullptr) {
    *error = "backend library " + path + " does not export QnnInterface_getProviders";
    return false;
  }
  const QnnInterface_t** providers = nullptr;
  uint32_t count = 0;
  if (const Qnn_ErrorHandle_t e = get_providers(&providers, &count); e != QNN_SUCCESS) {
    *error = "QnnInterface_getProviders of " + path + " failed with error " + std::to_string(e);
    return false;
  }
  std::string seen;
  for (uint32_t i = 0; providers != nullptr && i < count; ++i) {
    const Qnn_Version_t& v = providers[i]->apiVersion.coreApiVersion;
    if (v.major == QNN_API_VERSION_MAJOR && v.minor >= QNN_API_VERSION_MINOR) {
      out->api = &providers[i]->QNN_INTERFACE_VER_NAME;
      return true;
    }
    seen += (seen.empty() ? "" : ", ") + std::to_string(v.major) + "." + std::to_string(v.minor) + "." +
            std::to_string(v.patch);
  }
  *error = "backend library " + path + " has no provider for QNN core API " + std::to_string(QNN_API_VERSION_MAJOR) +
           "." + std::to_string(QNN_API_VERSION_MINOR) + " or a later minor version (found: " +
           (seen.empty() ? std::string("none") : seen) + ")";
  return false;
}

bool load_model_library(const std::string& path, const std::string& prefix, ModelLibrary* out, std::string* error) {
  out->path = path;
  out->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (out->handle == nullptr) {
    *error = "cannot load model library " + path + ": " + dl_error();
    return false;
  }
  const std::string compose_name = prefix + "_composeGraphs";
  const std::string free_name = prefix + "_freeGraphsInfo";
  out->compose = reinterpret_cast<ComposeGraphsFnHandleType_t>(dlsym(out->handle, compose_name.c_str()));
  out->free_info = reinterpret_cast<FreeGraphInfoFnHandleType_t>(dlsym(out->handle, free_name.c_str()));
  std::string missing;
  if (out->compose == nullptr) missing = compose_name;
  if (out->free_info == nullptr) missing += (missing.empty() ? "" : ", ") + free_name;
  if (!missing.empty()) {
    *error = "model library " + path + " does not export " + missing + " (model prefix '" + prefix + "')";
    return false;
  }
  return true;
}

std::string describe_qnn_error(const QNN_INTERFACE_VER_TYPE& api, Qnn_ErrorHandle_t e) {
  std::string s = "error " + std::to_string(e);
  const char* message = nullptr;
  if (api.errorGetMessage != nullptr && api.errorGetMessage(e, &message) == QNN_SUCCESS && message != nullptr &&
      *message != '\0') {
    s += std::string(" (") + message + ")";
  }
  return s;
}

}  // namespace openhtp::tools
