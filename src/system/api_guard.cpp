#include "system/api_guard.h"

#include <exception>
#include <new>

#include "system/system_log.h"

namespace openhtp::system {

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
  // The log fan-out may allocate; if memory is what ran out, the code alone
  // has to say it (this library never writes to stderr on its own).
  try {
    SYS_LOG_ERROR("%s: internal error: %s", api, what);
  } catch (...) {
  }
  return code;
}

}  // namespace openhtp::system
