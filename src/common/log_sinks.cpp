#include "common/log_sinks.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <vector>

namespace openhtp {
namespace {

bool level_valid(QnnLog_Level_t l) { return l >= QNN_LOG_LEVEL_ERROR && l <= QNN_LOG_LEVEL_DEBUG; }

// The callback takes a va_list; build one around the finished message.
void call_with_va_list(QnnLog_Callback_t cb, QnnLog_Level_t level, uint64_t ts, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cb(fmt, level, ts, ap);
  va_end(ap);
}

}  // namespace

LogSinks::Result LogSinks::create(QnnLog_Callback_t callback, QnnLog_Level_t max_level, Qnn_LogHandle_t* handle) {
  if (handle == nullptr || !level_valid(max_level)) return Result::kInvalidArgument;
  std::lock_guard lock(mu_);
  const uintptr_t h = ++next_;
  sinks_[h] = Sink{callback, max_level};
  *handle = reinterpret_cast<Qnn_LogHandle_t>(h);
  return Result::kOk;
}

LogSinks::Result LogSinks::set_level(Qnn_LogHandle_t handle, QnnLog_Level_t max_level) {
  if (!level_valid(max_level)) return Result::kInvalidArgument;
  std::lock_guard lock(mu_);
  auto it = sinks_.find(reinterpret_cast<uintptr_t>(handle));
  if (it == sinks_.end()) return Result::kInvalidHandle;
  it->second.level = max_level;
  return Result::kOk;
}

LogSinks::Result LogSinks::free(Qnn_LogHandle_t handle) {
  std::lock_guard lock(mu_);
  return sinks_.erase(reinterpret_cast<uintptr_t>(handle)) != 0 ? Result::kOk : Result::kInvalidHandle;
}

bool LogSinks::contains(Qnn_LogHandle_t handle) const {
  std::lock_guard lock(mu_);
  return sinks_.count(reinterpret_cast<uintptr_t>(handle)) != 0;
}

bool LogSinks::empty() const {
  std::lock_guard lock(mu_);
  return sinks_.empty();
}

bool LogSinks::admits(QnnLog_Level_t level) const {
  std::lock_guard lock(mu_);
  for (const auto& [h, s] : sinks_) {
    if (level <= s.level) return true;
  }
  return false;
}

int LogSinks::deliver(QnnLog_Level_t level, const char* msg, const char* stderr_prefix) const {
  std::vector<Sink> targets;
  {
    std::lock_guard lock(mu_);
    for (const auto& [h, s] : sinks_) {
      if (level <= s.level) targets.push_back(s);
    }
  }
  const uint64_t ts = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
  for (const Sink& s : targets) {
    if (s.callback != nullptr) {
      call_with_va_list(s.callback, level, ts, "%s", msg);
    } else {
      std::fprintf(stderr, "%s: %s\n", stderr_prefix, msg);
    }
  }
  return static_cast<int>(targets.size());
}

}  // namespace openhtp
