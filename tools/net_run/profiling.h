// --profiling_level: QNN profile events of each phase of the run (init,
// finalize, execute #k, deinit) plus qnn-net-run's own wall-clock time of the
// phase (an event "NetRun", µs), written as <output_dir>/qnn-profiling-data_0.log
// by tools/common/profile_log (the format qnn-profile-viewer reads).
// Each phase goes to the log as it ends (once open_log has been called; the
// few phases before that wait in memory), so a --duration run's memory stays
// flat however many executes it makes; the log takes its name at finish().
// "client" records only the NetRun events (no backend profile handle).
#pragma once

#include <chrono>
#include <string>

#include "common/profile_log.h"
#include "options.h"

namespace openhtp::netrun {

class Profiler {
 public:
  Profiler() = default;
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;
  ~Profiler();

  bool enabled() const { return enabled_; }

  // After backendCreate. False + *error when the backend refuses the handle.
  bool start(const Options& opt, const QNN_INTERFACE_VER_TYPE& api, Qnn_BackendHandle_t backend,
             std::string* error);
  void set_graphs(std::vector<std::string> names) { graphs_ = std::move(names); }

  // The handle to pass to the QNN calls of the current phase (NULL when off
  // or "client").
  Qnn_ProfileHandle_t handle() const { return handle_; }

  // Marks the beginning of a phase (its NetRun time counts from here).
  void begin_phase() { phase_start_ = std::chrono::steady_clock::now(); }

  // Takes the events recorded since the previous end_phase into a phase.
  bool end_phase(const std::string& phase, uint64_t index, std::string* error);

  // Releases the handle (before backendFree). Idempotent.
  void release();

  // Starts the log in `output_dir` (which exists) with the phases so far.
  bool open_log(const std::string& output_dir, std::string* error);

  // Ends the log: the file appears under its name, its path in *path.
  bool finish(std::string* path, std::string* error);

 private:
  bool enabled_ = false;
  const QNN_INTERFACE_VER_TYPE* api_ = nullptr;
  Qnn_BackendHandle_t backend_ = nullptr;
  QnnProfile_Level_t level_ = QNN_PROFILE_LEVEL_BASIC;
  Qnn_ProfileHandle_t handle_ = nullptr;
  std::vector<std::string> graphs_;
  std::string backend_path_, level_name_;
  openhtp::tools::ProfileLog scratch_;  // takes events off the handle
  openhtp::tools::ProfileLog log_;      // phases before open_log
  openhtp::tools::ProfileLogWriter writer_;
  std::string log_path_;
  std::chrono::steady_clock::time_point phase_start_{};
};

}  // namespace openhtp::netrun
