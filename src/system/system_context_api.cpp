// System contexts: QnnSystemContext_create / getBinaryInfo / getMetadata /
// free, and the openhtp weights-size extension.
//
// Ownership: the QnnSystemContext_BinaryInfo_t a successful getBinaryInfo or
// getMetadata returns, and everything it points to, belongs to the system
// context. It stays valid until the next successful getBinaryInfo/getMetadata
// on the same handle or QnnSystemContext_free, whichever comes first; a failed
// call leaves the previous info untouched. Different handles are independent
// and may be used from different threads at once.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "binary/context_codec.h"
#include "system/api_guard.h"
#include "system/binary_info.h"
#include "system/openhtp_system_ext.h"
#include "system/system_log.h"

using namespace openhtp;
using namespace openhtp::system;

namespace {

struct SystemContext {
  std::mutex mu;  // one reader at a time: a call replaces `info`
  std::unique_ptr<BinaryInfo> info;
};

// Handles are numbers looked up in this table, never dereferenced pointers,
// and never reused: stale, foreign or doubly freed handles are refused with
// INVALID_HANDLE instead of crashing.
std::mutex& table_mu() {
  static auto* m = new std::mutex;
  return *m;
}
std::map<uintptr_t, std::shared_ptr<SystemContext>>& table() {
  static auto* t = new std::map<uintptr_t, std::shared_ptr<SystemContext>>;
  return *t;
}
uintptr_t g_next = 0x53c00000;

std::shared_ptr<SystemContext> find(QnnSystemContext_Handle_t h) {
  std::lock_guard lock(table_mu());
  auto it = table().find(reinterpret_cast<uintptr_t>(h));
  return it == table().end() ? nullptr : it->second;
}

// getBinaryInfo and getMetadata: same checks, same result.
Qnn_ErrorHandle_t read_binary(const char* fn, QnnSystemContext_Handle_t handle, const void* buffer, uint64_t size,
                              const QnnSystemContext_BinaryInfo_t** out) {
  auto ctx = find(handle);
  if (!ctx) {
    SYS_LOG_ERROR("%s: invalid system context handle %p", fn, handle);
    return QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE;
  }
  if (buffer == nullptr || size == 0 || out == nullptr) {
    SYS_LOG_ERROR("%s: %s", fn,
                  out == nullptr ? "binaryInfo is NULL" : "binary buffer is NULL or empty");
    return QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT;
  }
  binary::ContextImage image;
  std::string why;
  switch (binary::decode_context(static_cast<const uint8_t*>(buffer), size, &image, &why)) {
    case binary::BinaryError::kNone:
      break;
    case binary::BinaryError::kVersion:
      // Readable but not by us: as unusable as a corrupted one, and QNN's
      // System API has no separate code for it.
      SYS_LOG_ERROR("%s: unsupported context binary version: %s", fn, why.c_str());
      return QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY;
    case binary::BinaryError::kMalformed:
    default:
      SYS_LOG_ERROR("%s: malformed context binary: %s", fn, why.c_str());
      return QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY;
  }
  auto info = std::make_unique<BinaryInfo>(std::move(image), size);
  std::lock_guard lock(ctx->mu);
  ctx->info = std::move(info);  // frees the previous info: see the ownership note above
  *out = &ctx->info->info();
  return QNN_SUCCESS;
}

}  // namespace

extern "C" {

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemContext_create(QnnSystemContext_Handle_t* sysCtxHandle) try {
  if (sysCtxHandle == nullptr) {
    SYS_LOG_ERROR("systemContextCreate: sysCtxHandle is NULL");
    return QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT;
  }
  auto ctx = std::make_shared<SystemContext>();
  std::lock_guard lock(table_mu());
  const uintptr_t h = ++g_next;
  table().emplace(h, std::move(ctx));
  *sysCtxHandle = reinterpret_cast<QnnSystemContext_Handle_t>(h);
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::system::api_exception("systemContextCreate", QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED);
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemContext_getBinaryInfo(QnnSystemContext_Handle_t sysCtxHandle,
                                                                void* binaryBuffer, uint64_t binaryBufferSize,
                                                                const QnnSystemContext_BinaryInfo_t** binaryInfo,
                                                                Qnn_ContextBinarySize_t* binaryInfoSize) try {
  // binaryInfoSize is getBinaryInfo's alone; a bad handle still takes
  // precedence over it, as in read_binary.
  if (binaryInfoSize == nullptr && find(sysCtxHandle)) {
    SYS_LOG_ERROR("systemContextGetBinaryInfo: binaryInfoSize is NULL");
    return QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT;
  }
  const Qnn_ErrorHandle_t e =
      read_binary("systemContextGetBinaryInfo", sysCtxHandle, binaryBuffer, binaryBufferSize, binaryInfo);
  // The size of the top-level structure; what it points to is owned by the
  // handle and needs no copying by size.
  if (e == QNN_SUCCESS) *binaryInfoSize = sizeof(QnnSystemContext_BinaryInfo_t);
  return e;
} catch (...) {
  return openhtp::system::api_exception("systemContextGetBinaryInfo", QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED);
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemContext_getMetadata(QnnSystemContext_Handle_t sysCtxHandle,
                                                              const void* binaryBuffer,
                                                              Qnn_ContextBinarySize_t binaryBufferSize,
                                                              const QnnSystemContext_BinaryInfo_t** binaryInfo) try {
  return read_binary("systemContextGetMetaData", sysCtxHandle, binaryBuffer, binaryBufferSize, binaryInfo);
} catch (...) {
  return openhtp::system::api_exception("systemContextGetMetaData", QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED);
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemContext_free(QnnSystemContext_Handle_t sysCtxHandle) try {
  std::shared_ptr<SystemContext> doomed;  // destroyed outside the table lock
  {
    std::lock_guard lock(table_mu());
    auto it = table().find(reinterpret_cast<uintptr_t>(sysCtxHandle));
    if (it != table().end()) {
      doomed = std::move(it->second);
      table().erase(it);
    }
  }
  if (!doomed) {
    SYS_LOG_ERROR("systemContextFree: invalid system context handle %p", sysCtxHandle);
    return QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE;
  }
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::system::api_exception("systemContextFree", QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED);
}

QNN_SYSTEM_API Qnn_ErrorHandle_t OpenHtpSystemContext_getWeightsSize(QnnSystemContext_Handle_t sysCtxHandle,
                                                                     uint64_t* weightsSize) try {
  auto ctx = find(sysCtxHandle);
  if (!ctx) return QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE;
  if (weightsSize == nullptr) return QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT;
  std::lock_guard lock(ctx->mu);
  if (!ctx->info) {
    SYS_LOG_ERROR("OpenHtpSystemContext_getWeightsSize: no binary has been read through this handle");
    return QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT;
  }
  *weightsSize = ctx->info->image().weights_bytes;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::system::api_exception("OpenHtpSystemContext_getWeightsSize",
                                        QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED);
}

}  // extern "C"
