#include "system/system_log.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

#include "System/QnnSystemCommon.h"
#include "System/QnnSystemLog.h"

namespace openhtp::system {
namespace {

struct LogSink {
  QnnLog_Callback_t callback;  // NULL: the platform default stream (stderr)
  QnnLog_Level_t level;
};

// Leaked on purpose: clients may log from static destructors.
std::mutex& mu() {
  static auto* m = new std::mutex;
  return *m;
}
std::map<uintptr_t, LogSink>& sinks() {
  static auto* s = new std::map<uintptr_t, LogSink>;
  return *s;
}
// Handles are numbers, never pointers, and never reused: a stale or foreign
// handle is found missing instead of being dereferenced.
uintptr_t g_next = 0x53500000;

bool level_valid(QnnLog_Level_t l) { return l >= QNN_LOG_LEVEL_ERROR && l <= QNN_LOG_LEVEL_DEBUG; }

// The callback takes a va_list; build one around the finished message.
void deliver(QnnLog_Callback_t cb, QnnLog_Level_t level, uint64_t ts, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cb(fmt, level, ts, ap);
  va_end(ap);
}

}  // namespace

Qnn_ErrorHandle_t log_create(QnnLog_Callback_t callback, QnnLog_Level_t max_level, Qnn_LogHandle_t* handle) {
  if (handle == nullptr || !level_valid(max_level)) return QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT;
  std::lock_guard lock(mu());
  const uintptr_t h = ++g_next;
  sinks()[h] = LogSink{callback, max_level};
  *handle = reinterpret_cast<Qnn_LogHandle_t>(h);
  return QNN_SUCCESS;
}

Qnn_ErrorHandle_t log_set_level(Qnn_LogHandle_t handle, QnnLog_Level_t max_level) {
  if (!level_valid(max_level)) return QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT;
  std::lock_guard lock(mu());
  auto it = sinks().find(reinterpret_cast<uintptr_t>(handle));
  if (it == sinks().end()) return QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE;
  it->second.level = max_level;
  return QNN_SUCCESS;
}

Qnn_ErrorHandle_t log_free(Qnn_LogHandle_t handle) {
  std::lock_guard lock(mu());
  return sinks().erase(reinterpret_cast<uintptr_t>(handle)) != 0 ? QNN_SUCCESS
                                                                  : QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE;
}

void log_message(QnnLog_Level_t level, const char* fmt, ...) {
  std::vector<LogSink> targets;
  {
    std::lock_guard lock(mu());
    for (const auto& [h, s] : sinks()) {
      if (level <= s.level) targets.push_back(s);
    }
  }
  if (targets.empty()) return;  // formatting is not free; skip it when nobody listens
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const uint64_t ts = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
  // Called outside the lock: a callback may itself call into the log API.
  for (const LogSink& s : targets) {
    if (s.callback != nullptr) {
      deliver(s.callback, level, ts, "%s", msg);
    } else {
      std::fprintf(stderr, "QnnSystem: %s\n", msg);
    }
  }
}

}  // namespace openhtp::system

extern "C" {

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemLog_create(QnnLog_Callback_t callback, QnnLog_Level_t maxLogLevel,
                                                     Qnn_LogHandle_t* logger) {
  return openhtp::system::log_create(callback, maxLogLevel, logger);
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemLog_setLogLevel(Qnn_LogHandle_t logger, QnnLog_Level_t maxLogLevel) {
  return openhtp::system::log_set_level(logger, maxLogLevel);
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemLog_free(Qnn_LogHandle_t logger) { return openhtp::system::log_free(logger); }

}  // extern "C"
