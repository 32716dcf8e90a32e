// The "context_configs" object of a qnn-net-run style --config_file, read
// the same way by every tool that takes one.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "QnnTypes.h"

namespace openhtp::tools {

// Reads `value` (the object under "context_configs" of file `path`):
// context_priority (low, normal, normal_high, high) into *priority; other
// keys are appended to *ignored as "context_configs.<key>". False + *error
// naming the file and key when the value is malformed.
bool read_context_configs_json(const nlohmann::json& value, const std::string& path, std::optional<Qnn_Priority_t>* priority,
                               std::vector<std::string>* ignored, std::string* error);

}  // namespace openhtp::tools
