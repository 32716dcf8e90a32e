#include "common/file_bytes.h"
#include "common/qnn_log_sink.h"
#include "session.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace openhtp::netrun {
namespace {

using openhtp::tools::describe_qnn_error;
using openhtp::read_file_bytes;


bool read_file(const std::string& path, std::vector<uint8_t>* out, std::string* error) {
  if (read_file_bytes(path, out, error)) return true;
  *error = "context binary " + path + ": " + *error;
  return false;
}

}  // namespace

Session::~Session() {
  std::string ignored;
  close(false, &ignored);
}

void* Session::backend_symbol(const char* name) const {
  return backend_lib_.handle != nullptr ? dlsym(backend_lib_.handle, name) : nullptr;
}

bool Session::open(const Options& opt, const ConfigFile& config, Profiler* profiler, std::string* error) {
  profiler_ = profiler;
  // Model libraries first, so that a bad one fails before the backend starts.
  models_.resize(opt.models.size());
  for (size_t i = 0; i < opt.models.size(); ++i) {
    if (!openhtp::tools::load_model_library(opt.models[i], opt.model_prefix, &models_[i], error)) return false;
  }
  if (!openhtp::tools::load_backend_library(opt.backend, &backend_lib_, error)) return false;
  const QNN_INTERFACE_VER_TYPE& qnn = api();
  if (Qnn_ErrorHandle_t e = qnn.logCreate(openhtp::tools::qnn_log_to_stderr, opt.log_level, &log_); e != QNN_SUCCESS) {
    *error = "logCreate failed: " + describe_qnn_error(qnn, e);
    return false;
  }
  // The backend-extension file goes to libQnnHtp as its platform option.
  QnnBackend_Config_t platform = QNN_BACKEND_CONFIG_INIT;
  const QnnBackend_Config_t* backend_configs[] = {&platform, nullptr};
  if (!config.extensions_file.empty()) {
    platform_option_ = "backend_extensions=" + config.extensions_file;
    platform.option = QNN_BACKEND_CONFIG_OPTION_PLATFORM;
    platform.platformOption = platform_option_.c_str();
  }
  if (Qnn_ErrorHandle_t e =
          qnn.backendCreate(log_, config.extensions_file.empty() ? nullptr : backend_configs, &backend_);
      e != QNN_SUCCESS) {
    backend_ = nullptr;
    *error = "backendCreate failed: " + describe_qnn_error(qnn, e) +
             (config.extensions_file.empty() ? "" : " (backend extension file " + config.extensions_file + ")");
    return false;
  }
  const char* build_id = nullptr;
  if (qnn.backendGetBuildId != nullptr && qnn.backendGetBuildId(&build_id) == QNN_SUCCESS && build_id != nullptr) {
    std::printf("Backend build version: %s\n", build_id);
    std::fflush(stdout);
  }
  if (!profiler->start(opt, qnn, backend_, error)) return false;

  QnnContext_Config_t priority = QNN_CONTEXT_CONFIG_INIT;
  const QnnContext_Config_t* context_configs[] = {&priority, nullptr};
  if (config.context_priority) {
    priority.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
    priority.priority = *config.context_priority;
  }
  const QnnContext_Config_t** configs = config.context_priority ? context_configs : nullptr;
  const bool ok = opt.models.empty() ? open_from_binary(opt, configs, profiler, error)
                                     : open_from_models(opt, configs, profiler, error);
  if (!ok) return false;
  std::vector<std::string> names;
  for (const Graph& g : graphs_) names.push_back(g.io.name);
  profiler->set_graphs(names);
  return true;
}

