// QnnError_*: names for error codes, and the detailed line behind the last one.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "QnnError.h"
#include "QnnInterface.h"
#include "qnn/api_guard.h"
#include "qnn/logger.h"

namespace {

struct CodeName {
  Qnn_ErrorHandle_t code;
  const char* text;
};

// Codes the HTP backend returns, with the name a client would grep for.
constexpr CodeName kNames[] = {
    {QNN_SUCCESS, "QNN_SUCCESS: success"},
    {QNN_COMMON_ERROR_NOT_SUPPORTED, "QNN_COMMON_ERROR_NOT_SUPPORTED: not supported"},
    {QNN_COMMON_ERROR_MEM_ALLOC, "QNN_COMMON_ERROR_MEM_ALLOC: memory allocation failed"},
    {QNN_COMMON_ERROR_SYSTEM, "QNN_COMMON_ERROR_SYSTEM: system error"},
    {QNN_COMMON_ERROR_INVALID_ARGUMENT, "QNN_COMMON_ERROR_INVALID_ARGUMENT: invalid argument"},
    {QNN_COMMON_ERROR_SYSTEM_COMMUNICATION, "QNN_COMMON_ERROR_SYSTEM_COMMUNICATION: the DSP process could not be reached"},
    {QNN_COMMON_ERROR_LOADING_BINARIES, "QNN_COMMON_ERROR_LOADING_BINARIES: could not load a backend binary"},
    {QNN_BACKEND_ERROR_INVALID_ARGUMENT, "QNN_BACKEND_ERROR_INVALID_ARGUMENT"},
    {QNN_BACKEND_ERROR_INVALID_HANDLE, "QNN_BACKEND_ERROR_INVALID_HANDLE"},
    {QNN_BACKEND_ERROR_INVALID_CONFIG, "QNN_BACKEND_ERROR_INVALID_CONFIG"},
    {QNN_BACKEND_ERROR_NOT_SUPPORTED, "QNN_BACKEND_ERROR_NOT_SUPPORTED: op or parameter not supported"},
    {QNN_BACKEND_ERROR_OP_PACKAGE_NOT_FOUND, "QNN_BACKEND_ERROR_OP_PACKAGE_NOT_FOUND"},
    {QNN_CONTEXT_ERROR_INVALID_ARGUMENT, "QNN_CONTEXT_ERROR_INVALID_ARGUMENT"},
    {QNN_CONTEXT_ERROR_INVALID_HANDLE, "QNN_CONTEXT_ERROR_INVALID_HANDLE"},
    {QNN_CONTEXT_ERROR_INVALID_CONFIG, "QNN_CONTEXT_ERROR_INVALID_CONFIG"},
    {QNN_GRAPH_ERROR_INVALID_ARGUMENT, "QNN_GRAPH_ERROR_INVALID_ARGUMENT"},
    {QNN_GRAPH_ERROR_INVALID_HANDLE, "QNN_GRAPH_ERROR_INVALID_HANDLE"},
    {QNN_GRAPH_ERROR_GRAPH_DOES_NOT_EXIST, "QNN_GRAPH_ERROR_GRAPH_DOES_NOT_EXIST"},
    {QNN_GRAPH_ERROR_INVALID_NAME, "QNN_GRAPH_ERROR_INVALID_NAME"},
    {QNN_GRAPH_ERROR_INVALID_TENSOR, "QNN_GRAPH_ERROR_INVALID_TENSOR: a tensor is unknown, unbound or its buffer is unusable"},
    {QNN_GRAPH_ERROR_INVALID_OP_CONFIG, "QNN_GRAPH_ERROR_INVALID_OP_CONFIG: node breaks its op definition"},
    {QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE, "QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE"},
    {QNN_GRAPH_ERROR_FINALIZE_FAILED, "QNN_GRAPH_ERROR_FINALIZE_FAILED"},
    {QNN_GRAPH_ERROR_GRAPH_NOT_FINALIZED, "QNN_GRAPH_ERROR_GRAPH_NOT_FINALIZED"},
    {QNN_GRAPH_ERROR_GRAPH_FINALIZED, "QNN_GRAPH_ERROR_GRAPH_FINALIZED"},
    {QNN_GRAPH_ERROR_INVALID_CONTEXT, "QNN_GRAPH_ERROR_INVALID_CONTEXT"},
    {QNN_TENSOR_ERROR_INVALID_HANDLE, "QNN_TENSOR_ERROR_INVALID_HANDLE"},
    {QNN_TENSOR_ERROR_ALREADY_EXISTS, "QNN_TENSOR_ERROR_ALREADY_EXISTS"},
    {QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM, "QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM"},
    {QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM, "QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM"},
    {QNN_MEM_ERROR_INVALID_ARGUMENT, "QNN_MEM_ERROR_INVALID_ARGUMENT"},
    {QNN_MEM_ERROR_INVALID_HANDLE, "QNN_MEM_ERROR_INVALID_HANDLE"},
    {QNN_MEM_ERROR_ALREADY_REGISTERED, "QNN_MEM_ERROR_ALREADY_REGISTERED: (context, fd, offset) already has a handle"},
    {QNN_MEM_ERROR_MAPPING, "QNN_MEM_ERROR_MAPPING: the DSP could not map the buffer"},
    {QNN_MEM_ERROR_INVALID_SHAPE, "QNN_MEM_ERROR_INVALID_SHAPE"},
    {QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE, "QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE"},
    {QNN_LOG_ERROR_INVALID_ARGUMENT, "QNN_LOG_ERROR_INVALID_ARGUMENT"},
    {QNN_LOG_ERROR_INVALID_HANDLE, "QNN_LOG_ERROR_INVALID_HANDLE"},
    {QNN_PROFILE_ERROR_INVALID_HANDLE, "QNN_PROFILE_ERROR_INVALID_HANDLE"},
    {QNN_DEVICE_ERROR_INVALID_HANDLE, "QNN_DEVICE_ERROR_INVALID_HANDLE"},
};

}  // namespace

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnError_getMessage(Qnn_ErrorHandle_t errorHandle, const char** errorMessage) try {
  if (errorMessage == nullptr) return QNN_ERROR_INVALID_ARGUMENT;
  const Qnn_ErrorHandle_t code = QNN_GET_ERROR_CODE(errorHandle);
  for (const auto& n : kNames) {
    if (n.code == code) {
      *errorMessage = n.text;
      return QNN_SUCCESS;
    }
  }
  return QNN_ERROR_INVALID_ERROR_HANDLE;
} catch (...) {
  return openhtp::qnn::api_exception("errorGetMessage");
}

