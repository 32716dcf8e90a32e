// The QnnLog handle mechanics shared by libQnnHtp (QnnLog_*) and libQnnSystem
// (QnnSystemLog_*): a registry of callbacks with levels, and the fan-out of one
// finished line to every handle whose level admits it. Each library keeps its
// own registry (its own handle numbers) and maps results to its own error codes.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include "QnnLog.h"

namespace openhtp {

class LogSinks {
 public:
  enum class Result { kOk, kInvalidArgument, kInvalidHandle };

  // Handles are numbers from `first_handle` up, never pointers, never reused:
  // a stale or foreign handle is found missing instead of being dereferenced.
  explicit LogSinks(uintptr_t first_handle) : next_(first_handle) {}

  Result create(QnnLog_Callback_t callback, QnnLog_Level_t max_level, Qnn_LogHandle_t* handle);
  Result set_level(Qnn_LogHandle_t handle, QnnLog_Level_t max_level);
  Result free(Qnn_LogHandle_t handle);
  bool contains(Qnn_LogHandle_t handle) const;
  bool empty() const;
  // True if some handle admits `level` (so formatting the line is worth it).
  bool admits(QnnLog_Level_t level) const;
  // Delivers `msg` to every handle whose level admits it, outside the lock (a
  // callback may call the log API). A handle without a callback prints to
  // stderr, prefixed with `stderr_prefix`. Returns how many received it.
  int deliver(QnnLog_Level_t level, const char* msg, const char* stderr_prefix) const;

 private:
  struct Sink {
    QnnLog_Callback_t callback;
    QnnLog_Level_t level;
  };
  mutable std::mutex mu_;
  std::map<uintptr_t, Sink> sinks_;
  uintptr_t next_;
};

}  // namespace openhtp
