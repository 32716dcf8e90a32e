// Context binaries: contextGetBinarySize/getBinary serialize a context's
// graphs; contextCreateFromBinary (optionally with DEFER_GRAPH_INIT, then
// contextFinalize) loads them; contextValidateBinary checks one;
// contextGetProperty reports the sizes external buffers need.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "HTP/QnnHtpCommon.h"
#include "HTP/QnnHtpContext.h"
#include "QnnContext.h"
#include "QnnSdkBuildId.h"
#include "HTP/QnnHtpMem.h"
#include "QnnMem.h"
#include "binary/context_codec.h"
#include "rpcmem.h"
#include "qnn/cdsprpc_link.h"
#include "qnn/context_ops.h"
#include "qnn/context_settings.h"
#include "htp/device_spec.h"
#include "qnn/api_guard.h"
#include "common/client_memory.h"
#include "qnn/live_handle.h"
#include "qnn/logger.h"
#include "qnn/objects.h"
#include "qnn/signal.h"

using namespace openhtp;
using namespace openhtp::qnn;

namespace {


uint32_t crc_of(const void* data, uint64_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  while (size > 0) {
    const uInt n = static_cast<uInt>(std::min<uint64_t>(size, 1u << 30));
    crc = crc32(crc, p, n);
    p += n;
    size -= n;
  }
  return static_cast<uint32_t>(crc);
}

// crc_of for memory the client lent in an earlier call (the binary of a
// deferred context): read through common/client_memory.h, so a binary the
// client freed or unmapped is an answer (false), not a SIGSEGV.
bool crc_of_lent(const void* data, uint64_t size, uint32_t* out) {
  uLong crc = crc32(0L, Z_NULL, 0);
  std::vector<Bytef> buf(static_cast<size_t>(std::min<uint64_t>(size, 1u << 20)));
  const auto* p = static_cast<const Bytef*>(data);
  for (uint64_t done = 0; done < size;) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(size - done, buf.size()));
    if (!read_client_bytes(p + done, buf.data(), chunk)) return false;
    crc = crc32(crc, buf.data(), static_cast<uInt>(chunk));
    done += chunk;
  }
  *out = static_cast<uint32_t>(crc);
  return true;
}

binary::ContextImage image_of(Context& ctx, Qnn_ErrorHandle_t* err) {
  binary::ContextImage image;
  image.build_id = QNN_SDK_BUILD_ID;
  image.core_api = {QNN_API_VERSION_MAJOR, QNN_API_VERSION_MINOR, QNN_API_VERSION_PATCH};
  image.backend_api = {QNN_HTP_API_VERSION_MAJOR, QNN_HTP_API_VERSION_MINOR, QNN_HTP_API_VERSION_PATCH};
  image.soc_model = htp::kDevice.soc_model;
  image.dsp_arch = htp::kDevice.dsp_arch;
  image.weight_sharing = ctx.weight_sharing;
  *err = QNN_SUCCESS;
  // Lock order is Graph::mu before Context::mu (objects.h): take the list of
  // graphs under the context lock, then visit each graph without it.
  std::vector<uint64_t> graphs;
  {
    std::lock_guard lock(ctx.mu);
    graphs = ctx.graphs;
  }
  for (uint64_t gh : graphs) {
    auto g = find_object<Graph>(ObjectKind::kGraph, as_handle(gh));
    if (!g) continue;
    std::lock_guard glock(g->mu);
    if (!g->finalized) {
      QNN_LOG_ERROR("contextGetBinary: graph '%s' is not finalized; every graph must be", g->spec.name.c_str());
      *err = QNN_CONTEXT_ERROR_NOT_FINALIZED;
      return image;
    }
    binary::GraphImage gi{g->spec, g->arena_bytes, g->vtcm_bytes, g->spill_fill_bytes, {}};
    // The plan the runtime made at finalize, so that a load is held to it.
    if (Qnn_ErrorHandle_t e = ctx.stub->graph_plan(g->remote_id, g->spec.tensors.size(), &gi.placements);
        e != QNN_SUCCESS) {
      *err = e;
      return image;
    }
    image.graphs.push_back(std::move(gi));
  }
  // With weight sharing a weights buffer holds each shared content once.
  image.weights_bytes =
      binary::weights_bytes(image.graphs, htp::kDevice.buffer_start_alignment, image.weight_sharing);
  return image;
}

