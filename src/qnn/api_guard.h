// The C ABI never throws: what an exported QNN entry point does with an
// exception that escapes its body.
//
// A C caller cannot catch a C++ exception; one that leaves an extern "C"
// function terminates the client's process. So every entry point of
// libQnnHtp is a function-try-block whose handler is
//
//   } catch (...) {
//     return openhtp::qnn::api_exception("backendCreate");
//   }
//
// which turns the exception in flight into a QNN error code and one error line
// through the QNN log callback (docs/design.md §5: every failure is an error
// code plus one line). Rules are still reported by their own checks; this is
// for what no rule foresees: an allocation that fails, a library underneath
// that throws.
#pragma once

#include "QnnCommon.h"

namespace openhtp::qnn {

// Call only from a catch handler. std::bad_alloc -> QNN_COMMON_ERROR_MEM_ALLOC
// (every API's *_ERROR_MEM_ALLOC has that value); any other exception ->
// `otherwise`. Logs "<api>: internal error: <what()>". Never throws, even when
// logging itself runs out of memory.
Qnn_ErrorHandle_t api_exception(const char* api, Qnn_ErrorHandle_t otherwise = QNN_COMMON_ERROR_GENERAL) noexcept;

}  // namespace openhtp::qnn
