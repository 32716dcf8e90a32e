// qnn-context-binary-generator: builds graphs from model libraries in one
// context of a backend, finalizes them and writes the context binary.
//
//   1. parse options (and --config_file)
//   2. dlopen every model library, resolve <prefix>_composeGraphs and
//      <prefix>_freeGraphsInfo (before touching the backend, so a bad
//      library fails fast)
//   3. dlopen the backend, pick its provider, create log, backend, context
//   4. composeGraphs per library, finalize every graph it returns
//   5. contextGetBinarySize / contextGetBinary, write <name>.bin
//   6. free graph infos, context, backend, log; unload libraries
#include <dlfcn.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/output_file.h"
#include "common/qnn_library.h"
#include "common/qnn_log_sink.h"
#include "config_file.h"
#include "model_library.h"
#include "options.h"
#include "QnnInterface.h"

namespace {

namespace fs = std::filesystem;
using namespace openhtp::generator;

constexpr const char* kTool = "qnn-context-binary-generator";

int fail(const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  return 1;
}

void warn(const std::string& message) { std::fprintf(stderr, "%s: warning: %s\n", kTool, message.c_str()); }


// A model library (tools/common/qnn_library.h) and the graphs it composed.
struct ModelLibrary {
  openhtp::tools::ModelLibrary lib;
  GraphInfo_t** graphs = nullptr;
  uint32_t num_graphs = 0;
};

// Owns everything created along the way and releases it in reverse order,
// whichever step failed.
struct Session {
  std::vector<ModelLibrary> models;
  openhtp::tools::BackendLibrary backend_lib;
  const QNN_INTERFACE_VER_TYPE* api = nullptr;
  Qnn_LogHandle_t log = nullptr;
  Qnn_BackendHandle_t backend = nullptr;
  Qnn_ContextHandle_t context = nullptr;

  ~Session() {
    for (ModelLibrary& m : models) {
      if (m.graphs != nullptr && m.lib.free_info != nullptr) {
        if (const ModelError_t e = m.lib.free_info(&m.graphs, m.num_graphs); e != MODEL_NO_ERROR) {
          warn(m.lib.path + ": " + "freeGraphsInfo returned " + model_error_name(e));
        }
      }
    }
    if (api != nullptr) {
      if (context != nullptr) api->contextFree(context, nullptr);
      if (backend != nullptr) api->backendFree(backend);
      if (log != nullptr) api->logFree(log);
    }
    for (ModelLibrary& m : models) {
      if (m.lib.handle != nullptr) dlclose(m.lib.handle);
    }
    if (backend_lib.handle != nullptr) dlclose(backend_lib.handle);
  }
};

fs::path output_path(const Options& opt) {
  fs::path p(opt.binary_file + ".bin");
  return p.is_absolute() ? p : fs::path(opt.output_dir) / p;
}

bool write_file(const fs::path& path, const std::vector<uint8_t>& bytes, std::string* error) {
  std::error_code ec;
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      *error = "cannot create output directory " + path.parent_path().string() + ": " + ec.message();
      return false;
    }
  }
  // Whole or not at all: a full disk leaves no truncated binary.
  return openhtp::tools::write_file_whole(path.string(), bytes.data(), bytes.size(), error);
}