Qnn_ErrorHandle_t decode_or_log(const char* fn, const void* buffer, uint64_t size, binary::ContextImage* image) {
  if (buffer == nullptr || size == 0) {
    QNN_LOG_ERROR("%s: binary buffer is NULL or empty (size %llu)", fn, static_cast<unsigned long long>(size));
    return QNN_CONTEXT_ERROR_INVALID_ARGUMENT;
  }
  std::string why;
  // Only the binary's own bytes are read, whatever size the client gave
  // (binary::context_binary_extent).
  const auto* bytes = static_cast<const uint8_t*>(buffer);
  if (const size_t own = binary::context_binary_extent(bytes, size); own != 0) size = own;
  switch (binary::decode_context(bytes, size, image, &why)) {
    case binary::BinaryError::kNone: return QNN_SUCCESS;
    case binary::BinaryError::kVersion:
      QNN_LOG_ERROR("%s: %s", fn, why.c_str());
      return QNN_CONTEXT_ERROR_BINARY_VERSION;
    case binary::BinaryError::kMalformed:
      QNN_LOG_ERROR("%s: %s", fn, why.c_str());
      return QNN_CONTEXT_ERROR_CREATE_FROM_BINARY;
  }
  return QNN_CONTEXT_ERROR_CREATE_FROM_BINARY;
}

}  // namespace

namespace openhtp::qnn {

// The backend-extension file asked the runtime to provide external weights /
// spill-fill buffers (-1: the size QNN reports, N: exactly N): allocate them
// with rpcmem and register them like a client would, unless the client
// registered its own. Called while the context is still deferred.
Qnn_ErrorHandle_t provide_runtime_buffers(const std::shared_ptr<Context>& ctx) {
  const BackendExtensions* ext = ctx->backend->extensions.get();
  if (ext == nullptr || (ext->weights_buffer == 0 && ext->spill_fill_buffer == 0)) return QNN_SUCCESS;
  if (ctx->backend->domain == Domain::kNonRpc) {
    // rpcmem buffers are FastRPC's; on the DSP the runtime's own are used.
    QNN_LOG_WARN("backend extensions ask for external buffers; in the Non-RPC domain the context uses internal ones");
    return QNN_SUCCESS;
  }
  struct Want {
    QnnHtpMem_Type_t type;
    int64_t setting;
    uint64_t required;
    bool have;
    uint64_t* record;
  };
  std::vector<Want> wants;
  {
    std::lock_guard lock(ctx->mu);
    if (!ctx->external_buffers_blocked_by.empty()) {
      QNN_LOG_WARN("backend extensions ask for external buffers, but this context was loaded with %s; using internal "
                   "buffers",
                   ctx->external_buffers_blocked_by.c_str());
      return QNN_SUCCESS;
    }
    uint64_t spill = 0;
    for (const auto& g : ctx->pending->graphs) spill = std::max(spill, g.spill_fill_bytes);
    wants.push_back({QNN_HTP_MEM_WEIGHTS_BUFFER, ext->weights_buffer, ctx->pending->weights_bytes,
                     ctx->has_weights_buffer, &ctx->runtime_weights_bytes});
    wants.push_back({QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, ext->spill_fill_buffer, spill,
                     ctx->has_external_spill_fill.load(), &ctx->runtime_spill_fill_bytes});
  }
  for (const Want& w : wants) {
    if (w.setting == 0 || w.have) continue;
    const uint64_t size = w.setting < 0 ? w.required : static_cast<uint64_t>(w.setting);
    if (size == 0) continue;  // nothing to hold (no weights, nothing spills)
    void* mem = cdsprpc().rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, size);
    if (mem == nullptr) {
      QNN_LOG_ERROR("backend extensions: cannot allocate a %llu-byte external buffer", static_cast<unsigned long long>(size));
      return QNN_COMMON_ERROR_MEM_ALLOC;
    }
    QnnMemHtp_Descriptor_t htp{};
    htp.type = w.type;
    htp.size = size;
    if (w.type == QNN_HTP_MEM_WEIGHTS_BUFFER) {
      htp.weightsBufferConfig = {cdsprpc().rpcmem_to_fd(mem), 0};
    } else {
      htp.sharedSpillfillBufferConfig = {cdsprpc().rpcmem_to_fd(mem), 0};
    }
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memType = QNN_MEM_TYPE_CUSTOM;
    d.customInfo = &htp;
    Qnn_MemHandle_t handle = nullptr;
    Qnn_ErrorHandle_t e = QnnMem_register(as_handle(ctx->handle), &d, 1, &handle);
    std::lock_guard lock(ctx->mu);
    ctx->runtime_buffers.push_back(mem);  // freed after the context, registered or not
    if (e != QNN_SUCCESS) return e;
    *w.record = size;
  }
  return QNN_SUCCESS;
}

