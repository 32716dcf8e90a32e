#include "config_file.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace openhtp::generator {

bool read_config_file(const std::string& path, ConfigFile* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open config file " + path;
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
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
    if (!value.is_object()) {
      *error = "config file " + path + ": context_configs must be a JSON object";
      return false;
    }
    for (const auto& [ckey, cvalue] : value.items()) {
      if (ckey != "context_priority") {
        out->ignored_keys.push_back("context_configs." + ckey);
        continue;
      }
      const std::string s = cvalue.is_string() ? cvalue.get<std::string>() : std::string();
      if (s == "low") out->context_priority = QNN_PRIORITY_LOW;
      else if (s == "normal") out->context_priority = QNN_PRIORITY_NORMAL;
      else if (s == "normal_high") out->context_priority = QNN_PRIORITY_NORMAL_HIGH;
      else if (s == "high") out->context_priority = QNN_PRIORITY_HIGH;
      else {
        *error = "config file " + path + ": context_configs.context_priority must be one of low, normal, " +
                 "normal_high, high (got " + cvalue.dump() + ")";
        return false;
      }
    }
  }
  return true;
}

}  // namespace openhtp::generator
