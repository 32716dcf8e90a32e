// --config_file: qnn-net-run's JSON (reference §1.6). What is applied:
//   backend_extensions.config_file_path   the HTP backend-extension file; handed to
//                                         libQnnHtp as the platform option
//                                         "backend_extensions=<path>", which is how
//                                         openhtp's backend reads it (docs/user-guide.md)
//   backend_extensions.shared_library_path accepted (libQnnHtpNetRunExtensions.so does
//                                         not exist here: libQnnHtp reads the file itself)
//   context_configs.context_priority      the context's priority
// and, from the extension file, "memory": {"mem_type": "shared_buffer"}, which
// turns on --shared_buffer (the backend reads the rest of that file).
// Every other key is reported as ignored.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "QnnTypes.h"

namespace openhtp::netrun {

struct ConfigFile {
  std::string extensions_library;   // backend_extensions.shared_library_path
  std::string extensions_file;      // backend_extensions.config_file_path
  bool shared_buffer = false;       // memory.mem_type == "shared_buffer" in the extension file
  std::optional<Qnn_Priority_t> context_priority;
  std::vector<std::string> ignored_keys;  // dotted paths, for warnings
};

// False + one-line *error when a file cannot be read, is not a JSON object,
// or a known key has a value of the wrong type or range.
bool read_config_file(const std::string& path, ConfigFile* out, std::string* error);

}  // namespace openhtp::netrun