Qnn_ErrorHandle_t finalize_deferred_context(const std::shared_ptr<Context>& ctx, ipc::htp_wire::ControlWire* control) {
  {
    std::lock_guard lock(ctx->mu);
    if (!ctx->deferred || !ctx->pending) return QNN_SUCCESS;
  }
  if (Qnn_ErrorHandle_t e = provide_runtime_buffers(ctx); e != QNN_SUCCESS) return e;
  std::unique_ptr<binary::ContextImage> image;
  {
    std::lock_guard lock(ctx->mu);
    if (!ctx->deferred || !ctx->pending) return QNN_SUCCESS;
    // The client promised to keep the binary and configs unchanged until
    // now (only a context the client deferred has a "now": otherwise this
    // runs inside contextCreateFromBinary). Both are read without trusting
    // them: a freed or unmapped buffer is reported, never dereferenced.
    if (ctx->client_deferred) {
      uint32_t crc = 0;
      if (!crc_of_lent(ctx->binary_ptr, ctx->binary_size, &crc)) {
        QNN_LOG_ERROR("contextFinalize: the binary buffer passed to contextCreateFromBinary (%p, %llu bytes) is no "
                      "longer readable (freed or unmapped); it must stay valid and unchanged until contextFinalize",
                      ctx->binary_ptr, static_cast<unsigned long long>(ctx->binary_size));
        return QNN_CONTEXT_ERROR_CREATE_FROM_BINARY;
      }
      if (crc != ctx->binary_crc) {
        QNN_LOG_ERROR("contextFinalize: the binary buffer passed to contextCreateFromBinary (%p, %llu bytes) changed "
                      "before finalize; it must stay valid and unchanged until then",
                      ctx->binary_ptr, static_cast<unsigned long long>(ctx->binary_size));
        return QNN_CONTEXT_ERROR_CREATE_FROM_BINARY;
      }
      const ClientSnapshot::Verdict configs = ctx->config_snapshot.compare();
      if (configs == ClientSnapshot::Verdict::kUnreadable) {
        QNN_LOG_ERROR("contextFinalize: the configs passed to contextCreateFromBinary are no longer readable (freed "
                      "or unmapped); they must stay valid and unchanged until contextFinalize");
        return QNN_CONTEXT_ERROR_INVALID_CONFIG;
      }
      ContextSettings now;
      if (configs == ClientSnapshot::Verdict::kChanged ||
          read_context_configs(ctx->config_ptr, ContextOrigin::kBinary, &now) != QNN_SUCCESS ||
          now.digest() != ctx->config_digest) {
        QNN_LOG_ERROR("contextFinalize: the configs passed to contextCreateFromBinary changed before finalize; they "
                      "must stay valid and unchanged until then");
        return QNN_CONTEXT_ERROR_INVALID_CONFIG;
      }
    }
    // Concurrent resource sharing: every context of the group brings both
    // buffers (the tutorial's step 4) before it may finalize.
    if (ctx->concurrent_sharing && (!ctx->has_qurt_spill_fill || !ctx->has_vtcm_backup)) {
      QNN_LOG_ERROR("contextFinalize: context %p uses REGISTER_CONCURRENT_RESOURCE_SHARING but has no %s registered; "
                    "register both a QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER and a QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER "
                    "before contextFinalize",
                    as_handle(ctx->handle),
                    !ctx->has_qurt_spill_fill ? "QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER"
                                              : "QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER");
      return QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED;
    }
    image = std::move(ctx->pending);
    ctx->deferred = false;
  }
  // The DSP decodes the client's own bytes once and prepares every graph
  // with its stored plan; nothing is re-encoded.
  std::vector<htp::GraphInfo> infos;
  const std::span<const uint8_t> bytes(static_cast<const uint8_t*>(ctx->binary_ptr), ctx->binary_size);
  if (Qnn_ErrorHandle_t e = ctx->stub->load_binary(ctx->remote_id, bytes, *image, &infos, control);
      e != QNN_SUCCESS) {
    // A signal's verdict, in the context API's words.
    if (e == QNN_GRAPH_ERROR_ABORTED) return QNN_CONTEXT_ERROR_ABORTED;
    if (e == QNN_GRAPH_ERROR_TIMED_OUT) return QNN_CONTEXT_ERROR_TIMED_OUT;
    return e;
  }
  for (size_t i = 0; i < image->graphs.size(); ++i) {
    // A loaded context never serializes itself again, so its graph records
    // need no weights: drop this side's reference (the in-process runtime
    // keeps its own; over FastRPC the DSP reads its mapping).
    for (htp::TensorSpec& t : image->graphs[i].spec.tensors) t.static_data.reset();
    add_prepared_graph(ctx, std::move(image->graphs[i].spec), infos[i]);
  }
  return QNN_SUCCESS;
}

}  // namespace openhtp::qnn