int run(const Options& opt) {
  ConfigFile config;
  std::string error;
  if (!opt.config_file.empty()) {
    if (!read_config_file(opt.config_file, &config, &error)) return fail(error);
    for (const std::string& key : config.ignored_keys) {
      warn("config file " + opt.config_file + ": '" + key + "' is not supported yet and is ignored");
    }
  }

  Session s;
  s.models.resize(opt.models.size());
  for (size_t i = 0; i < opt.models.size(); ++i) {
    if (!openhtp::tools::load_model_library(opt.models[i], opt.model_prefix, &s.models[i].lib, &error)) return fail(error);
  }

  if (!openhtp::tools::load_backend_library(opt.backend, &s.backend_lib, &error)) return fail(error);
  s.api = s.backend_lib.api;
  const QNN_INTERFACE_VER_TYPE& api = *s.api;
  if (Qnn_ErrorHandle_t e = api.logCreate(openhtp::tools::qnn_log_to_stderr, opt.log_level, &s.log); e != QNN_SUCCESS) {
    return fail("logCreate failed: " + openhtp::tools::describe_qnn_error(api, e));
  }
  if (Qnn_ErrorHandle_t e = api.backendCreate(s.log, nullptr, &s.backend); e != QNN_SUCCESS) {
    return fail("backendCreate failed: " + openhtp::tools::describe_qnn_error(api, e));
  }
  QnnContext_Config_t priority = QNN_CONTEXT_CONFIG_INIT;
  const QnnContext_Config_t* context_configs[] = {&priority, nullptr};
  if (config.context_priority) {
    priority.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
    priority.priority = *config.context_priority;
  }
  if (Qnn_ErrorHandle_t e =
          api.contextCreate(s.backend, nullptr, config.context_priority ? context_configs : nullptr, &s.context);
      e != QNN_SUCCESS) {
    return fail("contextCreate failed: " + openhtp::tools::describe_qnn_error(api, e));
  }

  std::vector<std::string> graph_names;
  for (ModelLibrary& m : s.models) {
    const ModelError_t me = m.lib.compose(s.backend, api, s.context, nullptr, 0, &m.graphs, &m.num_graphs, false,
                                      openhtp::tools::qnn_log_to_stderr, opt.log_level);
    if (me != MODEL_NO_ERROR) {
      return fail(m.lib.path + ": " + opt.model_prefix + "_composeGraphs failed with " + model_error_name(me) + " (" +
                  std::to_string(static_cast<uint32_t>(me)) + ")");
    }
    if (m.graphs == nullptr || m.num_graphs == 0) return fail(m.lib.path + ": composeGraphs returned no graphs");
    for (uint32_t g = 0; g < m.num_graphs; ++g) {
      const GraphInfo_t* info = m.graphs[g];
      if (info == nullptr || info->graph == nullptr) {
        return fail(m.lib.path + ": composeGraphs returned an empty graph entry " + std::to_string(g));
      }
      const std::string name = info->graphName != nullptr ? info->graphName : "#" + std::to_string(g);
      if (Qnn_ErrorHandle_t e = api.graphFinalize(info->graph, nullptr, nullptr); e != QNN_SUCCESS) {
        return fail("graphFinalize of graph '" + name + "' from " + m.lib.path + " failed: " + openhtp::tools::describe_qnn_error(api, e));
      }
      graph_names.push_back(name);
    }
  }

  Qnn_ContextBinarySize_t size = 0;
  if (Qnn_ErrorHandle_t e = api.contextGetBinarySize(s.context, &size); e != QNN_SUCCESS) {
    return fail("contextGetBinarySize failed: " + openhtp::tools::describe_qnn_error(api, e));
  }
  std::vector<uint8_t> bytes(size);
  Qnn_ContextBinarySize_t written = 0;
  if (Qnn_ErrorHandle_t e = api.contextGetBinary(s.context, bytes.data(), bytes.size(), &written); e != QNN_SUCCESS) {
    return fail("contextGetBinary failed: " + openhtp::tools::describe_qnn_error(api, e));
  }
  bytes.resize(written);

  const fs::path path = output_path(opt);
  if (!write_file(path, bytes, &error)) return fail(error);
  std::string names;
  for (const std::string& n : graph_names) names += (names.empty() ? "" : ", ") + n;
  std::printf("%s: wrote %s (%zu bytes; %zu graph%s: %s)\n", kTool, path.string().c_str(), bytes.size(),
              graph_names.size(), graph_names.size() == 1 ? "" : "s", names.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string error;
  if (!parse_options(argc, argv, &opt, &error)) {
    std::fprintf(stderr, "%s: error: %s\n\n%s", kTool, error.c_str(), usage_text());
    return 1;
  }
  if (opt.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  if (opt.version) {
    std::printf("%s (openhtp %s) QNN core API %d.%d.%d\n", kTool, OPENHTP_VERSION, QNN_API_VERSION_MAJOR,
                QNN_API_VERSION_MINOR, QNN_API_VERSION_PATCH);
    return 0;
  }
  return run(opt);
}
