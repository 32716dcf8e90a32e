#include "config_file.h"

#include "common/context_configs_json.h"

#include <nlohmann/json.hpp>

#include "common/file_bytes.h"

namespace openhtp::generator {

bool read_config_file(const std::string& path, ConfigFile* out, std::string* error) {
  std::string text;
  if (!openhtp::read_file_text(path, &text, error)) {
    *error = "config file " + path + ": " + *error;
    return false;
  }
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    *error = "config file " + path + " is not valid JSON";
    return false;
  }
  if (!doc.is_object()) {
    *error = "config file " + path + ": the top level must be a JSON object";
    return false;
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "context_configs") {
      out->ignored_keys.push_back(key);
      continue;
    }
    if (!openhtp::tools::read_context_configs_json(value, path, &out->context_priority, &out->ignored_keys, error)) {
      return false;
    }
  }
  return true;
}

}  // namespace openhtp::generator