namespace {

// The one implementation behind contextCreateFromBinary(WithSignal) and
// contextCreateFromBinaryListAsync (`list_async`), which differ in what the
// context may later do (external buffers are refused after ListAsync).
Qnn_ErrorHandle_t create_from_binary(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                     const QnnContext_Config_t** config, const void* binaryBuffer,
                                     Qnn_ContextBinarySize_t binaryBufferSize, Qnn_ContextHandle_t* context,
                                     bool list_async, ipc::htp_wire::ControlWire* control = nullptr) {
  auto b = find_object<Backend>(ObjectKind::kBackend, backend);
  if (!b) {
    QNN_LOG_ERROR("contextCreateFromBinary: %p is not a live backend handle", backend);
    return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  }
  std::shared_ptr<Device> dev;
  if (device != nullptr && !(dev = live_object<Device>("contextCreateFromBinary", ObjectKind::kDevice, device))) {
    return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  }
  if (context == nullptr) return null_argument("contextCreateFromBinary", "context", QNN_CONTEXT_ERROR_INVALID_ARGUMENT);
  ContextSettings settings;
  if (Qnn_ErrorHandle_t e = read_context_configs(config, ContextOrigin::kBinary, &settings); e != QNN_SUCCESS) {
    return e;
  }
  if (Qnn_ErrorHandle_t e = check_concurrent_sharing(settings, b->domain == Domain::kNonRpc, list_async,
                                                     dev && dev->secure_pd);
      e != QNN_SUCCESS) {
    return e;
  }
  std::string blocked_by = settings.external_buffers_blocked_by();
  if (list_async) blocked_by = "contextCreateFromBinaryListAsync";
  if (dev && dev->secure_pd) blocked_by = "a secure PD device (QNN_HTP_DEVICE_CONFIG_OPTION_SECUREPD)";
  // Spill-fill groups: the first context passes NULL and a maxSpillFillBuffer
  // > 0; the others pass the first one's handle and share its region.
  std::shared_ptr<Context> leader;
  uint64_t group_reserve = 0;
  if (settings.spill_fill_group) {
    if (settings.group_first == nullptr) {
      if (settings.group_max_spill_fill == 0) {
        QNN_LOG_ERROR("contextCreateFromBinary: REGISTER_MULTI_CONTEXTS starting a group needs maxSpillFillBuffer > 0");
        return QNN_CONTEXT_ERROR_INVALID_CONFIG;
      }
      group_reserve = settings.group_max_spill_fill;
    } else {
      leader = find_object<Context>(ObjectKind::kContext, settings.group_first);
      if (!leader || !leader->spill_fill_group_leader) {
        QNN_LOG_ERROR("contextCreateFromBinary: REGISTER_MULTI_CONTEXTS firstGroupHandle %p is not the live first "
                      "context of a spill-fill group",
                      settings.group_first);
        return QNN_CONTEXT_ERROR_INVALID_CONFIG;
      }
    }
  }
  auto image = std::make_unique<binary::ContextImage>();
  if (Qnn_ErrorHandle_t e = decode_or_log("contextCreateFromBinary", binaryBuffer, binaryBufferSize, image.get());
      e != QNN_SUCCESS) {
    return e;
  }
  auto ctx = std::make_shared<Context>();
  ctx->backend = b;
  ctx->from_binary = true;
  ctx->weights_bytes = image->weights_bytes;
  ctx->external_buffers_blocked_by = blocked_by;
  for (const auto& g : image->graphs) {
    for (const auto& t : g.spec.tensors) ctx->next_tensor_id = std::max(ctx->next_tensor_id, t.id + 1);
  }
  ctx->spill_fill_group_leader = settings.spill_fill_group && settings.group_first == nullptr;
  ctx->concurrent_sharing = settings.concurrent_resource_sharing;
  ctx->priority = settings.priority;
  // A binary written with weight sharing is loaded with it (its tensors
  // refer to one copy; the runtime keeps it one), as is any binary loaded
  // with the config.
  ctx->weight_sharing = settings.weight_sharing || image->weight_sharing ||
                        (b->extensions && b->extensions->weight_sharing);
  const htp::ContextOptions options{settings.priority, leader ? leader->remote_id : 0, group_reserve,
                                    ctx->weight_sharing};
  if (Qnn_ErrorHandle_t e = create_runtime_context(*b, options, &ctx->stub, &ctx->remote_id); e != QNN_SUCCESS) {
    return e;
  }
  *context = ObjectTable::instance().add(ObjectKind::kContext, ctx);
  // Every load goes through the deferred path; without DEFER_GRAPH_INIT it is
  // finalized before returning (runtime-provided buffers included).
  ctx->deferred = true;
  ctx->pending = std::move(image);
  ctx->binary_ptr = binaryBuffer;
  // The binary's own bytes (decode_or_log read no more): what a deferred
  // load checks and what the upload to the DSP copies.
  ctx->binary_size = binary::context_binary_extent(static_cast<const uint8_t*>(binaryBuffer), binaryBufferSize);
  if (settings.defer_graph_init) {
    // A handle only: buffers are registered before contextFinalize, which
    // checks that what was lent here is still as it was.
    ctx->client_deferred = true;
    ctx->binary_crc = crc_of(binaryBuffer, ctx->binary_size);
    ctx->config_ptr = config;
    ctx->config_digest = settings.digest();
    snapshot_context_configs(config, &ctx->config_snapshot);
    return QNN_SUCCESS;
  }
  if (Qnn_ErrorHandle_t e = finalize_deferred_context(ctx, control); e != QNN_SUCCESS) {
    QnnContext_free(*context, nullptr);
    *context = nullptr;
    return e;
  }
  return QNN_SUCCESS;
}


}  // namespace

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnContext_getBinarySize(Qnn_ContextHandle_t context, Qnn_ContextBinarySize_t* binaryBufferSize) try {
  auto ctx = live_object<Context>("contextGetBinarySize", ObjectKind::kContext, context);
  if (!ctx) return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  if (binaryBufferSize == nullptr) {
    return null_argument("contextGetBinarySize", "binaryBufferSize", QNN_CONTEXT_ERROR_INVALID_ARGUMENT);
  }
  if (ctx->from_binary) {
    QNN_LOG_ERROR("contextGetBinarySize: context %p was itself created from a binary; keep that binary instead",
                  context);
    return QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED;
  }
  Qnn_ErrorHandle_t e;
  binary::ContextImage image = image_of(*ctx, &e);
  if (e != QNN_SUCCESS) return e;
  *binaryBufferSize = binary::encode_context(image).size();
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("contextGetBinarySize");
}

