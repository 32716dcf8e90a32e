// What the exception being handled is, for the places that turn one into an
// error code at a C boundary (the api_guard of each library, the HTP
// runtime's methods). One copy of the rethrow-and-classify idiom.
#pragma once

namespace openhtp {

struct CaughtException {
  bool out_of_memory = false;             // std::bad_alloc (or a subclass)
  const char* what = "unknown exception";  // what(), for std::exception; valid while the handler runs
};

// Call only inside a catch handler. Never throws.
CaughtException classify_current_exception() noexcept;

}  // namespace openhtp
