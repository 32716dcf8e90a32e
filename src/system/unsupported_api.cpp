// System entry points openhtp does not implement: DLC reading/composing (no
// DLC format support anywhere in openhtp) and profile serialization. Each is a
// real, exported function (clients check table entries for NULL, and some
// call the plain C names) answering UNSUPPORTED_FEATURE with a log line.
#include "System/QnnSystemDlc.h"
#include "System/QnnSystemProfile.h"
#include "system/api_guard.h"
#include "system/system_log.h"

namespace {
// The entry points below are nothing but this call, so its own guard is what
// keeps them from throwing (the log line itself may fail to allocate).
Qnn_ErrorHandle_t not_supported(const char* fn) noexcept try {
  SYS_LOG_ERROR("%s is not supported by openhtp's libQnnSystem", fn);
  return QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE;
} catch (...) {
  return openhtp::system::api_exception(fn);
}
}  // namespace

#pragma GCC diagnostic ignored "-Wunused-parameter"
extern "C" {

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemDlc_createFromFile(Qnn_LogHandle_t logger, const char* dlcPath,
                                                             QnnSystemDlc_Handle_t* dlcHandle) {
  return not_supported("QnnSystemDlc_createFromFile");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemDlc_createFromBinary(Qnn_LogHandle_t logger, const uint8_t* buffer,
                                                               const Qnn_ContextBinarySize_t bufferSize,
                                                               QnnSystemDlc_Handle_t* dlcHandle) {
  return not_supported("QnnSystemDlc_createFromBinary");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemDlc_composeGraphs(QnnSystemDlc_Handle_t dlcHandle,
                                                            const QnnSystemDlc_GraphConfigInfo_t** graphConfigs,
                                                            const uint32_t numGraphConfigs,
                                                            Qnn_BackendHandle_t backend, Qnn_ContextHandle_t context,
                                                            QnnInterface_t qnnInterface,
                                                            QnnSystemContext_GraphInfoVersion_t graphVersion,
                                                            QnnSystemContext_GraphInfo_t** graphs,
                                                            uint32_t* numGraphs) {
  return not_supported("QnnSystemDlc_composeGraphs");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemDlc_getOpMappings(QnnSystemDlc_Handle_t dlcHandle,
                                                            const Qnn_OpMapping_t** opMappings,
                                                            uint32_t* numOpMappings) {
  return not_supported("QnnSystemDlc_getOpMappings");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemDlc_free(QnnSystemDlc_Handle_t dlcHandle) {
  return not_supported("QnnSystemDlc_free");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemProfile_createSerializationTarget(
    QnnSystemProfile_SerializationTarget_t serializationTargetInfo,
    QnnSystemProfile_SerializationTargetConfig_t* configs, uint32_t numConfigs,
    QnnSystemProfile_SerializationTargetHandle_t* serializationTarget) {
  return not_supported("QnnSystemProfile_createSerializationTarget");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemProfile_serializeEventData(
    QnnSystemProfile_SerializationTargetHandle_t serializationTarget, const QnnSystemProfile_ProfileData_t** eventData,
    uint32_t numEvents) {
  return not_supported("QnnSystemProfile_serializeEventData");
}

QNN_SYSTEM_API Qnn_ErrorHandle_t QnnSystemProfile_freeSerializationTarget(
    QnnSystemProfile_SerializationTargetHandle_t serializationTarget) {
  return not_supported("QnnSystemProfile_freeSerializationTarget");
}

}  // extern "C"