QNN_API Qnn_ErrorHandle_t QnnContext_getBinary(Qnn_ContextHandle_t context, void* binaryBuffer,
                                               Qnn_ContextBinarySize_t binaryBufferSize,
                                               Qnn_ContextBinarySize_t* writtenBufferSize) try {
  auto ctx = live_object<Context>("contextGetBinary", ObjectKind::kContext, context);
  if (!ctx) return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  if (binaryBuffer == nullptr || writtenBufferSize == nullptr) {
    return null_argument("contextGetBinary", binaryBuffer == nullptr ? "binaryBuffer" : "writtenBufferSize",
                         QNN_CONTEXT_ERROR_INVALID_ARGUMENT);
  }
  if (ctx->from_binary) {
    QNN_LOG_ERROR("contextGetBinary: context %p was itself created from a binary; keep that binary instead", context);
    return QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED;
  }
  Qnn_ErrorHandle_t e;
  binary::ContextImage image = image_of(*ctx, &e);
  if (e != QNN_SUCCESS) return e;
  const std::vector<uint8_t> bytes = binary::encode_context(image);
  if (binaryBufferSize < bytes.size()) {
    QNN_LOG_ERROR("contextGetBinary: buffer of %llu bytes is smaller than the binary (%zu bytes; see getBinarySize)",
                  static_cast<unsigned long long>(binaryBufferSize), bytes.size());
    return QNN_CONTEXT_ERROR_GET_BINARY_FAILED;
  }
  std::memcpy(binaryBuffer, bytes.data(), bytes.size());
  *writtenBufferSize = bytes.size();
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("contextGetBinary");
}

