#include "common/log.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace openhtp {
namespace {

LogLevel threshold_from_env() {
  const char* v = std::getenv("OPENHTP_LOG");
  if (v == nullptr) return LogLevel::kWarn;
  if (std::strcmp(v, "error") == 0) return LogLevel::kError;
  if (std::strcmp(v, "info") == 0) return LogLevel::kInfo;
  if (std::strcmp(v, "debug") == 0) return LogLevel::kDebug;
  return LogLevel::kWarn;
}

LogLevel threshold() {
  static const LogLevel t = threshold_from_env();
  return t;
}

const char* tag(LogLevel l) {
  switch (l) {
    case LogLevel::kError: return "E";
    case LogLevel::kWarn: return "W";
    case LogLevel::kInfo: return "I";
    case LogLevel::kDebug: return "D";
  }
  return "?";
}

}  // namespace

bool log_enabled(LogLevel level) { return static_cast<int>(level) <= static_cast<int>(threshold()); }

void log(LogLevel level, const char* component, const char* fmt, ...) {
  if (!log_enabled(level)) return;
  char line[1024];
  int n = std::snprintf(line, sizeof line, "openhtp[%d] %s %s: ", static_cast<int>(getpid()), tag(level),
                        component);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && n < static_cast<int>(sizeof line)) n += std::vsnprintf(line + n, sizeof line - n, fmt, ap);
  va_end(ap);
  if (n >= static_cast<int>(sizeof line) - 1) n = sizeof line - 2;
  line[n++] = '\n';
  // One write() so concurrent lines from several processes do not interleave.
  ssize_t ignored = write(STDERR_FILENO, line, n);
  (void)ignored;
}

}  // namespace openhtp
