// libQnnSystem.so as a client loads it: dlopen, QnnSystemInterface_getProviders,
// pick a provider whose system API this tool was written against.
//
// dlopen rather than linking: it is how QNN's own tools and runtimes use the
// System library, and it lets this tool read binaries through another
// libQnnSystem.so (e.g. Qualcomm's, through LD_LIBRARY_PATH) unchanged.
#pragma once

#include <string>

#include "System/QnnSystemInterface.h"
#include "system/openhtp_system_ext.h"

namespace openhtp::tools {

class SystemLibrary {
 public:
  SystemLibrary() = default;
  ~SystemLibrary();
  SystemLibrary(const SystemLibrary&) = delete;
  SystemLibrary& operator=(const SystemLibrary&) = delete;

  // Tries "libQnnSystem.so" (the executable's RUNPATH $ORIGIN/../lib, then
  // the usual search), then <dir of /proc/self/exe>/../lib/libQnnSystem.so.
  bool load(std::string* error);

  const QNN_SYSTEM_INTERFACE_VER_TYPE& api() const { return *api_; }
  // openhtp's extension; NULL with another libQnnSystem.so.
  OpenHtpSystemContext_GetWeightsSizeFn_t get_weights_size() const { return get_weights_size_; }
  const std::string& path() const { return path_; }

 private:
  void* handle_ = nullptr;
  const QNN_SYSTEM_INTERFACE_VER_TYPE* api_ = nullptr;
  OpenHtpSystemContext_GetWeightsSizeFn_t get_weights_size_ = nullptr;
  std::string path_;
};

// Collects the library's error lines through a system log handle, so that a
// failure can be reported with the library's reason, not just its code.
class SystemLogCapture {
 public:
  explicit SystemLogCapture(const SystemLibrary& lib);
  ~SystemLogCapture();
  SystemLogCapture(const SystemLogCapture&) = delete;
  SystemLogCapture& operator=(const SystemLogCapture&) = delete;

  // The most recent error line since construction (empty if none).
  std::string last_error() const;

 private:
  const SystemLibrary& lib_;
  Qnn_LogHandle_t log_ = nullptr;
};

}  // namespace openhtp::tools