QNN_API Qnn_ErrorHandle_t QnnContext_validateBinary(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                                    const QnnContext_Config_t** config, const void* binaryBuffer,
                                                    Qnn_ContextBinarySize_t binaryBufferSize) try {
  (void)device;
  (void)config;
  if (!live_handle("contextValidateBinary", ObjectKind::kBackend, backend)) return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  binary::ContextImage image;
  return decode_or_log("contextValidateBinary", binaryBuffer, binaryBufferSize, &image);
} catch (...) {
  return openhtp::qnn::api_exception("contextValidateBinary");
}

QNN_API Qnn_ErrorHandle_t QnnContext_createFromBinary(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                                      const QnnContext_Config_t** config, const void* binaryBuffer,
                                                      Qnn_ContextBinarySize_t binaryBufferSize,
                                                      Qnn_ContextHandle_t* context, Qnn_ProfileHandle_t profile) try {
  (void)profile;
  return create_from_binary(backend, device, config, binaryBuffer, binaryBufferSize, context, false);
} catch (...) {
  return openhtp::qnn::api_exception("contextCreateFromBinary");
}

QNN_API Qnn_ErrorHandle_t QnnContext_createFromBinaryListAsync(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                                               const QnnContext_Params_t** contextParams,
                                                               const QnnContext_Config_t** listConfig,
                                                               Qnn_SignalHandle_t signal) try {
  // Group-level configs (SHARE_RESOURCES ...) are accepted; the contexts are
  // created one after the other before this returns, each reported through
  // its notify function: every graph (GRAPH_INIT), then the context.
  (void)listConfig;
  (void)signal;
  if (!live_handle("contextCreateFromBinaryListAsync", ObjectKind::kBackend, backend)) {
    return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  }
  if (contextParams == nullptr || contextParams[0] == nullptr) {
    QNN_LOG_ERROR("contextCreateFromBinaryListAsync: needs a NULL-terminated list of at least one QnnContext_Params_t");
    return QNN_CONTEXT_ERROR_INVALID_ARGUMENT;
  }
  Qnn_ErrorHandle_t first_error = QNN_SUCCESS;
  for (const QnnContext_Params_t* const* pp = contextParams; *pp != nullptr; ++pp) {
    const QnnContext_Params_t& p = **pp;
    const QnnContext_ParamsV1_t* v1 = p.version == QNN_CONTEXT_PARAMS_VERSION_1 ? &p.v1 : nullptr;
    const QnnContext_ParamsV2_t* v2 = p.version == QNN_CONTEXT_PARAMS_VERSION_2 ? p.v2 : nullptr;
    if (v1 == nullptr && v2 == nullptr) {
      QNN_LOG_ERROR("contextCreateFromBinaryListAsync: params version %d is not 1 or 2", static_cast<int>(p.version));
      return QNN_CONTEXT_ERROR_INVALID_ARGUMENT;
    }
    auto notify = v1 ? v1->notifyFunc : v2->notifyFunc;
    void* param = v1 ? v1->notifyParam : v2->notifyParam;
    if (notify == nullptr) {
      QNN_LOG_ERROR("contextCreateFromBinaryListAsync: every params entry needs a notifyFunc");
      return QNN_CONTEXT_ERROR_INVALID_ARGUMENT;
    }
    Qnn_ContextHandle_t ctx = nullptr;
    Qnn_ErrorHandle_t e = create_from_binary(backend, device, v1 ? v1->config : v2->config,
                                             v1 ? v1->binaryBuffer : v2->binaryBuffer,
                                             v1 ? v1->binaryBufferSize : v2->binaryBufferSize, &ctx, true);
    if (e == QNN_SUCCESS) {
      auto c = find_object<Context>(ObjectKind::kContext, ctx);
      std::vector<uint64_t> graphs;
      {
        std::lock_guard lock(c->mu);
        graphs = c->graphs;
      }
      for (uint64_t gh : graphs) {
        auto g = find_object<Graph>(ObjectKind::kGraph, as_handle(gh));
        if (g) notify(ctx, as_handle(gh), g->spec.name.c_str(), QNN_CONTEXT_NOTIFY_TYPE_GRAPH_INIT, param, QNN_SUCCESS);
      }
    } else if (first_error == QNN_SUCCESS) {
      first_error = e;
    }
    notify(ctx, nullptr, nullptr, QNN_CONTEXT_NOTIFY_TYPE_CONTEXT_INIT, param, e);
  }
  return first_error;
} catch (...) {
  return openhtp::qnn::api_exception("contextCreateFromBinaryListAsync");
}