QNN_API Qnn_ErrorHandle_t QnnError_getVerboseMessage(Qnn_ErrorHandle_t errorHandle, const char** errorMessage) try {
  const char* base = nullptr;
  if (errorMessage == nullptr) return QNN_ERROR_INVALID_ARGUMENT;
  if (Qnn_ErrorHandle_t e = QnnError_getMessage(errorHandle, &base); e != QNN_SUCCESS) return e;
  // The verbose text is the name plus the calling thread's last error line,
  // which names the rule and the value. Owned by the caller until
  // errorFreeVerboseMessage.
  const char* detail = openhtp::qnn::last_error_message();
  const size_t n = std::strlen(base) + std::strlen(detail) + 4;
  char* s = static_cast<char*>(std::malloc(n));
  if (s == nullptr) return QNN_COMMON_ERROR_MEM_ALLOC;
  std::snprintf(s, n, "%s%s%s", base, detail[0] ? ": " : "", detail);
  *errorMessage = s;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("errorGetVerboseMessage");
}

QNN_API Qnn_ErrorHandle_t QnnError_freeVerboseMessage(const char* errorMessage) try {
  if (errorMessage == nullptr) return QNN_ERROR_INVALID_ARGUMENT;
  std::free(const_cast<char*>(errorMessage));
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("errorFreeVerboseMessage");
}

}  // extern "C"
