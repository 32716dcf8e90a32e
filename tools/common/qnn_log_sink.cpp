#include "common/qnn_log_sink.h"

#include <chrono>
#include <cstdio>
#include <cstring>

namespace openhtp::tools {
namespace {

const auto g_start = std::chrono::steady_clock::now();

}  // namespace

void qnn_log_to_stderr(const char* fmt, QnnLog_Level_t level, uint64_t /*timestamp*/, va_list args) {
  const char* tag = level == QNN_LOG_LEVEL_ERROR     ? "ERROR"
                    : level == QNN_LOG_LEVEL_WARN    ? "WARNING"
                    : level == QNN_LOG_LEVEL_INFO    ? "INFO"
                    : level == QNN_LOG_LEVEL_VERBOSE ? "VERBOSE"
                                                     : "DEBUG";
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_start).count();
  char text[4096];
  std::vsnprintf(text, sizeof text, fmt, args);
  size_t n = std::strlen(text);
  while (n > 0 && text[n - 1] == '\n') text[--n] = '\0';
  std::fprintf(stderr, "%10.1fms [%s] %s\n", ms, tag, text);
}

}  // namespace openhtp::tools
