// Entry points the HTP backend does not implement yet. Each is a real,
// exported function (clients check table entries for NULL, and some call the
// plain C names), returning QNN_COMMON_ERROR_NOT_SUPPORTED with a log line.
// Generated once from the function-table typedefs in QnnInterface.h; edit by hand
// as entries gain real implementations (move them to their *_api.cpp file).
#include "QnnInterface.h"
#include "qnn/api_guard.h"
#include "qnn/logger.h"

namespace {
// The entry points below are nothing but this call, so its own guard is what
// keeps them from throwing (the log line itself may fail to allocate).
Qnn_ErrorHandle_t not_supported(const char* fn) noexcept try {
  QNN_LOG_ERROR("%s is not supported by the openhtp HTP backend yet", fn);
  return QNN_COMMON_ERROR_NOT_SUPPORTED;
} catch (...) {
  return openhtp::qnn::api_exception(fn);
}
}  // namespace

#pragma GCC diagnostic ignored "-Wunused-parameter"
extern "C" {

QNN_API Qnn_ErrorHandle_t QnnGraph_createSubgraph(Qnn_GraphHandle_t graphHandle, const char* graphName, Qnn_GraphHandle_t* subgraphHandle) {
  return not_supported("QnnGraph_createSubgraph");
}

QNN_API Qnn_ErrorHandle_t QnnProfile_getExtendedEventData(QnnProfile_EventId_t eventId, QnnProfile_ExtendedEventData_t* eventData) {
  return not_supported("QnnProfile_getExtendedEventData");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_prepareExecutionEnvironment(Qnn_GraphHandle_t graphHandle, QnnGraph_ExecuteEnvironment_t** envs, uint32_t envSize) {
  return not_supported("QnnGraph_prepareExecutionEnvironment");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_releaseExecutionEnvironment(Qnn_GraphHandle_t graphHandle, const QnnGraph_ExecuteEnvironment_t** envs, uint32_t envSize) {
  return not_supported("QnnGraph_releaseExecutionEnvironment");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_getProperty(Qnn_GraphHandle_t graphHandle, QnnGraph_Property_t** properties) {
  return not_supported("QnnGraph_getProperty");
}

QNN_API Qnn_ErrorHandle_t QnnTensor_updateGraphTensors(Qnn_GraphHandle_t graph, const Qnn_Tensor_t** tensor, uint64_t numTensors) {
  return not_supported("QnnTensor_updateGraphTensors");
}

QNN_API Qnn_ErrorHandle_t QnnTensor_updateContextTensors(Qnn_ContextHandle_t context, const Qnn_Tensor_t** tensor, uint64_t numTensors) {
  return not_supported("QnnTensor_updateContextTensors");
}

QNN_API Qnn_ErrorHandle_t QnnContext_getBinarySectionSize(Qnn_ContextHandle_t context, Qnn_GraphHandle_t graph, QnnContext_SectionType_t section, Qnn_ContextBinarySize_t* binaryBufferSize) {
  return not_supported("QnnContext_getBinarySectionSize");
}

QNN_API Qnn_ErrorHandle_t QnnContext_getBinarySection(Qnn_ContextHandle_t context, Qnn_GraphHandle_t graph, QnnContext_SectionType_t section, const QnnContext_Buffer_t* binaryBuffer, Qnn_ContextBinarySize_t* writtenBufferSize, Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal) {
  return not_supported("QnnContext_getBinarySection");
}

QNN_API Qnn_ErrorHandle_t QnnContext_applyBinarySection(Qnn_ContextHandle_t context, Qnn_GraphHandle_t graph, QnnContext_SectionType_t section, const QnnContext_Buffer_t* binaryBuffer, Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal) {
  return not_supported("QnnContext_applyBinarySection");
}

QNN_API Qnn_ErrorHandle_t QnnBackend_getProperty(Qnn_BackendHandle_t backendHandle, QnnBackend_Property_t** properties) {
  return not_supported("QnnBackend_getProperty");
}

QNN_API Qnn_ErrorHandle_t QnnContext_getIncrementalBinary(Qnn_ContextHandle_t context, const void** binaryBuffer, Qnn_ContextBinarySize_t* startOffset, Qnn_ContextBinarySize_t* writtenBufferSize) {
  return not_supported("QnnContext_getIncrementalBinary");
}

QNN_API Qnn_ErrorHandle_t QnnContext_releaseIncrementalBinary(Qnn_ContextHandle_t context, const void* binaryBuffer, Qnn_ContextBinarySize_t startOffset) {
  return not_supported("QnnContext_releaseIncrementalBinary");
}

QNN_API Qnn_ErrorHandle_t QnnGlobalConfig_Set(const QnnGlobalConfig_t** config) {
  return not_supported("QnnGlobalConfig_Set");
}

QNN_API Qnn_ErrorHandle_t QnnContext_createFromBinaryWithCallback(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device, const QnnContext_Config_t** config, const Qnn_ContextBinaryCallback_t* callback, const void* binaryBuffer, Qnn_ContextBinarySize_t binaryBufferSize, Qnn_ContextHandle_t* context, Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal) {
  return not_supported("QnnContext_createFromBinaryWithCallback");
}

QNN_API Qnn_ErrorHandle_t QnnContext_getBinarySectionUpdate(const QnnContext_Buffer_t* binaryBuffer, const QnnContext_Buffer_t* auxiliaryBuffer, const Qnn_Tensor_t** tensors, uint64_t numTensors, uint8_t keepUpdatable, Qnn_LogHandle_t logger, Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal, QnnContext_Buffer_t* binarySectionUpdate) {
  return not_supported("QnnContext_getBinarySectionUpdate");
}

QNN_API Qnn_ErrorHandle_t QnnContext_freeBinarySectionUpdate(QnnContext_Buffer_t binarySectionUpdate, Qnn_LogHandle_t logger) {
  return not_supported("QnnContext_freeBinarySectionUpdate");
}

QNN_API Qnn_ErrorHandle_t QnnContext_addToDlc(Qnn_ContextHandle_t context, QnnSystemDlc_Handle_t dlcHandle) {
  return not_supported("QnnContext_addToDlc");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_validate(Qnn_GraphHandle_t graphHandle, const QnnGraph_ValidateConfig_t** config, QnnGraph_ValidationResult_t** validationResult) {
  return not_supported("QnnGraph_validate");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_freeValidationResult(QnnGraph_ValidationResult_t* validationResult) {
  return not_supported("QnnGraph_freeValidationResult");
}

QNN_API Qnn_ErrorHandle_t QnnBackend_registerOpPackageFromBinary(Qnn_BackendHandle_t backend, const void* opPackageBuffer, uint64_t opPackageBufferSize, const char* interfaceProvider, const char* target) {
  return not_supported("QnnBackend_registerOpPackageFromBinary");
}

}  // extern "C"