QNN_API Qnn_ErrorHandle_t QnnContext_createFromBinaryWithSignal(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                                                const QnnContext_Config_t** config,
                                                                const void* binaryBuffer,
                                                                Qnn_ContextBinarySize_t binaryBufferSize,
                                                                Qnn_ContextHandle_t* context,
                                                                Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal) try {
  (void)profile;
  // With DEFER_GRAPH_INIT nothing is prepared here, so the signal bounds
  // nothing; otherwise it bounds the preparing of the binary's graphs.
  SignalUse use(signal, "contextCreateFromBinaryWithSignal", QNN_SIGNAL_ERROR_SIGNAL_IN_USE);
  if (!use.ok()) return use.error();
  return create_from_binary(backend, device, config, binaryBuffer, binaryBufferSize, context, false, use.control());
} catch (...) {
  return openhtp::qnn::api_exception("contextCreateFromBinaryWithSignal");
}

QNN_API Qnn_ErrorHandle_t QnnContext_finalize(Qnn_ContextHandle_t context, Qnn_ProfileHandle_t profile) try {
  (void)profile;
  auto ctx = live_object<Context>("contextFinalize", ObjectKind::kContext, context);
  if (!ctx) return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  {
    std::lock_guard lock(ctx->mu);
    if (!ctx->deferred) {
      QNN_LOG_ERROR("contextFinalize: context %p was not created from a binary with DEFER_GRAPH_INIT, or is already "
                    "finalized",
                    context);
      return QNN_CONTEXT_ERROR_INVALID_ARGUMENT;
    }
  }
  return finalize_deferred_context(ctx);
} catch (...) {
  return openhtp::qnn::api_exception("contextFinalize");
}

