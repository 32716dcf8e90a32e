#include "config_file.h"

#include "common/context_configs_json.h"

#include <nlohmann/json.hpp>

#include "common/file_bytes.h"

namespace openhtp::netrun {
namespace {

using nlohmann::json;

bool read_json(const std::string& path, const char* what, json* out, std::string* error) {
  std::string text;
  if (!openhtp::read_file_text(path, &text, error)) {
    *error = std::string(what) + " " + path + ": " + *error;
    return false;
  }
  *out = json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (out->is_discarded() || !out->is_object()) {
    *error = std::string(what) + " " + path + " is not a JSON object";
    return false;
  }
  return true;
}

bool read_string(const json& v, const std::string& key, std::string* out, std::string* error) {
  if (!v.is_string() || v.get<std::string>().empty()) {
    *error = "config file: " + key + " must be a non-empty string (got " + v.dump() + ")";
    return false;
  }
  *out = v.get<std::string>();
  return true;
}

// The part of the HTP extension file qnn-net-run itself acts on.
bool read_extension_memory(const std::string& path, ConfigFile* out, std::string* error) {
  json doc;
  if (!read_json(path, "backend extension file", &doc, error)) return false;
  if (!doc.contains("memory")) return true;
  const json& m = doc["memory"];
  if (!m.is_object() || !m.contains("mem_type") || m["mem_type"] != "shared_buffer") {
    *error = "backend extension file " + path + ": memory must be {\"mem_type\": \"shared_buffer\"} (got " +
             m.dump() + ")";
    return false;
  }
  out->shared_buffer = true;
  return true;
}

}  // namespace

bool read_config_file(const std::string& path, ConfigFile* out, std::string* error) {
  json doc;
  if (!read_json(path, "config file", &doc, error)) return false;
  for (const auto& [key, value] : doc.items()) {
    if (key == "backend_extensions") {
      if (!value.is_object()) {
        *error = "config file " + path + ": backend_extensions must be a JSON object";
        return false;
      }
      for (const auto& [bkey, bvalue] : value.items()) {
        if (bkey == "shared_library_path") {
          if (!read_string(bvalue, "backend_extensions.shared_library_path", &out->extensions_library, error)) return false;
        } else if (bkey == "config_file_path") {
          if (!read_string(bvalue, "backend_extensions.config_file_path", &out->extensions_file, error)) return false;
        } else {
          out->ignored_keys.push_back("backend_extensions." + bkey);
        }
      }
    } else if (key == "context_configs") {
      if (!openhtp::tools::read_context_configs_json(value, path, &out->context_priority, &out->ignored_keys,
                                                     error)) {
        return false;
      }
    } else {
      out->ignored_keys.push_back(key);
    }
  }
  if (!out->extensions_library.empty() && out->extensions_file.empty()) {
    *error = "config file " + path + ": backend_extensions.shared_library_path needs config_file_path";
    return false;
  }
  if (!out->extensions_file.empty() && !read_extension_memory(out->extensions_file, out, error)) return false;
  return true;
}

}  // namespace openhtp::netrun
