// QnnError_*: names for error codes, and the detailed line behind the last one.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>

#include "HTP/QnnHtpPerfInfrastructure.h"
#include "QnnError.h"
#include "QnnGlobalConfig.h"
#include "QnnInterface.h"
#include "QnnOpPackage.h"
#include "Saver/QnnSaver.h"
#include "System/QnnSystemCommon.h"
#include "System/QnnSystemContext.h"
#include "System/QnnSystemProfile.h"
#include "qnn/api_guard.h"
#include "qnn/logger.h"

namespace {

struct CodeName {
  Qnn_ErrorHandle_t code;
  const char* text;
};

// One entry per distinct value of every *_Error_t enum in include/QNN
// (System, Saver and HTP included): a client may hand errorGetMessage any code
// it got from any QNN library, not only ours. Where several enums share a
// value (1000 is NOT_SUPPORTED, UNSUPPORTED_FEATURE, ...), the text carries the
// QnnCommon name. Each text starts with a header name so a client can grep
// for it; tests/qnn/api_test.cpp (ErrorMessages.*) parses the shipped headers
// and fails when a code is added there without a line here.
constexpr CodeName kNames[] = {
    {QNN_SUCCESS, "QNN_SUCCESS: the call succeeded"},

    // QnnCommon: codes any API may return.
    {QNN_COMMON_ERROR_NOT_SUPPORTED, "QNN_COMMON_ERROR_NOT_SUPPORTED: the backend does not support this feature or call"},
    {QNN_COMMON_ERROR_MEM_ALLOC, "QNN_COMMON_ERROR_MEM_ALLOC: memory allocation failed"},
    {QNN_COMMON_ERROR_SYSTEM, "QNN_COMMON_ERROR_SYSTEM: an operating-system call failed"},
    {QNN_COMMON_ERROR_INVALID_ARGUMENT, "QNN_COMMON_ERROR_INVALID_ARGUMENT: an argument is invalid"},
    {QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED, "QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED: the call is not allowed in the current state"},
    {QNN_COMMON_ERROR_PLATFORM_NOT_SUPPORTED, "QNN_COMMON_ERROR_PLATFORM_NOT_SUPPORTED: this SoC or platform is not supported"},
    {QNN_COMMON_ERROR_SYSTEM_COMMUNICATION, "QNN_COMMON_ERROR_SYSTEM_COMMUNICATION: the DSP process could not be reached"},
    {QNN_COMMON_ERROR_INCOMPATIBLE_BINARIES, "QNN_COMMON_ERROR_INCOMPATIBLE_BINARIES: the libraries loaded do not belong together"},
    {QNN_COMMON_ERROR_LOADING_BINARIES, "QNN_COMMON_ERROR_LOADING_BINARIES: could not load a backend binary"},
    {QNN_COMMON_ERROR_RESOURCE_UNAVAILABLE, "QNN_COMMON_ERROR_RESOURCE_UNAVAILABLE: a resource the call needs is taken or exhausted"},
    {QNN_COMMON_ERROR_SYSTEM_COMMUNICATION_FATAL, "QNN_COMMON_ERROR_SYSTEM_COMMUNICATION_FATAL: the DSP process was lost and could not be recovered"},
    {QNN_COMMON_ERROR_GENERAL, "QNN_COMMON_ERROR_GENERAL: unexpected internal failure"},

    // QnnProperty.
    {QNN_PROPERTY_ERROR_UNKNOWN_KEY, "QNN_PROPERTY_ERROR_UNKNOWN_KEY: the capability key is not known"},

    // QnnOpPackage.
    {QNN_OP_PACKAGE_ERROR_LIBRARY_ALREADY_INITIALIZED, "QNN_OP_PACKAGE_ERROR_LIBRARY_ALREADY_INITIALIZED: the op package was initialized already"},
    {QNN_OP_PACKAGE_ERROR_LIBRARY_NOT_INITIALIZED, "QNN_OP_PACKAGE_ERROR_LIBRARY_NOT_INITIALIZED: the op package has not been initialized"},
    {QNN_OP_PACKAGE_ERROR_INVALID_HANDLE, "QNN_OP_PACKAGE_ERROR_INVALID_HANDLE: the op package handle is not valid"},
    {QNN_OP_PACKAGE_ERROR_INVALID_INFRASTRUCTURE, "QNN_OP_PACKAGE_ERROR_INVALID_INFRASTRUCTURE: the infrastructure handed to the op package is unusable"},
    {QNN_OP_PACKAGE_ERROR_INVALID_INFO, "QNN_OP_PACKAGE_ERROR_INVALID_INFO: the op package describes itself inconsistently"},
    {QNN_OP_PACKAGE_ERROR_VALIDATION_FAILURE, "QNN_OP_PACKAGE_ERROR_VALIDATION_FAILURE: the op package rejected the node"},
    {QNN_OP_PACKAGE_ERROR_INVALID_ARGUMENT, "QNN_OP_PACKAGE_ERROR_INVALID_ARGUMENT: an argument to the op package is invalid"},

    // QnnBackend.
    {QNN_BACKEND_ERROR_CANNOT_INITIALIZE, "QNN_BACKEND_ERROR_CANNOT_INITIALIZE: the backend could not be set up"},
    {QNN_BACKEND_ERROR_TERMINATE_FAILED, "QNN_BACKEND_ERROR_TERMINATE_FAILED: the backend could not be torn down cleanly"},
    {QNN_BACKEND_ERROR_NOT_SUPPORTED, "QNN_BACKEND_ERROR_NOT_SUPPORTED: op or parameter not supported"},
    {QNN_BACKEND_ERROR_INVALID_ARGUMENT, "QNN_BACKEND_ERROR_INVALID_ARGUMENT: an argument to a backend call is invalid"},
    {QNN_BACKEND_ERROR_OP_PACKAGE_NOT_FOUND, "QNN_BACKEND_ERROR_OP_PACKAGE_NOT_FOUND: the op package library could not be opened"},
    {QNN_BACKEND_ERROR_OP_PACKAGE_IF_PROVIDER_NOT_FOUND, "QNN_BACKEND_ERROR_OP_PACKAGE_IF_PROVIDER_NOT_FOUND: the op package library lacks the named interface provider"},
    {QNN_BACKEND_ERROR_OP_PACKAGE_REGISTRATION_FAILED, "QNN_BACKEND_ERROR_OP_PACKAGE_REGISTRATION_FAILED: the op package could not be registered"},
    {QNN_BACKEND_ERROR_OP_PACKAGE_UNSUPPORTED_VERSION, "QNN_BACKEND_ERROR_OP_PACKAGE_UNSUPPORTED_VERSION: the op package was built for an API version this backend does not take"},
    {QNN_BACKEND_ERROR_OP_PACKAGE_DUPLICATE, "QNN_BACKEND_ERROR_OP_PACKAGE_DUPLICATE: an op package of that name is registered already"},
    {QNN_BACKEND_ERROR_INCONSISTENT_CONFIG, "QNN_BACKEND_ERROR_INCONSISTENT_CONFIG: backend configuration options contradict each other"},
    {QNN_BACKEND_ERROR_INVALID_HANDLE, "QNN_BACKEND_ERROR_INVALID_HANDLE: the backend handle is not a live backend"},
    {QNN_BACKEND_ERROR_INVALID_CONFIG, "QNN_BACKEND_ERROR_INVALID_CONFIG: a backend configuration option is invalid"},

    // QnnSaver (the Saver backend's sub-range of the backend codes).
    {QNN_SAVER_ERROR_DUMMY_RETVALUE, "QNN_SAVER_ERROR_DUMMY_RETVALUE: the call was recorded; the value returned is a stand-in"},
    {QNN_SAVER_ERROR_ALREADY_INSTANTIATED, "QNN_SAVER_ERROR_ALREADY_INSTANTIATED: the Saver was configured after its backend had been created"},

    // QnnContext.
    {QNN_CONTEXT_ERROR_INVALID_ARGUMENT, "QNN_CONTEXT_ERROR_INVALID_ARGUMENT: an argument to a context call is invalid"},
    {QNN_CONTEXT_ERROR_CTX_DOES_NOT_EXIST, "QNN_CONTEXT_ERROR_CTX_DOES_NOT_EXIST: the context does not exist"},
    {QNN_CONTEXT_ERROR_INVALID_HANDLE, "QNN_CONTEXT_ERROR_INVALID_HANDLE: the context handle is not a live context"},
    {QNN_CONTEXT_ERROR_NOT_FINALIZED, "QNN_CONTEXT_ERROR_NOT_FINALIZED: a graph of the context is not finalized yet"},
    {QNN_CONTEXT_ERROR_BINARY_VERSION, "QNN_CONTEXT_ERROR_BINARY_VERSION: the context binary's version is not one this backend reads"},
    {QNN_CONTEXT_ERROR_CREATE_FROM_BINARY, "QNN_CONTEXT_ERROR_CREATE_FROM_BINARY: the context could not be rebuilt from the binary"},
    {QNN_CONTEXT_ERROR_GET_BINARY_SIZE_FAILED, "QNN_CONTEXT_ERROR_GET_BINARY_SIZE_FAILED: the size of the context binary could not be worked out"},
    {QNN_CONTEXT_ERROR_GET_BINARY_FAILED, "QNN_CONTEXT_ERROR_GET_BINARY_FAILED: the context could not be written out as a binary"},
    {QNN_CONTEXT_ERROR_BINARY_CONFIGURATION, "QNN_CONTEXT_ERROR_BINARY_CONFIGURATION: the binary was built for a configuration this device does not match"},
    {QNN_CONTEXT_ERROR_SET_PROFILE, "QNN_CONTEXT_ERROR_SET_PROFILE: the profile handle could not be attached to the context"},
    {QNN_CONTEXT_ERROR_INVALID_CONFIG, "QNN_CONTEXT_ERROR_INVALID_CONFIG: a context configuration option is invalid"},
    {QNN_CONTEXT_ERROR_BINARY_SUBOPTIMAL, "QNN_CONTEXT_ERROR_BINARY_SUBOPTIMAL: the binary loads but was not built for this device and may run slower"},
    {QNN_CONTEXT_ERROR_ABORTED, "QNN_CONTEXT_ERROR_ABORTED: the context call was aborted through its signal"},
    {QNN_CONTEXT_ERROR_TIMED_OUT, "QNN_CONTEXT_ERROR_TIMED_OUT: the context call ran past its signal's timeout"},
    {QNN_CONTEXT_ERROR_INCREMENT_INVALID_BUFFER, "QNN_CONTEXT_ERROR_INCREMENT_INVALID_BUFFER: the buffer given for an incremental update is unusable"},

    // QnnGraph.
    {QNN_GRAPH_ERROR_INVALID_ARGUMENT, "QNN_GRAPH_ERROR_INVALID_ARGUMENT: an argument to a graph call is invalid"},
    {QNN_GRAPH_ERROR_INVALID_HANDLE, "QNN_GRAPH_ERROR_INVALID_HANDLE: the graph handle is not a live graph"},
    {QNN_GRAPH_ERROR_GRAPH_DOES_NOT_EXIST, "QNN_GRAPH_ERROR_GRAPH_DOES_NOT_EXIST: no graph of that name in the context"},
    {QNN_GRAPH_ERROR_INVALID_NAME, "QNN_GRAPH_ERROR_INVALID_NAME: the graph name is empty or taken"},
    {QNN_GRAPH_ERROR_INVALID_TENSOR, "QNN_GRAPH_ERROR_INVALID_TENSOR: a tensor is unknown, unbound or its buffer is unusable"},
    {QNN_GRAPH_ERROR_INVALID_OP_CONFIG, "QNN_GRAPH_ERROR_INVALID_OP_CONFIG: node breaks its op definition"},
    {QNN_GRAPH_ERROR_SET_PROFILE, "QNN_GRAPH_ERROR_SET_PROFILE: the profile handle could not be attached to the graph"},
    {QNN_GRAPH_ERROR_UNCONNECTED_NODE, "QNN_GRAPH_ERROR_UNCONNECTED_NODE: a node is not connected to the rest of the graph"},
    {QNN_GRAPH_ERROR_CREATE_FAILED, "QNN_GRAPH_ERROR_CREATE_FAILED: the graph could not be created"},
    {QNN_GRAPH_ERROR_OPTIMIZATION_FAILED, "QNN_GRAPH_ERROR_OPTIMIZATION_FAILED: the graph could not be optimized for the device"},
    {QNN_GRAPH_ERROR_FINALIZE_FAILED, "QNN_GRAPH_ERROR_FINALIZE_FAILED: the graph could not be finalized"},
    {QNN_GRAPH_ERROR_GRAPH_NOT_FINALIZED, "QNN_GRAPH_ERROR_GRAPH_NOT_FINALIZED: the graph must be finalized first"},
    {QNN_GRAPH_ERROR_GRAPH_FINALIZED, "QNN_GRAPH_ERROR_GRAPH_FINALIZED: the graph is finalized and can no longer change"},
    {QNN_GRAPH_ERROR_EXECUTION_ASYNC_FIFO_FULL, "QNN_GRAPH_ERROR_EXECUTION_ASYNC_FIFO_FULL: the queue of asynchronous executions is full"},
    {QNN_GRAPH_ERROR_SIGNAL_IN_USE, "QNN_GRAPH_ERROR_SIGNAL_IN_USE: the signal is already guarding another call"},
    {QNN_GRAPH_ERROR_ABORTED, "QNN_GRAPH_ERROR_ABORTED: the graph call was aborted through its signal"},
    {QNN_GRAPH_ERROR_PROFILE_IN_USE, "QNN_GRAPH_ERROR_PROFILE_IN_USE: the profile handle is already in use by another call"},
    {QNN_GRAPH_ERROR_TIMED_OUT, "QNN_GRAPH_ERROR_TIMED_OUT: the graph call ran past its signal's timeout"},
    {QNN_GRAPH_ERROR_SUBGRAPH, "QNN_GRAPH_ERROR_SUBGRAPH: the call is not valid on a subgraph"},
    {QNN_GRAPH_ERROR_DISABLED, "QNN_GRAPH_ERROR_DISABLED: the graph is disabled"},
    {QNN_GRAPH_ERROR_DYNAMIC_TENSOR_SHAPE, "QNN_GRAPH_ERROR_DYNAMIC_TENSOR_SHAPE: a dynamic tensor shape is unsupported or out of bounds"},
    {QNN_GRAPH_ERROR_TENSOR_SPARSITY, "QNN_GRAPH_ERROR_TENSOR_SPARSITY: a sparse tensor is unsupported or malformed"},
    {QNN_GRAPH_ERROR_EARLY_TERMINATION, "QNN_GRAPH_ERROR_EARLY_TERMINATION: the execution stopped early, as asked"},
    {QNN_GRAPH_ERROR_INVALID_CONTEXT, "QNN_GRAPH_ERROR_INVALID_CONTEXT: the context handle is not a live context"},
    {QNN_GRAPH_ERROR_CYCLE_DETECTED, "QNN_GRAPH_ERROR_CYCLE_DETECTED: the graph contains a cycle"},

    // QnnTensor.
    {QNN_TENSOR_ERROR_INVALID_HANDLE, "QNN_TENSOR_ERROR_INVALID_HANDLE: the tensor handle is not valid"},
    {QNN_TENSOR_ERROR_DOES_NOT_EXIST, "QNN_TENSOR_ERROR_DOES_NOT_EXIST: the tensor does not exist"},
    {QNN_TENSOR_ERROR_ALREADY_EXISTS, "QNN_TENSOR_ERROR_ALREADY_EXISTS: a tensor of that id or name exists already"},
    {QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM, "QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM: a field of the tensor description is invalid"},
    {QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM, "QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM: a field of the tensor description is valid but not supported"},
    {QNN_TENSOR_ERROR_NAME_HASH_COLLISION, "QNN_TENSOR_ERROR_NAME_HASH_COLLISION: two tensor names hash to the same value"},
    {QNN_TENSOR_ERROR_INCOMPATIBLE_TENSOR_UPDATE, "QNN_TENSOR_ERROR_INCOMPATIBLE_TENSOR_UPDATE: the update does not fit the tensor it replaces"},

    // QnnMem.
    {QNN_MEM_ERROR_INVALID_ARGUMENT, "QNN_MEM_ERROR_INVALID_ARGUMENT: an argument to a memory call is invalid"},
    {QNN_MEM_ERROR_INVALID_HANDLE, "QNN_MEM_ERROR_INVALID_HANDLE: the memory handle is not registered"},
    {QNN_MEM_ERROR_ALREADY_REGISTERED, "QNN_MEM_ERROR_ALREADY_REGISTERED: (context, fd, offset) already has a handle"},
    {QNN_MEM_ERROR_MAPPING, "QNN_MEM_ERROR_MAPPING: the DSP could not map the buffer"},
    {QNN_MEM_ERROR_INVALID_SHAPE, "QNN_MEM_ERROR_INVALID_SHAPE: the shape does not fit the registered buffer"},
    {QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE, "QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE: the memory type is not supported"},

    // QnnSignal.
    {QNN_SIGNAL_ERROR_SIGNAL_IN_USE, "QNN_SIGNAL_ERROR_SIGNAL_IN_USE: the signal is guarding a call in progress"},
    {QNN_SIGNAL_ERROR_SIGNAL_IDLE, "QNN_SIGNAL_ERROR_SIGNAL_IDLE: the signal guards no call at the moment"},
    {QNN_SIGNAL_ERROR_INVALID_ARGUMENT, "QNN_SIGNAL_ERROR_INVALID_ARGUMENT: an argument to a signal call is invalid"},
    {QNN_SIGNAL_ERROR_INVALID_HANDLE, "QNN_SIGNAL_ERROR_INVALID_HANDLE: the signal handle is not a live signal"},
    {QNN_SIGNAL_ERROR_TIMEOUT, "QNN_SIGNAL_ERROR_TIMEOUT: waiting on the signal timed out"},
    {QNN_SIGNAL_ERROR_INCOMPATIBLE_SIGNAL_TYPE, "QNN_SIGNAL_ERROR_INCOMPATIBLE_SIGNAL_TYPE: the signal's kind does not fit this call"},

    // QnnError.
    {QNN_ERROR_INVALID_ARGUMENT, "QNN_ERROR_INVALID_ARGUMENT: an argument to an error call is invalid"},
    {QNN_ERROR_INVALID_ERROR_HANDLE, "QNN_ERROR_INVALID_ERROR_HANDLE: the value is not a QNN error code"},

    // QnnLog.
    {QNN_LOG_ERROR_INITIALIZATION, "QNN_LOG_ERROR_INITIALIZATION: logging could not be set up"},
    {QNN_LOG_ERROR_INVALID_ARGUMENT, "QNN_LOG_ERROR_INVALID_ARGUMENT: an argument to a log call is invalid"},
    {QNN_LOG_ERROR_INVALID_HANDLE, "QNN_LOG_ERROR_INVALID_HANDLE: the log handle is not a live log handle"},

    // QnnProfile.
    {QNN_PROFILE_ERROR_INVALID_HANDLE, "QNN_PROFILE_ERROR_INVALID_HANDLE: the profile handle is not a live profile"},
    {QNN_PROFILE_ERROR_HANDLE_IN_USE, "QNN_PROFILE_ERROR_HANDLE_IN_USE: the profile handle is still attached to a context or graph"},
    {QNN_PROFILE_ERROR_INCOMPATIBLE_EVENT, "QNN_PROFILE_ERROR_INCOMPATIBLE_EVENT: the event is not of the kind this call reads"},

    // QnnHtpPerfInfrastructure.
    {QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_HANDLE_PTR, "QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_HANDLE_PTR: the power configuration id is not valid"},
    {QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT, "QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT: a performance setting is invalid"},
    {QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED_CONFIG, "QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED_CONFIG: the performance option is not supported"},
    {QNN_HTP_PERF_INFRASTRUCTURE_ERROR_TRANSPORT, "QNN_HTP_PERF_INFRASTRUCTURE_ERROR_TRANSPORT: the performance setting could not be sent to the DSP"},
    {QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED, "QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED: the performance call is not supported"},
    {QNN_HTP_PERF_INFRASTRUCTURE_ERROR_MEM_ALLOC, "QNN_HTP_PERF_INFRASTRUCTURE_ERROR_MEM_ALLOC: memory allocation failed in a performance call"},
    {QNN_HTP_PERF_INFRASTRUCTURE_ERROR_FAILED, "QNN_HTP_PERF_INFRASTRUCTURE_ERROR_FAILED: the performance call failed"},

    // QnnDevice.
    {QNN_DEVICE_ERROR_INVALID_HANDLE, "QNN_DEVICE_ERROR_INVALID_HANDLE: the device handle is not a live device"},
    {QNN_DEVICE_ERROR_INVALID_CONFIG, "QNN_DEVICE_ERROR_INVALID_CONFIG: a device configuration option is invalid"},
    {QNN_DEVICE_ERROR_HARDWARE_UNAVAILABLE, "QNN_DEVICE_ERROR_HARDWARE_UNAVAILABLE: the accelerator is not available"},
    {QNN_DEVICE_ERROR_ASSOCIATED_TO_CONTEXT, "QNN_DEVICE_ERROR_ASSOCIATED_TO_CONTEXT: the device is still used by a context"},

    // QnnGlobalConfig.
    {QNN_GLOBAL_CONFIG_ERROR_INVALID_CONFIG, "QNN_GLOBAL_CONFIG_ERROR_INVALID_CONFIG: a global configuration option is invalid"},

    // System library (QnnSystemContext, QnnSystemDlc, QnnSystemProfile share these).
    {QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE, "QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE: the System API handle is not valid"},
    {QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT, "QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT: an argument to a System API call is invalid"},
    {QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED, "QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED: the System API call failed"},
    {QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY, "QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY: the binary is damaged or not a context binary"},
    {QNN_SYSTEM_PROFILE_ERROR_MEM_ALLOC, "QNN_SYSTEM_PROFILE_ERROR_MEM_ALLOC: memory allocation failed in the System profile API"},
};

// Two lines for one value would make the answer depend on table order.
constexpr bool codes_are_distinct() {
  for (size_t i = 0; i < std::size(kNames); ++i)
    for (size_t j = i + 1; j < std::size(kNames); ++j)
      if (kNames[i].code == kNames[j].code) return false;
  return true;
}
static_assert(codes_are_distinct(), "an error code has two messages");

const char* find_message(Qnn_ErrorHandle_t handle) {
  const Qnn_ErrorHandle_t code = QNN_GET_ERROR_CODE(handle);
  for (const auto& n : kNames)
    if (n.code == code) return n.text;
  return nullptr;
}

// The verbose messages handed out and not yet freed. errorFreeVerboseMessage
// frees only what is here: a client that frees twice, or frees the static
// text of errorGetMessage, gets an error code instead of a heap abort.
// Never destroyed: a client may free its last message from a static
// destructor that runs after ours would have.
// malloc'd, not new[]: older client code calls free() on the text itself.
struct FreeText {
  void operator()(char* p) const { std::free(p); }
};
using Text = std::unique_ptr<char, FreeText>;

struct VerboseMessages {
  std::mutex mu;
  std::unordered_map<const char*, Text> live;
};

VerboseMessages& verbose_messages() {
  static auto* v = new VerboseMessages;
  return *v;
}

// What both getters check first: somewhere to put the text, and a code some
// QNN header defines (*text, its message). One line naming `api` otherwise.
Qnn_ErrorHandle_t look_up(const char* api, Qnn_ErrorHandle_t code, const char** out, const char** text) {
  if (out == nullptr) {
    QNN_LOG_ERROR("%s: errorMessage (where to put the text) is NULL", api);
    return QNN_ERROR_INVALID_ARGUMENT;
  }
  *text = find_message(code);
  if (*text == nullptr) {
    QNN_LOG_ERROR("%s: 0x%" PRIx64 " (code %" PRIu64 ") is not an error code any QNN header defines", api,
                  static_cast<uint64_t>(code), static_cast<uint64_t>(QNN_GET_ERROR_CODE(code)));
    return QNN_ERROR_INVALID_ERROR_HANDLE;
  }
  return QNN_SUCCESS;
}

}  // namespace

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnError_getMessage(Qnn_ErrorHandle_t errorHandle, const char** errorMessage) try {
  const char* text = nullptr;
  if (Qnn_ErrorHandle_t e = look_up("errorGetMessage", errorHandle, errorMessage, &text); e != QNN_SUCCESS) return e;
  *errorMessage = text;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("errorGetMessage");
}

