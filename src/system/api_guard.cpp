#include "system/api_guard.h"

#include "common/current_exception.h"
#include "system/system_log.h"

namespace openhtp::system {

Qnn_ErrorHandle_t api_exception(const char* api, Qnn_ErrorHandle_t otherwise) noexcept {
  const CaughtException c = classify_current_exception();
  const Qnn_ErrorHandle_t code = c.out_of_memory ? Qnn_ErrorHandle_t{QNN_COMMON_ERROR_MEM_ALLOC} : otherwise;
  const char* what = c.what;
  // The log fan-out may allocate; if memory is what ran out, the code alone
  // has to say it (this library never writes to stderr on its own).
  try {
    SYS_LOG_ERROR("%s: internal error: %s", api, what);
  } catch (...) {
  }
  return code;
}

}  // namespace openhtp::system
