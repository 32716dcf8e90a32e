#include "fastrpc/api_guard.h"

#include "AEEStdErr.h"
#include "common/current_exception.h"
#include "common/log.h"

namespace openhtp::fastrpc {

int api_exception(const char* api) noexcept {
  const CaughtException c = classify_current_exception();
  const int code = c.out_of_memory ? AEE_ENOMEMORY : AEE_EFAILED;
  const char* what = c.what;
  // openhtp::log formats into a stack buffer and write()s it: no allocation.
  log(LogLevel::kError, "fastrpc", "%s: internal error: %s", api, what);
  return code;
}

}  // namespace openhtp::fastrpc
