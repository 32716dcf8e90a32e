// The C ABI never throws: what an exported libQnnSystem entry point does with
// an exception that escapes its body (an allocation that fails while a binary
// is decoded or its info is built, a library underneath that throws).
//
// A C caller cannot catch a C++ exception, so every entry point is a
// function-try-block whose handler is
//
//   } catch (...) {
//     return openhtp::system::api_exception("systemContextCreate", QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED);
//   }
#pragma once

#include "QnnCommon.h"

namespace openhtp::system {

// Call only from a catch handler. std::bad_alloc -> QNN_COMMON_ERROR_MEM_ALLOC,
// anything else -> `otherwise`. Logs "<api>: internal error: <what()>" through
// the system log handles (silent without one, as every libQnnSystem line).
// Never throws.
Qnn_ErrorHandle_t api_exception(const char* api, Qnn_ErrorHandle_t otherwise = QNN_COMMON_ERROR_GENERAL) noexcept;

}  // namespace openhtp::system
