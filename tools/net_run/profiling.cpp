#include "profiling.h"

#include <filesystem>

namespace openhtp::netrun {

Profiler::~Profiler() { release(); }

bool Profiler::start(const Options& opt, const QNN_INTERFACE_VER_TYPE& api, Qnn_BackendHandle_t backend,
                     std::string* error) {
  if (!opt.profiling_level) return true;
  enabled_ = true;
  api_ = &api;
  backend_ = backend;
  level_ = *opt.profiling_level;
  level_name_ = opt.profiling_level_name;
  backend_path_ = opt.backend;
  openhtp::tools::ProfileRunMeta meta;
  meta.tool = "qnn-net-run";
  meta.backend = std::filesystem::path(opt.backend).filename().string();
  meta.profiling_level = level_name_;
  scratch_.begin(meta);
  log_.begin(meta);
  phase_start_ = std::chrono::steady_clock::now();
  if (level_name_ == "client") return true;
  if (const Qnn_ErrorHandle_t e = api.profileCreate(backend, level_, &handle_); e != QNN_SUCCESS) {
    handle_ = nullptr;
    *error = "profileCreate (level " + level_name_ + ") failed with error " + std::to_string(e);
    return false;
  }
  return true;
}

bool Profiler::end_phase(const std::string& phase, uint64_t index, std::string* error) {
  if (!enabled_) return true;
  if (!scratch_.add_phase(phase, index, *api_, handle_, error)) return false;
  openhtp::tools::ProfilePhase p = std::move(scratch_.take_phases().back());
  openhtp::tools::ProfileEventRecord netrun;
  netrun.identifier = "NetRun";
  netrun.type = phase == "execute" ? QNN_PROFILE_EVENTTYPE_EXECUTE
                : phase == "finalize" ? QNN_PROFILE_EVENTTYPE_FINALIZE
                : phase == "deinit"   ? QNN_PROFILE_EVENTTYPE_DEINIT
                                      : QNN_PROFILE_EVENTTYPE_INIT;
  netrun.unit = QNN_PROFILE_EVENTUNIT_MICROSEC;
  netrun.value = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                           std::chrono::steady_clock::now() - phase_start_)
                                           .count());
  p.events.push_back(std::move(netrun));
  if (writer_.is_open()) {
    if (!writer_.add(p, error)) return false;
  } else {
    log_.add_phase(std::move(p));
  }
  // A fresh handle per phase keeps each collection proportional to its own
  // events, however long a --duration run is.
  if (handle_ != nullptr && phase == "execute") {
    api_->profileFree(handle_);
    scratch_.forget_handle(handle_);
    handle_ = nullptr;
    if (const Qnn_ErrorHandle_t e = api_->profileCreate(backend_, level_, &handle_); e != QNN_SUCCESS) {
      handle_ = nullptr;
      *error = "profileCreate failed with error " + std::to_string(e);
      return false;
    }
  }
  return true;
}

void Profiler::release() {
  if (handle_ != nullptr && api_ != nullptr) api_->profileFree(handle_);
  handle_ = nullptr;
}

bool Profiler::open_log(const std::string& output_dir, std::string* error) {
  if (!enabled_) return true;
  openhtp::tools::ProfileRunMeta meta = log_.meta();
  meta.graphs = graphs_;
  log_path_ = (std::filesystem::path(output_dir) / openhtp::tools::kProfileLogFileName).string();
  if (!writer_.open(log_path_, meta, error)) return false;
  for (const auto& p : log_.take_phases()) {
    if (!writer_.add(p, error)) return false;
  }
  return true;
}

bool Profiler::finish(std::string* path, std::string* error) {
  if (!enabled_) return true;
  if (!writer_.is_open()) {
    *error = "the profiling log was never started";
    return false;
  }
  *path = log_path_;
  return writer_.finish(error);
}

}  // namespace openhtp::netrun
