// The HTP backend-extension file: the JSON QNN's tools hand to the HTP backend
// (`config_file_path` of their `backend_extensions`). openhtp reads it in the
// backend itself, given as the backend platform option
// "backend_extensions=<path>" (QNN_BACKEND_CONFIG_OPTION_PLATFORM) or the
// environment variable OPENHTP_BACKEND_EXTENSIONS. Understood today:
//
//   "graphs": [{"graph_names": ["g"], "vtcm_mb": 2}]        (array or one object)
//   "context_configs": {"spill_fill_buffer": -1|0|N,           ("context" also accepted)
//                       "weights_buffer":    -1|0|N,
//                       "weight_sharing_enabled": true|false}
//
// With the tutorial's meanings: 0 (default) off; -1 the runtime allocates the
// size QNN reports; N > 0 exactly N bytes. Buffers asked for this way are
// allocated with rpcmem and registered by the runtime itself when a context is
// loaded from a binary, unless the client registered its own.
// Other keys are ignored with a warning (listed in docs/user-guide.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace openhtp::qnn {

struct BackendExtensions {
  struct GraphSettings {
    std::vector<std::string> names;
    std::optional<uint64_t> vtcm_bytes;
  };
  std::vector<GraphSettings> graphs;
  int64_t spill_fill_buffer = 0;
  int64_t weights_buffer = 0;
  // "weight_sharing_enabled": true — every context of the backend is made as
  // if WEIGHT_SHARING_ENABLED were among its configs (QNN's JSON key).
  bool weight_sharing = false;

  // The VTCM size configured for graph `name`, if any entry names it.
  std::optional<uint64_t> vtcm_for(const std::string& name) const;
};

// False and *error when the file is missing, not JSON, or a value has the
// wrong type or range.
bool load_backend_extensions(const std::string& path, BackendExtensions* out, std::string* error);

}  // namespace openhtp::qnn
