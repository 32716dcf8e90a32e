#include "common/context_configs_json.h"


namespace openhtp::tools {

bool read_context_configs_json(const nlohmann::json& value, const std::string& path, std::optional<Qnn_Priority_t>* priority,
                               std::vector<std::string>* ignored, std::string* error) {
  if (!value.is_object()) {
    *error = "config file " + path + ": context_configs must be a JSON object";
    return false;
  }
  for (const auto& [key, v] : value.items()) {
    if (key != "context_priority") {
      ignored->push_back("context_configs." + key);
      continue;
    }
    const std::string s = v.is_string() ? v.get<std::string>() : std::string();
    if (s == "low") *priority = QNN_PRIORITY_LOW;
    else if (s == "normal") *priority = QNN_PRIORITY_NORMAL;
    else if (s == "normal_high") *priority = QNN_PRIORITY_NORMAL_HIGH;
    else if (s == "high") *priority = QNN_PRIORITY_HIGH;
    else {
      *error = "config file " + path + ": context_configs.context_priority must be one of low, normal, " +
               "normal_high, high (got " + v.dump() + ")";
      return false;
    }
  }
  return true;
}

}  // namespace openhtp::tools
