#include "qnn/logger.h"

#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

namespace openhtp::qnn {
namespace {

struct LogSink {
  QnnLog_Callback_t callback;
  QnnLog_Level_t level;
};

std::mutex& mu() {
  static auto* m = new std::mutex;
  return *m;
}
std::map<uintptr_t, LogSink>& sinks() {
  static auto* s = new std::map<uintptr_t, LogSink>;
  return *s;
}
uintptr_t g_next = 0x10600000;  // log handles are never reused
thread_local char t_last_error[1024];

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
  if (handle == nullptr || !level_valid(max_level)) return QNN_LOG_ERROR_INVALID_ARGUMENT;
  std::lock_guard lock(mu());
  uintptr_t h = ++g_next;
  sinks()[h] = LogSink{callback, max_level};
  *handle = reinterpret_cast<Qnn_LogHandle_t>(h);
  return QNN_SUCCESS;
}

Qnn_ErrorHandle_t log_set_level(Qnn_LogHandle_t handle, QnnLog_Level_t max_level) {
  if (!level_valid(max_level)) return QNN_LOG_ERROR_INVALID_ARGUMENT;
  std::lock_guard lock(mu());
  auto it = sinks().find(reinterpret_cast<uintptr_t>(handle));
  if (it == sinks().end()) return QNN_LOG_ERROR_INVALID_HANDLE;
  it->second.level = max_level;
  return QNN_SUCCESS;
}

Qnn_ErrorHandle_t log_free(Qnn_LogHandle_t handle) {
  std::lock_guard lock(mu());
  return sinks().erase(reinterpret_cast<uintptr_t>(handle)) != 0 ? QNN_SUCCESS : QNN_LOG_ERROR_INVALID_HANDLE;
}

bool log_handle_valid(Qnn_LogHandle_t handle) {
  std::lock_guard lock(mu());
  return sinks().count(reinterpret_cast<uintptr_t>(handle)) != 0;
}

void log_message(QnnLog_Level_t level, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const uint64_t ts = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
  if (level == QNN_LOG_LEVEL_ERROR) std::snprintf(t_last_error, sizeof t_last_error, "%s", msg);
  std::vector<LogSink> targets;
  bool any = false;
  {
    std::lock_guard lock(mu());
    any = !sinks().empty();
    for (const auto& [h, s] : sinks()) {
      if (level <= s.level) targets.push_back(s);
    }
  }
  for (const LogSink& s : targets) {
    if (s.callback != nullptr) {
      deliver(s.callback, level, ts, "%s", msg);
    } else {
      std::fprintf(stderr, "QnnHtp: %s\n", msg);
    }
  }
  if (!any && level == QNN_LOG_LEVEL_ERROR) std::fprintf(stderr, "QnnHtp error: %s\n", msg);
}

}  // namespace openhtp::qnn

namespace openhtp::qnn {
const char* last_error_message() { return t_last_error; }
}  // namespace openhtp::qnn