QNN_API Qnn_ErrorHandle_t QnnContext_getProperty(Qnn_ContextHandle_t contextHandle, QnnContext_Property_t** properties) try {
  auto ctx = live_object<Context>("contextGetProperty", ObjectKind::kContext, contextHandle);
  if (!ctx) return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  if (properties == nullptr) return null_argument("contextGetProperty", "properties", QNN_CONTEXT_ERROR_INVALID_ARGUMENT);
  // Sizes come from the binary (deferred) or from the prepared graphs.
  uint64_t weights = 0, spill_fill = 0, vtcm = 0;
  {
    std::lock_guard lock(ctx->mu);
    if (ctx->pending) {
      weights = ctx->pending->weights_bytes;
      for (const auto& g : ctx->pending->graphs) {
        spill_fill = std::max(spill_fill, g.spill_fill_bytes);
        vtcm = std::max(vtcm, g.vtcm_bytes);
      }
    } else {
      weights = ctx->weights_bytes;
      for (uint64_t gh : ctx->graphs) {
        if (auto g = find_object<Graph>(ObjectKind::kGraph, as_handle(gh))) {
          spill_fill = std::max(spill_fill, g->spill_fill_bytes);
          vtcm = std::max(vtcm, g->vtcm_bytes);
        }
      }
    }
  }
  for (QnnContext_Property_t** p = properties; *p != nullptr; ++p) {
    if ((*p)->option != QNN_CONTEXT_PROPERTY_OPTION_CUSTOM || (*p)->customProperty == nullptr) {
      QNN_LOG_ERROR("contextGetProperty: option %d is not supported (only CUSTOM with an HTP custom property)",
                    static_cast<int>((*p)->option));
      return QNN_CONTEXT_ERROR_UNSUPPORTED_FEATURE;
    }
    auto* htp = static_cast<QnnHtpContext_CustomProperty_t*>((*p)->customProperty);
    switch (htp->option) {
      case QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT: htp->bufferStartAlignment = htp::kDevice.buffer_start_alignment; break;
      case QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE: htp->spillfillBufferSize = spill_fill; break;
      case QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE: htp->weightsBufferSize = weights; break;
      case QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE: htp->vtcmBackupBufferSize = vtcm; break;
      default:
        QNN_LOG_ERROR("contextGetProperty: HTP custom property %d is not supported", static_cast<int>(htp->option));
        return QNN_CONTEXT_ERROR_UNSUPPORTED_FEATURE;
    }
  }
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("contextGetProperty");
}

}  // extern "C"

extern "C" QNN_API Qnn_ErrorHandle_t OpenHtp_getRuntimeProvidedBuffers(Qnn_ContextHandle_t context, uint64_t* weightsBytes,
                                                                     uint64_t* spillFillBytes) try {
  auto ctx = live_object<Context>("OpenHtp_getRuntimeProvidedBuffers", ObjectKind::kContext, context);
  if (!ctx) return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  if (weightsBytes == nullptr || spillFillBytes == nullptr) {
    return null_argument("OpenHtp_getRuntimeProvidedBuffers", weightsBytes == nullptr ? "weightsBytes" : "spillFillBytes",
                         QNN_CONTEXT_ERROR_INVALID_HANDLE);
  }
  std::lock_guard lock(ctx->mu);
  *weightsBytes = ctx->runtime_weights_bytes;
  *spillFillBytes = ctx->runtime_spill_fill_bytes;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("OpenHtp_getRuntimeProvidedBuffers");
}
