// --config_file: the JSON qnn-net-run and QNN's generator accept. Only
// context_configs.context_priority is applied for now; every other key is
// reported as ignored.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "QnnTypes.h"

namespace openhtp::generator {

struct ConfigFile {
  std::optional<Qnn_Priority_t> context_priority;
  std::vector<std::string> ignored_keys;  // dotted paths, for warnings
};

// Reads and checks `path`. Returns false with a one-line reason in *error
// when the file cannot be read, is not a JSON object, or has a known key with
// a value of the wrong type or out of range.
bool read_config_file(const std::string& path, ConfigFile* out, std::string* error);

}  // namespace openhtp::generator
