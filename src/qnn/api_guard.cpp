#include "qnn/api_guard.h"

#include <cstdio>

#include "common/current_exception.h"
#include "qnn/logger.h"

namespace openhtp::qnn {

Qnn_ErrorHandle_t api_exception(const char* api, Qnn_ErrorHandle_t otherwise) noexcept {
  const CaughtException c = classify_current_exception();
  const Qnn_ErrorHandle_t code = c.out_of_memory ? Qnn_ErrorHandle_t{QNN_COMMON_ERROR_MEM_ALLOC} : otherwise;
  const char* what = c.what;
  // The log path may allocate (the fan-out to callbacks); if memory is what ran
  // out, fall back to stderr rather than let a second exception escape.
  try {
    QNN_LOG_ERROR("%s: internal error: %s", api, what);
  } catch (...) {
    std::fprintf(stderr, "QnnHtp error: %s: internal error: %s\n", api, what);
  }
  return code;
}

}  // namespace openhtp::qnn
