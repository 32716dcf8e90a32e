#include "common/current_exception.h"

#include <exception>
#include <new>

namespace openhtp {

CaughtException classify_current_exception() noexcept {
  CaughtException c;
  // Rethrowing the exception in flight is the one portable way to learn its type.
  try {
    throw;
  } catch (const std::bad_alloc& e) {
    c.out_of_memory = true;
    c.what = e.what();
  } catch (const std::exception& e) {
    c.what = e.what();
  } catch (...) {
  }
  return c;
}

}  // namespace openhtp
