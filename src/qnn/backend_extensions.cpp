#include "qnn/backend_extensions.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "qnn/logger.h"

namespace openhtp::qnn {
namespace {

using nlohmann::json;

bool read_buffer_setting(const json& ctx, const char* key, int64_t* out, std::string* error) {
  if (!ctx.contains(key)) return true;
  const json& v = ctx.at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < -1) {
    *error = std::string("context_configs.") + key + " must be -1, 0 or a positive byte count (got " + v.dump() + ")";
    return false;
  }
  *out = v.get<int64_t>();
  return true;
}

}  // namespace

std::optional<uint64_t> BackendExtensions::vtcm_for(const std::string& name) const {
  for (const auto& g : graphs) {
    for (const auto& n : g.names) {
      if (n == name) return g.vtcm_bytes;
    }
  }
  return std::nullopt;
}

bool load_backend_extensions(const std::string& path, BackendExtensions* out, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open backend extension file '" + path + "'";
    return false;
  }
  json doc = json::parse(in, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (doc.is_discarded() || !doc.is_object()) {
    *error = "backend extension file '" + path + "' is not a JSON object";
    return false;
  }
  BackendExtensions ext;
  if (doc.contains("graphs")) {
    const json& graphs = doc["graphs"];
    const json list = graphs.is_array() ? graphs : json::array({graphs});
    for (const json& g : list) {
      BackendExtensions::GraphSettings s;
      if (!g.is_object() || !g.contains("graph_names") || !g["graph_names"].is_array()) {
        *error = "every graphs[] entry needs \"graph_names\": [...]";
        return false;
      }
      for (const json& n : g["graph_names"]) {
        if (!n.is_string()) {
          *error = "graph_names must hold strings";
          return false;
        }
        s.names.push_back(n.get<std::string>());
      }
      if (g.contains("vtcm_mb")) {
        if (!g["vtcm_mb"].is_number_unsigned()) {
          *error = "vtcm_mb must be a non-negative integer (got " + g["vtcm_mb"].dump() + ")";
          return false;
        }
        s.vtcm_bytes = g["vtcm_mb"].get<uint64_t>() << 20;  // 0: the device maximum
      }
      for (const auto& [key, value] : g.items()) {
        if (key != "graph_names" && key != "vtcm_mb") QNN_LOG_WARN("backend extensions: graphs[].%s is ignored", key.c_str());
      }
      ext.graphs.push_back(std::move(s));
    }
  }
  for (const char* section : {"context_configs", "context"}) {
    if (!doc.contains(section)) continue;
    const json& c = doc[section].is_array() && !doc[section].empty() ? doc[section][0] : doc[section];
    if (!c.is_object()) continue;
    if (!read_buffer_setting(c, "spill_fill_buffer", &ext.spill_fill_buffer, error) ||
        !read_buffer_setting(c, "weights_buffer", &ext.weights_buffer, error)) {
      return false;
    }
    if (c.contains("weight_sharing_enabled")) {
      if (!c["weight_sharing_enabled"].is_boolean()) {
        *error = std::string(section) + ".weight_sharing_enabled must be true or false (got " +
                 c["weight_sharing_enabled"].dump() + ")";
        return false;
      }
      ext.weight_sharing = c["weight_sharing_enabled"].get<bool>();
    }
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "graphs" && key != "context_configs" && key != "context") {
      QNN_LOG_WARN("backend extensions: section \"%s\" is ignored", key.c_str());
    }
  }
  *out = std::move(ext);
  return true;
}

}  // namespace openhtp::qnn
