// What a context's configs say, read once into one struct (after
// GraphSettings in graph_api.cpp): contextCreate and contextCreateFromBinary
// parse them here, and the deferred path's "configs unchanged until
// contextFinalize" check compares digests of two readings, the second made
// only after snapshot_context_configs's regions are known to be readable.
#pragma once

#include <cstdint>
#include <string>

#include "QnnContext.h"
#include "common/client_memory.h"

namespace openhtp::qnn {

enum class ContextOrigin { kOnline, kBinary };

struct ContextSettings {
  uint32_t priority = QNN_PRIORITY_DEFAULT;
  bool defer_graph_init = false;    // DEFER_GRAPH_INIT
  bool persistent_binary = false;   // PERSISTENT_BINARY
  uint64_t memory_limit_hint = 0;   // MEMORY_LIMIT_HINT
  // REGISTER_MULTI_CONTEXTS: a spill-fill group (first context: NULL handle
  // and the group's maxSpillFillBuffer; the others: the first one's handle).
  bool spill_fill_group = false;
  const void* group_first = nullptr;
  uint64_t group_max_spill_fill = 0;
  bool concurrent_resource_sharing = false;  // REGISTER_CONCURRENT_RESOURCE_SHARING
  bool extended_udma = false;                // USE_EXTENDED_UDMA
  bool weight_sharing = false;               // WEIGHT_SHARING_ENABLED (docs/design.md, "Weight sharing")

  // The feature these configs turn on that rules out external weights and
  // spill-fill buffers (docs/design.md §5), or "" when none does.
  // (REGISTER_CONCURRENT_RESOURCE_SHARING is not one: in the Non-RPC domain
  // it is what lets contexts share them; check_concurrent_sharing has its
  // own rules.)
  std::string external_buffers_blocked_by() const;
  // A checksum of every field, for the unchanged-until-finalize rule.
  uint32_t digest() const;
};

// Notes the memory a config list occupies (called during the call that lends
// it, after read_context_configs accepted it): the pointer array byte for
// byte (a different pointer is a different config), each config and HTP
// custom config as readable (their meaning is compared by digest).
void snapshot_context_configs(const QnnContext_Config_t** config, ClientSnapshot* snapshot);

// The tutorial's rules for REGISTER_CONCURRENT_RESOURCE_SHARING on a context
// loaded from a binary: QNN_SUCCESS when `s` does not ask for it or meets
// them, else QNN_CONTEXT_ERROR_INVALID_CONFIG and one line naming the rule.
// `non_rpc`: the backend is in the Non-RPC domain; `how`: the API used
// ("contextCreateFromBinary" / "contextCreateFromBinaryListAsync");
// `secure_pd`: the device was created with SECUREPD.
Qnn_ErrorHandle_t check_concurrent_sharing(const ContextSettings& s, bool non_rpc, bool list_async, bool secure_pd);

// Whether `priority` is a QNN priority level (0 to QNN_PRIORITY_HIGHEST);
// one line naming `api` when not.
bool context_priority_valid(const char* api, uint32_t priority);

// Reads `config` (NULL-terminated, may be NULL). Online contexts accept only
// the options that make sense without a binary; an option they cannot take
// (or a PRIORITY that is not a QNN level) is refused with
// QNN_CONTEXT_ERROR_INVALID_CONFIG and one log line.
Qnn_ErrorHandle_t read_context_configs(const QnnContext_Config_t** config, ContextOrigin origin,
                                       ContextSettings* settings);

}  // namespace openhtp::qnn
