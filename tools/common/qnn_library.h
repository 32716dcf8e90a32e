// Loading QNN libraries the way QNN's tools do, shared by the tools that
// drive a backend (qnn-net-run, qnn-context-binary-generator):
//   - a backend: dlopen, QnnInterface_getProviders, the first provider whose
//     core API major equals ours and whose minor is at least ours;
//   - a model library: dlopen, <prefix>_composeGraphs / <prefix>_freeGraphsInfo
//     (the interface in tools/context_binary_generator/model_library.h).
// Libraries stay loaded until the process exits: graphs and tensors handed
// out by them may be referenced up to the end of a run.
#pragma once

#include <string>

#include "QnnInterface.h"
#include "model_library.h"

namespace openhtp::tools {

struct BackendLibrary {
  std::string path;
  void* handle = nullptr;
  const QNN_INTERFACE_VER_TYPE* api = nullptr;
};

// False + *error naming the library and the reason (dlerror text, missing
// symbol, provider versions found).
bool load_backend_library(const std::string& path, BackendLibrary* out, std::string* error);

struct ModelLibrary {
  std::string path;
  void* handle = nullptr;
  ComposeGraphsFnHandleType_t compose = nullptr;
  FreeGraphInfoFnHandleType_t free_info = nullptr;
};

// False + *error naming the library and the missing symbols.
bool load_model_library(const std::string& path, const std::string& prefix, ModelLibrary* out, std::string* error);

// "error 6004 (the backend's message)" for a QNN error code.
std::string describe_qnn_error(const QNN_INTERFACE_VER_TYPE& api, Qnn_ErrorHandle_t e);

}  // namespace openhtp::tools
