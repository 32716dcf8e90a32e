#include "binary_info.h"

#include <dlfcn.h>

#include <filesystem>

#include "System/QnnSystemInterface.h"

namespace openhtp::netrun {
namespace {

std::vector<std::string> candidates(const std::string& system_library, const std::string& backend_path) {
  if (!system_library.empty()) return {system_library};
  std::vector<std::string> out;
  const std::filesystem::path dir = std::filesystem::path(backend_path).parent_path();
  if (!dir.empty()) out.push_back((dir / "libQnnSystem.so").string());
  out.push_back("libQnnSystem.so");
  return out;
}

void copy_graph(const QnnSystemContext_GraphInfoV1_t& g, GraphIo* out) {
  out->name = g.graphName != nullptr ? g.graphName : "";
  for (uint32_t i = 0; i < g.numGraphInputs; ++i) out->inputs.push_back(describe_tensor(g.graphInputs[i]));
  for (uint32_t i = 0; i < g.numGraphOutputs; ++i) out->outputs.push_back(describe_tensor(g.graphOutputs[i]));
}

}  // namespace

bool read_binary_graphs(const std::string& system_library, const std::string& backend_path,
                        const std::vector<uint8_t>& binary, std::vector<GraphIo>* out, std::string* error) {
  void* lib = nullptr;
  std::string path, why;
  for (const std::string& c : candidates(system_library, backend_path)) {
    if (!system_library.empty() || c.find('/') == std::string::npos || std::filesystem::exists(c)) {
      lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    if (lib != nullptr) {
      path = c;
      break;
    }
    const char* e = dlerror();
    why += std::string(why.empty() ? "" : "; ") + (e != nullptr ? e : c + ": not found");
  }
  if (lib == nullptr) {
    *error = "cannot load the system library (" + why + ")";
    return false;
  }
  // Left loaded: a one-shot tool gains nothing from unloading it.
  using GetProvidersFn = Qnn_ErrorHandle_t (*)(const QnnSystemInterface_t***, uint32_t*);
  auto get_providers = reinterpret_cast<GetProvidersFn>(dlsym(lib, "QnnSystemInterface_getProviders"));
  if (get_providers == nullptr) {
    *error = "system library " + path + " does not export QnnSystemInterface_getProviders";
    return false;
  }
  const QnnSystemInterface_t** providers = nullptr;
  uint32_t n = 0;
  if (get_providers(&providers, &n) != QNN_SUCCESS || providers == nullptr) {
    *error = "QnnSystemInterface_getProviders of " + path + " failed";
    return false;
  }
  const QNN_SYSTEM_INTERFACE_VER_TYPE* api = nullptr;
  for (uint32_t i = 0; i < n && api == nullptr; ++i) {
    if (providers[i] != nullptr && providers[i]->systemApiVersion.major == QNN_SYSTEM_API_VERSION_MAJOR) {
      api = &providers[i]->QNN_SYSTEM_INTERFACE_VER_NAME;
    }
  }
  if (api == nullptr || api->systemContextCreate == nullptr || api->systemContextGetBinaryInfo == nullptr ||
      api->systemContextFree == nullptr) {
    *error = "system library " + path + " offers no usable system API " +
             std::to_string(QNN_SYSTEM_API_VERSION_MAJOR) + ".x provider";
    return false;
  }
  QnnSystemContext_Handle_t sys = nullptr;
  if (api->systemContextCreate(&sys) != QNN_SUCCESS) {
    *error = "systemContextCreate of " + path + " failed";
    return false;
  }
  // The library reads from a mutable buffer by signature; give it a copy.
  std::vector<uint8_t> copy = binary;
  const QnnSystemContext_BinaryInfo_t* info = nullptr;
  Qnn_ContextBinarySize_t info_size = 0;
  const Qnn_ErrorHandle_t e = api->systemContextGetBinaryInfo(sys, copy.data(), copy.size(), &info, &info_size);
  if (e != QNN_SUCCESS || info == nullptr) {
    api->systemContextFree(sys);
    *error = "the system library cannot read the context binary (error " + std::to_string(e) + ")";
    return false;
  }
  uint32_t num_graphs = 0;
  const QnnSystemContext_GraphInfo_t* graphs = nullptr;
  switch (info->version) {
    case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_1:
      num_graphs = info->contextBinaryInfoV1.numGraphs;
      graphs = info->contextBinaryInfoV1.graphs;
      break;
    case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_2:
      num_graphs = info->contextBinaryInfoV2.numGraphs;
      graphs = info->contextBinaryInfoV2.graphs;
      break;
    default:
      num_graphs = info->contextBinaryInfoV3.numGraphs;
      graphs = info->contextBinaryInfoV3.graphs;
      break;
  }
  // Every graph info version begins with V1's fields.
  for (uint32_t i = 0; i < num_graphs; ++i) {
    GraphIo g;
    copy_graph(graphs[i].graphInfoV1, &g);
    out->push_back(std::move(g));
  }
  api->systemContextFree(sys);
  if (out->empty()) {
    *error = "the context binary holds no graph";
    return false;
  }
  return true;
}

}  // namespace openhtp::netrun
