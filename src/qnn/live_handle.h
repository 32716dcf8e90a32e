// The two checks nearly every QNN entry point starts with — a handle that
// must name a live object of one kind, a pointer argument that must not be
// NULL — each with the error line a refusal owes the client
// (docs/design.md §5: every failure is an error code plus one line that
// names the rule and the value). Without them a stale handle was refused
// with the right code and nothing in the client's log said which call or
// which handle.
#pragma once

#include <memory>

#include "QnnCommon.h"
#include "qnn/object_table.h"

namespace openhtp::qnn {

// "backend", "context", ...: how the lines name a kind.
const char* kind_name(ObjectKind kind);

// Logs "<api>: <handle> is not a live <kind> handle".
void report_dead_handle(const char* api, ObjectKind kind, const void* handle);

// The live object `handle` names, or null after report_dead_handle().
template <typename T>
std::shared_ptr<T> live_object(const char* api, ObjectKind kind, const void* handle) {
  std::shared_ptr<T> obj = find_object<T>(kind, handle);
  if (!obj) report_dead_handle(api, kind, handle);
  return obj;
}

// Whether `handle` names a live object, reporting it when it does not.
inline bool live_handle(const char* api, ObjectKind kind, const void* handle) {
  if (ObjectTable::instance().find(kind, handle)) return true;
  report_dead_handle(api, kind, handle);
  return false;
}

// Logs "<api>: <argument> is NULL" and returns `code`: for a pointer the
// call must read or write through.
Qnn_ErrorHandle_t null_argument(const char* api, const char* argument, Qnn_ErrorHandle_t code);

}  // namespace openhtp::qnn
