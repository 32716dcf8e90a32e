// The C ABI never throws: what an exported rpcmem / FastRPC entry point does
// with an exception that escapes its body (an allocation that fails inside the
// buffer registry or the DSP session, a library underneath that throws).
//
// A C caller cannot catch a C++ exception, so every entry point of libcdsprpc
// is a function-try-block whose handler calls api_exception() and returns its
// AEE code (or NULL / -1 where the function returns a pointer or an fd; void
// functions just log).
#pragma once

namespace openhtp::fastrpc {

// Call only from a catch handler. std::bad_alloc -> AEE_ENOMEMORY, anything
// else -> AEE_EFAILED. Logs "<api>: internal error: <what()>" (stderr, like
// every libcdsprpc line). Never throws.
int api_exception(const char* api) noexcept;

}  // namespace openhtp::fastrpc