bool Session::open_from_models(const Options& opt, const QnnContext_Config_t** configs, Profiler* profiler,
                               std::string* error) {
  const QNN_INTERFACE_VER_TYPE& qnn = api();
  profiler->begin_phase();
  if (Qnn_ErrorHandle_t e = qnn.contextCreate(backend_, nullptr, configs, &context_); e != QNN_SUCCESS) {
    context_ = nullptr;
    *error = "contextCreate failed: " + describe_qnn_error(qnn, e);
    return false;
  }
  for (openhtp::tools::ModelLibrary& m : models_) {
    GraphInfo_t** infos = nullptr;
    uint32_t count = 0;
    const ModelError_t me =
        m.compose(backend_, qnn, context_, nullptr, 0, &infos, &count, false, openhtp::tools::qnn_log_to_stderr, opt.log_level);
    if (infos != nullptr) model_graphs_.push_back({m.free_info, infos, count});
    if (me != MODEL_NO_ERROR) {
      *error = m.path + ": " + opt.model_prefix + "_composeGraphs failed with " + model_error_name(me);
      return false;
    }
    if (infos == nullptr || count == 0) {
      *error = m.path + ": composeGraphs returned no graphs";
      return false;
    }
    for (uint32_t i = 0; i < count; ++i) {
      const GraphInfo_t* info = infos[i];
      if (info == nullptr || info->graph == nullptr) {
        *error = m.path + ": composeGraphs returned an empty graph entry " + std::to_string(i);
        return false;
      }
      Graph g;
      g.handle = info->graph;
      g.io.name = info->graphName != nullptr ? info->graphName : "";
      for (uint32_t k = 0; k < info->numInputTensors; ++k) g.io.inputs.push_back(describe_tensor(info->inputTensors[k]));
      for (uint32_t k = 0; k < info->numOutputTensors; ++k) {
        g.io.outputs.push_back(describe_tensor(info->outputTensors[k]));
      }
      graphs_.push_back(std::move(g));
    }
  }
  if (!profiler->end_phase("init", 0, error)) return false;
  profiler->begin_phase();
  for (Graph& g : graphs_) {
    if (Qnn_ErrorHandle_t e = qnn.graphFinalize(g.handle, profiler->handle(), nullptr); e != QNN_SUCCESS) {
      *error = "graphFinalize of graph '" + g.io.name + "' failed: " + describe_qnn_error(qnn, e);
      return false;
    }
  }
  return profiler->end_phase("finalize", 0, error);
}

bool Session::open_from_binary(const Options& opt, const QnnContext_Config_t** configs, Profiler* profiler,
                               std::string* error) {
  const QNN_INTERFACE_VER_TYPE& qnn = api();
  std::vector<uint8_t> binary;
  if (!read_file(opt.retrieve_context, &binary, error)) return false;
  std::vector<GraphIo> ios;
  if (!read_binary_graphs(opt.system_library, opt.backend, binary, &ios, error)) {
    *error = opt.retrieve_context + ": " + *error;
    return false;
  }
  std::printf("Creating context from binary file: %s\n", opt.retrieve_context.c_str());
  std::fflush(stdout);
  profiler->begin_phase();
  if (Qnn_ErrorHandle_t e = qnn.contextCreateFromBinary(backend_, nullptr, configs, binary.data(), binary.size(),
                                                        &context_, profiler->handle());
      e != QNN_SUCCESS) {
    context_ = nullptr;
    *error = "contextCreateFromBinary of " + opt.retrieve_context + " failed: " + describe_qnn_error(qnn, e);
    return false;
  }
  for (GraphIo& io : ios) {
    Graph g;
    g.io = std::move(io);
    if (Qnn_ErrorHandle_t e = qnn.graphRetrieve(context_, g.io.name.c_str(), &g.handle); e != QNN_SUCCESS) {
      *error = "graphRetrieve of graph '" + g.io.name + "' failed: " + describe_qnn_error(qnn, e);
      return false;
    }
    graphs_.push_back(std::move(g));
  }
  return profiler->end_phase("init", 0, error);
}

bool Session::close(bool record_deinit, std::string* error) {
  bool ok = true;
  if (backend_lib_.api == nullptr) return true;
  const QNN_INTERFACE_VER_TYPE& qnn = api();
  Profiler* profiler = record_deinit ? profiler_ : nullptr;
  for (ComposedGraphs& c : model_graphs_) c.free_info(&c.infos, c.count);
  model_graphs_.clear();
  graphs_.clear();
  if (context_ != nullptr) {
    if (profiler != nullptr) profiler->begin_phase();
    const Qnn_ErrorHandle_t e = qnn.contextFree(context_, profiler != nullptr ? profiler->handle() : nullptr);
    context_ = nullptr;
    if (e != QNN_SUCCESS) {
      *error = "contextFree failed: " + describe_qnn_error(qnn, e);
      ok = false;
    }
    if (ok && profiler != nullptr) ok = profiler->end_phase("deinit", 0, error);
  }
  if (profiler_ != nullptr) profiler_->release();
  profiler_ = nullptr;
  if (backend_ != nullptr) qnn.backendFree(backend_);
  backend_ = nullptr;
  if (log_ != nullptr) qnn.logFree(log_);
  log_ = nullptr;
  return ok;
}

}  // namespace openhtp::netrun
