#include "qnn/context_settings.h"

#include <zlib.h>

#include "HTP/QnnHtpContext.h"
#include "qnn/client_enum.h"
#include "qnn/logger.h"

namespace openhtp::qnn {

bool context_priority_valid(const char* api, uint32_t priority) {
  if (priority <= QNN_PRIORITY_HIGHEST) return true;
  QNN_LOG_ERROR("%s: PRIORITY %u is not a QNN priority level (0 to %u)", api, priority,
                static_cast<unsigned>(QNN_PRIORITY_HIGHEST));
  return false;
}

Qnn_ErrorHandle_t read_context_configs(const QnnContext_Config_t** config, ContextOrigin origin,
                                       ContextSettings* s) {
  *s = ContextSettings{};
  for (const QnnContext_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    switch ((*c)->option) {
      case QNN_CONTEXT_CONFIG_OPTION_PRIORITY:
        // Checked here, for every way a context is made: an unchecked value
        // outranked CRITICAL_PLUS in the scheduler (0xFFFFFFFF is its
        // "inherit" sentinel besides).
        if (!context_priority_valid("context config", enum_bits((*c)->priority))) {
          return QNN_CONTEXT_ERROR_INVALID_CONFIG;
        }
        s->priority = enum_bits((*c)->priority);
        continue;
      case QNN_CONTEXT_CONFIG_OPTION_CUSTOM: {
        const auto* htp = static_cast<const QnnHtpContext_CustomConfig_t*>((*c)->customConfig);
        if (htp == nullptr) continue;
        switch (htp->option) {
          case QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_MULTI_CONTEXTS:
            s->spill_fill_group = true;
            s->group_first = htp->groupRegistration.firstGroupHandle;
            s->group_max_spill_fill = htp->groupRegistration.maxSpillFillBuffer;
            break;
          case QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING:
            // With DEFER_GRAPH_INIT (which it requires) the members need not
            // be valid: the group forms from the buffers its contexts register.
            s->concurrent_resource_sharing = true;
            s->group_first = htp->concurrentGroupRegistration.firstGroupHandle;
            s->group_max_spill_fill = htp->concurrentGroupRegistration.maxSpillFillBuffer;
            break;
          case QNN_HTP_CONTEXT_CONFIG_OPTION_USE_EXTENDED_UDMA: s->extended_udma = htp->useExtendedUdma; break;
          case QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED:
            s->weight_sharing = htp->weightSharingEnabled;
            break;
          default: break;  // other HTP options are accepted and have no effect here
        }
        continue;
      }
      case QNN_CONTEXT_CONFIG_OPTION_ERROR_REPORTING:
      case QNN_CONTEXT_CONFIG_ASYNC_EXECUTION_QUEUE_DEPTH:
      case QNN_CONTEXT_CONFIG_OPTION_OEM_STRING:
        continue;
      default: break;
    }
    // Options that only mean something for a context loaded from a binary.
    if (origin == ContextOrigin::kOnline) {
      QNN_LOG_ERROR("contextCreate: config option %d is not supported for contexts created online",
                    static_cast<int>((*c)->option));
      return QNN_CONTEXT_ERROR_INVALID_CONFIG;
    }
    switch ((*c)->option) {
      case QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT: s->defer_graph_init = (*c)->isGraphInitDeferred != 0; break;
      case QNN_CONTEXT_CONFIG_PERSISTENT_BINARY: s->persistent_binary = (*c)->isPersistentBinary != 0; break;
      case QNN_CONTEXT_CONFIG_MEMORY_LIMIT_HINT: s->memory_limit_hint = (*c)->memoryLimitHint; break;
      default: break;
    }
  }
  if (origin == ContextOrigin::kOnline && s->concurrent_resource_sharing) {
    QNN_LOG_ERROR("contextCreate: QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING is only supported "
                  "with contextCreateFromBinary");
    return QNN_CONTEXT_ERROR_INVALID_CONFIG;
  }
  return QNN_SUCCESS;
}

void snapshot_context_configs(const QnnContext_Config_t** config, ClientSnapshot* snapshot) {
  if (config == nullptr) return;
  size_t n = 0;
  while (config[n] != nullptr) ++n;
  snapshot->add(config, (n + 1) * sizeof(config[0]), ClientSnapshot::Check::kBytes);
  for (size_t i = 0; i < n; ++i) {
    snapshot->add(config[i], sizeof(QnnContext_Config_t), ClientSnapshot::Check::kReadable);
    if (config[i]->option == QNN_CONTEXT_CONFIG_OPTION_CUSTOM && config[i]->customConfig != nullptr) {
      snapshot->add(config[i]->customConfig, sizeof(QnnHtpContext_CustomConfig_t), ClientSnapshot::Check::kReadable);
    }
  }
}

Qnn_ErrorHandle_t check_concurrent_sharing(const ContextSettings& s, bool non_rpc, bool list_async, bool secure_pd) {
  if (!s.concurrent_resource_sharing) return QNN_SUCCESS;
  const char* why = nullptr;
  if (!non_rpc) {
    why = "is a Non-RPC feature (QNN natively on the DSP: openhtp-dsp-run); this backend is in the FastRPC domain";
  } else if (!s.defer_graph_init) {
    why = "needs QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT (the buffers are registered before contextFinalize)";
  } else if (list_async) {
    why = "is not supported with contextCreateFromBinaryListAsync (use contextCreateFromBinary)";
  } else if (s.spill_fill_group) {
    why = "is not supported together with QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_MULTI_CONTEXTS";
  } else if (s.persistent_binary && s.memory_limit_hint > 0) {
    why = "is not supported with graph switching (PERSISTENT_BINARY + MEMORY_LIMIT_HINT)";
  } else if (s.extended_udma) {
    why = "is not supported with udma64 (QNN_HTP_CONTEXT_CONFIG_OPTION_USE_EXTENDED_UDMA)";
  } else if (secure_pd) {
    why = "is not supported on a secure PD device (QNN_HTP_DEVICE_CONFIG_OPTION_SECUREPD)";
  }
  if (why == nullptr) return QNN_SUCCESS;
  QNN_LOG_ERROR("contextCreateFromBinary: QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING %s", why);
  return QNN_CONTEXT_ERROR_INVALID_CONFIG;
}

std::string ContextSettings::external_buffers_blocked_by() const {
  if (spill_fill_group) return "QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_MULTI_CONTEXTS";
  if (extended_udma) return "udma64 (QNN_HTP_CONTEXT_CONFIG_OPTION_USE_EXTENDED_UDMA)";
  // Graph switching is a persistent binary with a memory-limit hint.
  if (persistent_binary && memory_limit_hint > 0) return "graph switching (PERSISTENT_BINARY + MEMORY_LIMIT_HINT)";
  return "";
}

uint32_t ContextSettings::digest() const {
  // Field by field, never the struct's raw bytes (padding is indeterminate).
  const uint64_t fields[] = {priority,
                             defer_graph_init,
                             persistent_binary,
                             memory_limit_hint,
                             spill_fill_group,
                             static_cast<uint64_t>(reinterpret_cast<uintptr_t>(group_first)),
                             group_max_spill_fill,
                             concurrent_resource_sharing,
                             extended_udma,
                             weight_sharing};
  return static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(fields), sizeof fields));
}

}  // namespace openhtp::qnn
