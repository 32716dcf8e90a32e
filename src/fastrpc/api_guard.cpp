#include "fastrpc/api_guard.h"

#include <exception>
#include <new>

#include "AEEStdErr.h"
#include "common/log.h"

namespace openhtp::fastrpc {

int api_exception(const char* api) noexcept {
  int code = AEE_EFAILED;
  const char* what = "unknown exception";
  // Rethrowing the exception in flight is the one portable way to learn its type.
  try {
    throw;
  } catch (const std::bad_alloc& e) {
    code = AEE_ENOMEMORY;
    what = e.what();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  // openhtp::log formats into a stack buffer and write()s it: no allocation.
  log(LogLevel::kError, "fastrpc", "%s: internal error: %s", api, what);
  return code;
}

}  // namespace openhtp::fastrpc
