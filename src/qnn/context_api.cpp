// Context entry points: create, free (which releases everything registered on
// the context), set config, context tensors.
#include <algorithm>
#include <cstring>

#include "QnnContext.h"
#include "QnnTensor.h"
#include "rpcmem.h"
#include "qnn/cdsprpc_link.h"
#include "qnn/context_ops.h"
#include "qnn/context_settings.h"
#include "qnn/api_guard.h"
#include "qnn/client_enum.h"
#include "qnn/live_handle.h"
#include "qnn/logger.h"
#include "qnn/mem_qurt.h"
#include "qnn/objects.h"
#include "qnn/tensor_view.h"

using namespace openhtp;
using namespace openhtp::qnn;

namespace openhtp::qnn {

Qnn_ErrorHandle_t create_runtime_context(Backend& b, const htp::ContextOptions& options,
                                         std::shared_ptr<HtpStub>* stub, uint64_t* id) {
  Qnn_ErrorHandle_t e = QNN_SUCCESS;
  for (int attempt = 0; attempt < 2; ++attempt) {
    *stub = backend_stub_for_new_context(b, &e);
    if (!*stub) return e;
    e = (*stub)->context_create(options, id);
    if (e != QNN_COMMON_ERROR_SYSTEM_COMMUNICATION || !(*stub)->lost()) return e;
  }
  return e;
}

std::shared_ptr<HtpStub> backend_stub_for_new_context(Backend& b, Qnn_ErrorHandle_t* err) {
  std::lock_guard lock(b.stub_mu);
  if (b.stub->lost()) {
    auto fresh = HtpStub::get(b.domain, err);
    if (!fresh) return nullptr;
    QNN_LOG_WARN("the DSP process of this backend is gone; new contexts go to a fresh one");
    b.stub = std::move(fresh);
  }
  return b.stub;
}

void release_context_contents(Context& ctx) {
  // Graphs and memory handles die with their context: clients (Genie, probes
  // that free rpcmem right after contextFree) rely on this.
  std::lock_guard lock(ctx.mu);
  for (uint64_t g : ctx.graphs) ObjectTable::instance().remove(ObjectKind::kGraph, as_handle(g));
  for (uint64_t m : ctx.mem_handles) ObjectTable::instance().remove(ObjectKind::kMem, as_handle(m));
  ctx.graphs.clear();
  ctx.mem_handles.clear();
  ctx.regions.clear();
}

bool context_live(const Context& ctx) {
  return ObjectTable::instance().find(ObjectKind::kContext, as_handle(ctx.handle)) != nullptr;
}

}  // namespace openhtp::qnn

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnContext_create(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                            const QnnContext_Config_t** config, Qnn_ContextHandle_t* context) try {
  auto b = find_object<Backend>(ObjectKind::kBackend, backend);
  if (!b) {
    QNN_LOG_ERROR("contextCreate: %p is not a live backend handle", backend);
    return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  }
  if (device != nullptr && !ObjectTable::instance().find(ObjectKind::kDevice, device)) {
    QNN_LOG_ERROR("contextCreate: %p is not a live device handle", device);
    return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  }
  if (context == nullptr) return null_argument("contextCreate", "context", QNN_CONTEXT_ERROR_INVALID_ARGUMENT);
  ContextSettings settings;
  if (Qnn_ErrorHandle_t e = read_context_configs(config, ContextOrigin::kOnline, &settings); e != QNN_SUCCESS) return e;
  auto ctx = std::make_shared<Context>();
  ctx->backend = b;
  ctx->priority = settings.priority;
  ctx->weight_sharing = settings.weight_sharing || (b->extensions && b->extensions->weight_sharing);
  htp::ContextOptions options;
  options.priority = settings.priority;
  options.weight_sharing = ctx->weight_sharing;
  if (Qnn_ErrorHandle_t e = create_runtime_context(*b, options, &ctx->stub, &ctx->remote_id); e != QNN_SUCCESS) {
    return e;
  }
  *context = ObjectTable::instance().add(ObjectKind::kContext, ctx);
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("contextCreate");
}

QNN_API Qnn_ErrorHandle_t QnnContext_setConfig(Qnn_ContextHandle_t context, const QnnContext_Config_t** config) try {
  auto ctx = live_object<Context>("contextSetConfig", ObjectKind::kContext, context);
  if (!ctx) return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  // PRIORITY is what may change after creation; other options are accepted
  // and keep their creation-time values.
  for (const QnnContext_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    if ((*c)->option != QNN_CONTEXT_CONFIG_OPTION_PRIORITY) continue;
    const uint32_t priority = enum_bits((*c)->priority);
    if (!context_priority_valid("contextSetConfig", priority)) return QNN_CONTEXT_ERROR_INVALID_CONFIG;
    if (!qurt_priority_change_allowed(*ctx, priority)) return QNN_CONTEXT_ERROR_INVALID_CONFIG;
    if (Qnn_ErrorHandle_t e = ctx->stub->context_set_priority(ctx->remote_id, priority); e != QNN_SUCCESS) return e;
    std::lock_guard lock(ctx->mu);
    ctx->priority = priority;
  }
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("contextSetConfig");
}

QNN_API Qnn_ErrorHandle_t QnnContext_free(Qnn_ContextHandle_t context, Qnn_ProfileHandle_t profile) try {
  (void)profile;
  auto obj = ObjectTable::instance().remove(ObjectKind::kContext, context);
  if (!obj) {
    QNN_LOG_ERROR("contextFree: %p is not a live context handle", context);
    return QNN_CONTEXT_ERROR_INVALID_HANDLE;
  }
  auto ctx = std::static_pointer_cast<Context>(obj);
  release_context_contents(*ctx);
  // Freeing a dead object always succeeds (SSR, docs/user-guide.md): when
  // the context's DSP process is gone, so is everything it held there.
  Qnn_ErrorHandle_t e = ctx->stub->lost() ? QNN_SUCCESS : ctx->stub->context_free(ctx->remote_id);
  if (e == QNN_COMMON_ERROR_SYSTEM_COMMUNICATION) e = QNN_SUCCESS;  // it died during the call
  // Buffers the runtime provided (backend extensions) go with the context.
  for (void* mem : ctx->runtime_buffers) cdsprpc().rpcmem_free(mem);
  ctx->runtime_buffers.clear();
  return e;
} catch (...) {
  return openhtp::qnn::api_exception("contextFree");
}

QNN_API Qnn_ErrorHandle_t QnnTensor_createContextTensor(Qnn_ContextHandle_t context, Qnn_Tensor_t* tensor) try {
  auto ctx = live_object<Context>("tensorCreateContextTensor", ObjectKind::kContext, context);
  if (!ctx) return QNN_TENSOR_ERROR_INVALID_HANDLE;
  openhtp::htp::TensorSpec spec;
  Qnn_ErrorHandle_t e = tensor_spec_from_client(tensor, &spec);
  if (e != QNN_SUCCESS) return e;
  std::lock_guard lock(ctx->mu);
  if (!ctx->context_tensor_names.insert(spec.name).second) {
    QNN_LOG_ERROR("createContextTensor: name '%s' already exists in this context", spec.name.c_str());
    return QNN_TENSOR_ERROR_ALREADY_EXISTS;
  }
  spec.id = ctx->next_tensor_id++;
  set_tensor_id(tensor, spec.id);
  ctx->context_tensors.push_back(std::move(spec));
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("tensorCreateContextTensor");
}

}  // extern "C"
