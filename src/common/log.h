// Diagnostic log for the layers below QNN (libcdsprpc, the DSP process).
//
// QNN-level messages go to the client's QnnLog callback instead (src/qnn/log).
// Here there is no callback to honour, so lines go to stderr, filtered by the
// OPENHTP_LOG environment variable: error | warn (default) | info | debug.
#pragma once

#include <cstdarg>

namespace openhtp {

enum class LogLevel { kError = 1, kWarn = 2, kInfo = 3, kDebug = 4 };

// printf-style; `component` prefixes the line ("fastrpc", "cdsp").
void log(LogLevel level, const char* component, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool log_enabled(LogLevel level);

}  // namespace openhtp
