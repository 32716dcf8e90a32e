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
  openhtp::tools::ProfilePhase p = scratch_.phases().back();
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
  log_.add_phase(std::move(p));
  // A fresh handle per phase keeps each collection proportional to its own
  // events, however long a --duration run is.
  if (handle_ != nullptr && phase == "execute") {
    api_->profileFree(handle_);
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

bool Profiler::write(const std::string& output_dir, std::string* path, std::string* error) {
  if (!enabled_) return true;
  openhtp::tools::ProfileLog out = std::move(log_);
  openhtp::tools::ProfileRunMeta meta = out.meta();
  meta.graphs = graphs_;
  // begin() resets phases, so rebuild with the final meta.
  openhtp::tools::ProfileLog final_log;
  final_log.begin(meta);
  for (const auto& p : out.phases()) final_log.add_phase(p);
  *path = (std::filesystem::path(output_dir) / openhtp::tools::kProfileLogFileName).string();
  return final_log.write(*path, error);
}

}  // namespace openhtp::netrun