QNN_API Qnn_ErrorHandle_t QnnError_getVerboseMessage(Qnn_ErrorHandle_t errorHandle, const char** errorMessage) try {
  const char* base = nullptr;
  if (Qnn_ErrorHandle_t e = look_up("errorGetVerboseMessage", errorHandle, errorMessage, &base); e != QNN_SUCCESS) {
    return e;
  }
  // The verbose text is the name plus the calling thread's last error line,
  // which names the rule and the value. Owned by the caller until
  // errorFreeVerboseMessage.
  const char* detail = openhtp::qnn::last_error_message();
  const size_t n = std::strlen(base) + std::strlen(detail) + 4;
  Text s(static_cast<char*>(std::malloc(n)));
  if (!s) throw std::bad_alloc();  // -> MEM_ALLOC and one line, below
  std::snprintf(s.get(), n, "%s%s%s", base, detail[0] ? ": " : "", detail);
  const char* out = s.get();
  {
    VerboseMessages& v = verbose_messages();
    std::lock_guard<std::mutex> lock(v.mu);
    auto [it, inserted] = v.live.try_emplace(out);  // on bad_alloc the text dies with `s`
    // Taken already: a client free()d an earlier text itself and malloc gave
    // its address back to us. That old entry owns nothing any more.
    if (!inserted) static_cast<void>(it->second.release());
    it->second = std::move(s);
  }
  *errorMessage = out;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("errorGetVerboseMessage");
}

QNN_API Qnn_ErrorHandle_t QnnError_freeVerboseMessage(const char* errorMessage) try {
  if (errorMessage == nullptr) {
    QNN_LOG_ERROR("errorFreeVerboseMessage: errorMessage is NULL");
    return QNN_ERROR_INVALID_ARGUMENT;
  }
  Text doomed;  // freed after the lock is dropped
  {
    VerboseMessages& v = verbose_messages();
    std::lock_guard<std::mutex> lock(v.mu);
    auto it = v.live.find(errorMessage);
    if (it != v.live.end()) {
      doomed = std::move(it->second);
      v.live.erase(it);
    }
  }
  if (!doomed) {
    QNN_LOG_ERROR("errorFreeVerboseMessage: %p is not an outstanding message of errorGetVerboseMessage "
                  "(freed already, or never handed out by it)",
                  static_cast<const void*>(errorMessage));
    return QNN_ERROR_INVALID_ARGUMENT;
  }
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("errorFreeVerboseMessage");
}

}  // extern "C"
