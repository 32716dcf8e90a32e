// The QNN objects of one qnn-net-run: backend library, log, backend, one
// context holding the graphs (composed from model libraries and finalized,
// or loaded from a context binary and retrieved), and each graph's I/O.
// Released in reverse order, whichever step failed.
#pragma once

#include <string>
#include <vector>

#include "binary_info.h"
#include "common/qnn_library.h"
#include "config_file.h"
#include "options.h"
#include "profiling.h"

namespace openhtp::netrun {

struct Graph {
  GraphIo io;
  Qnn_GraphHandle_t handle = nullptr;
};

class Session {
 public:
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  // Loads everything up to executable graphs. The profiler is started on the
  // backend and gets the "init" (and, for --model, "finalize") phases.
  bool open(const Options& opt, const ConfigFile& config, Profiler* profiler, std::string* error);

  // Frees graphs' infos, the context (the profiler's "deinit" phase when
  // `record_deinit`), the profile handle, then the backend and the log.
  // Called by the destructor (recording nothing) if not before.
  bool close(bool record_deinit, std::string* error);

  const QNN_INTERFACE_VER_TYPE& api() const { return *backend_lib_.api; }
  Qnn_BackendHandle_t backend() const { return backend_; }
  Qnn_ContextHandle_t context() const { return context_; }
  // A symbol of the backend library (openhtp's extensions), or NULL.
  void* backend_symbol(const char* name) const;
  std::vector<Graph>& graphs() { return graphs_; }

 private:
  bool open_from_models(const Options& opt, const QnnContext_Config_t** configs, Profiler* profiler,
                        std::string* error);
  bool open_from_binary(const Options& opt, const QnnContext_Config_t** configs, Profiler* profiler,
                        std::string* error);

  openhtp::tools::BackendLibrary backend_lib_;
  std::vector<openhtp::tools::ModelLibrary> models_;
  struct ComposedGraphs {
    FreeGraphInfoFnHandleType_t free_info;
    GraphInfo_t** infos;
    uint32_t count;
  };
  std::vector<ComposedGraphs> model_graphs_;
  Profiler* profiler_ = nullptr;
  Qnn_LogHandle_t log_ = nullptr;
  Qnn_BackendHandle_t backend_ = nullptr;
  Qnn_ContextHandle_t context_ = nullptr;
  std::vector<Graph> graphs_;
  std::string platform_option_;  // must outlive backendCreate
};

}  // namespace openhtp::netrun
