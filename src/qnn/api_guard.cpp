#include "qnn/api_guard.h"

#include <cstdio>
#include <exception>
#include <new>

#include "qnn/logger.h"

namespace openhtp::qnn {

Qnn_ErrorHandle_t api_exception(const char* api, Qnn_ErrorHandle_t otherwise) noexcept {
  Qnn_ErrorHandle_t code = otherwise;
  const char* what = "unknown exception";
  // Rethrowing the exception in flight is the one portable way to learn its type.
  try {
    throw;
  } catch (const std::bad_alloc& e) {
    code = QNN_COMMON_ERROR_MEM_ALLOC;
    what = e.what();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
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
