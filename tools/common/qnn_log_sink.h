// The log callback the tools hand to a backend and to model libraries: one
// line per message on stderr, with the time since the tool started and the
// level ("   12.3ms [WARNING] ...").
#pragma once

#include <cstdarg>
#include <cstdint>

#include "QnnLog.h"

namespace openhtp::tools {

void qnn_log_to_stderr(const char* fmt, QnnLog_Level_t level, uint64_t timestamp, va_list args);

}  // namespace openhtp::tools
