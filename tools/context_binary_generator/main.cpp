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
#include <fstream>
#include <string>
#include <vector>

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

// Log sink handed to the backend and to the model libraries: one line per
// message on stderr, with the time since start and the level.
const auto g_start = std::chrono::steady_clock::now();

void log_to_stderr(const char* fmt, QnnLog_Level_t level, uint64_t /*timestamp*/, va_list args) {
  const char* tag = level == QNN_LOG_LEVEL_ERROR     ? "ERROR"
                    : level == QNN_LOG_LEVEL_WARN    ? "WARNING"
                    : level == QNN_LOG_LEVEL_INFO    ? "INFO"
                    : level == QNN_LOG_LEVEL_VERBOSE ? "VERBOSE"
                                                     : "DEBUG";
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_start).count();
  char text[4096];
  std::vsnprintf(text, sizeof text, fmt, args);
  size_t n = std::strlen(text);
  while (n > 0 && text[n - 1] == '\n') text[--n] = '\0';
  std::fprintf(stderr, "%10.1fms [%s] %s\n", ms, tag, text);
}

std::string describe(const QNN_INTERFACE_VER_TYPE& api, Qnn_ErrorHandle_t e) {
  std::string s = "error " + std::to_string(e);
  const char* message = nullptr;
  if (api.errorGetMessage != nullptr && api.errorGetMessage(e, &message) == QNN_SUCCESS && message != nullptr &&
      *message != '\0') {
    s += std::string(" (") + message + ")";
  }
  return s;
}

std::string dl_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

struct ModelLibrary {
  std::string path;
  void* handle = nullptr;
  ComposeGraphsFnHandleType_t compose = nullptr;
  FreeGraphInfoFnHandleType_t free_info = nullptr;
  GraphInfo_t** graphs = nullptr;
  uint32_t num_graphs = 0;
};

// Owns everything created along the way and releases it in reverse order,
// whichever step failed.
struct Session {
  std::vector<ModelLibrary> models;
  void* backend_lib = nullptr;
  const QNN_INTERFACE_VER_TYPE* api = nullptr;
  Qnn_LogHandle_t log = nullptr;
  Qnn_BackendHandle_t backend = nullptr;
  Qnn_ContextHandle_t context = nullptr;

  ~Session() {
    for (ModelLibrary& m : models) {
      if (m.graphs != nullptr && m.free_info != nullptr) {
        if (const ModelError_t e = m.free_info(&m.graphs, m.num_graphs); e != MODEL_NO_ERROR) {
          warn(m.path + ": " + "freeGraphsInfo returned " + model_error_name(e));
        }
      }
    }
    if (api != nullptr) {
      if (context != nullptr) api->contextFree(context, nullptr);
      if (backend != nullptr) api->backendFree(backend);
      if (log != nullptr) api->logFree(log);
    }
    for (ModelLibrary& m : models) {
      if (m.handle != nullptr) dlclose(m.handle);
    }
    if (backend_lib != nullptr) dlclose(backend_lib);
  }
};

bool load_model(const std::string& path, const std::string& prefix, ModelLibrary* m, std::string* error) {
  m->path = path;
  m->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (m->handle == nullptr) {
    *error = "cannot load model library " + path + ": " + dl_error();
    return false;
  }
  const std::string compose_name = prefix + "_composeGraphs";
  const std::string free_name = prefix + "_freeGraphsInfo";
  m->compose = reinterpret_cast<ComposeGraphsFnHandleType_t>(dlsym(m->handle, compose_name.c_str()));
  m->free_info = reinterpret_cast<FreeGraphInfoFnHandleType_t>(dlsym(m->handle, free_name.c_str()));
  std::string missing;
  if (m->compose == nullptr) missing = compose_name;
  if (m->free_info == nullptr) missing += (missing.empty() ? "" : ", ") + free_name;
  if (!missing.empty()) {
    *error = "model library " + path + " does not export " + missing + " (model prefix '" + prefix + "')";
    return false;
  }
  return true;
}

// The first provider with our core API major version and at least our minor
// version, as QNN's SampleApp picks it.
bool load_backend(const std::string& path, Session* s, std::string* error) {
  s->backend_lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (s->backend_lib == nullptr) {
    *error = "cannot load backend library " + path + ": " + dl_error();
    return false;
  }
  using GetProvidersFn = Qnn_ErrorHandle_t (*)(const QnnInterface_t***, uint32_t*);
  auto get_providers = reinterpret_cast<GetProvidersFn>(dlsym(s->backend_lib, "QnnInterface_getProviders"));
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
      s->api = &providers[i]->QNN_INTERFACE_VER_NAME;
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
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (out) out.close();
  if (!out) {
    *error = "cannot write " + path.string() + ": " + std::strerror(errno);
    fs::remove(path, ec);
    return false;
  }
  return true;
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
    if (!load_model(opt.models[i], opt.model_prefix, &s.models[i], &error)) return fail(error);
  }

  if (!load_backend(opt.backend, &s, &error)) return fail(error);
  const QNN_INTERFACE_VER_TYPE& api = *s.api;
  if (Qnn_ErrorHandle_t e = api.logCreate(log_to_stderr, opt.log_level, &s.log); e != QNN_SUCCESS) {
    return fail("logCreate failed: " + describe(api, e));
  }
  if (Qnn_ErrorHandle_t e = api.backendCreate(s.log, nullptr, &s.backend); e != QNN_SUCCESS) {
    return fail("backendCreate failed: " + describe(api, e));
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
    return fail("contextCreate failed: " + describe(api, e));
  }

  std::vector<std::string> graph_names;
  for (ModelLibrary& m : s.models) {
    const ModelError_t me = m.compose(s.backend, api, s.context, nullptr, 0, &m.graphs, &m.num_graphs, false,
                                      log_to_stderr, opt.log_level);
    if (me != MODEL_NO_ERROR) {
      return fail(m.path + ": " + opt.model_prefix + "_composeGraphs failed with " + model_error_name(me) + " (" +
                  std::to_string(static_cast<uint32_t>(me)) + ")");
    }
    if (m.graphs == nullptr || m.num_graphs == 0) return fail(m.path + ": composeGraphs returned no graphs");
    for (uint32_t g = 0; g < m.num_graphs; ++g) {
      const GraphInfo_t* info = m.graphs[g];
      if (info == nullptr || info->graph == nullptr) {
        return fail(m.path + ": composeGraphs returned an empty graph entry " + std::to_string(g));
      }
      const std::string name = info->graphName != nullptr ? info->graphName : "#" + std::to_string(g);
      if (Qnn_ErrorHandle_t e = api.graphFinalize(info->graph, nullptr, nullptr); e != QNN_SUCCESS) {
        return fail("graphFinalize of graph '" + name + "' from " + m.path + " failed: " + describe(api, e));
      }
      graph_names.push_back(name);
    }
  }

  Qnn_ContextBinarySize_t size = 0;
  if (Qnn_ErrorHandle_t e = api.contextGetBinarySize(s.context, &size); e != QNN_SUCCESS) {
    return fail("contextGetBinarySize failed: " + describe(api, e));
  }
  std::vector<uint8_t> bytes(size);
  Qnn_ContextBinarySize_t written = 0;
  if (Qnn_ErrorHandle_t e = api.contextGetBinary(s.context, bytes.data(), bytes.size(), &written); e != QNN_SUCCESS) {
    return fail("contextGetBinary failed: " + describe(api, e));
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
