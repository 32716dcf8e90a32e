/*
 * openhtp - QNN-compatible public API.
 * System/QnnSystemInterface.h: the function table libQnnSystem.so hands out
 * through QnnSystemInterface_getProviders.
 */
#ifndef QNN_SYSTEM_INTERFACE_H
#define QNN_SYSTEM_INTERFACE_H

#include "System/QnnSystemCommon.h"

#include "System/QnnSystemContext.h"
#include "System/QnnSystemDlc.h"
#include "System/QnnSystemLog.h"
#include "System/QnnSystemProfile.h"
#include "System/QnnSystemTensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks QnnSystemInterface_getProviders; exported by default. */
#ifndef QNN_SYSTEM_INTERFACE
#define QNN_SYSTEM_INTERFACE QNN_OPENHTP_EXPORT
#endif

/* With system API 1.7: QnnSystemInterface_ImplementationV1_7_t / v1_7. */
#define QNN_SYSTEM_INTERFACE_VER_EVAL(major, minor) QNN_PASTE_THREE(major, _, minor)
#define QNN_SYSTEM_INTERFACE_NAME_EVAL(prefix, body, suffix) QNN_PASTE_THREE(prefix, body, suffix)
#define QNN_SYSTEM_INTERFACE_VER_TYPE_EVAL(ver_major, ver_minor)     \
  QNN_SYSTEM_INTERFACE_NAME_EVAL(QnnSystemInterface_ImplementationV, \
                                 QNN_SYSTEM_INTERFACE_VER_EVAL(ver_major, ver_minor), _t)
#define QNN_SYSTEM_INTERFACE_VER_NAME_EVAL(ver_major, ver_minor) \
  QNN_SYSTEM_INTERFACE_NAME_EVAL(v, QNN_SYSTEM_INTERFACE_VER_EVAL(ver_major, ver_minor), )
#define QNN_SYSTEM_INTERFACE_VER_TYPE \
  QNN_SYSTEM_INTERFACE_VER_TYPE_EVAL(QNN_SYSTEM_API_VERSION_MAJOR, QNN_SYSTEM_API_VERSION_MINOR)
#define QNN_SYSTEM_INTERFACE_VER_NAME \
  QNN_SYSTEM_INTERFACE_VER_NAME_EVAL(QNN_SYSTEM_API_VERSION_MAJOR, QNN_SYSTEM_API_VERSION_MINOR)

typedef enum {
  QNN_SYSTEM_INTERFACE_MIN_ERROR = QNN_MIN_ERROR_SYSTEM,
  QNN_SYSTEM_INTERFACE_NO_ERROR = QNN_SUCCESS,
  QNN_SYSTEM_INTERFACE_ERROR_NOT_SUPPORTED = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_SYSTEM_INTERFACE_ERROR_INVALID_PARAMETER = QNN_COMMON_ERROR_INVALID_ARGUMENT,
  QNN_SYSTEM_INTERFACE_MAX_ERROR = QNN_MAX_ERROR_SYSTEM
} QnnSystemInterface_Error_t;

/* Function pointer types (the mixed capitalisation follows QNN). */
typedef Qnn_ErrorHandle_t (*QnnSystemContext_CreateFn_t)(QnnSystemContext_Handle_t* sysCtxHandle);
typedef Qnn_ErrorHandle_t (*QnnSystemContext_GetBinaryInfoFn_t)(
    QnnSystemContext_Handle_t sysCtxHandle, void* binaryBuffer, uint64_t binaryBufferSize,
    const QnnSystemContext_BinaryInfo_t** binaryInfo, Qnn_ContextBinarySize_t* binaryInfoSize);
typedef Qnn_ErrorHandle_t (*QnnSystemContext_GetMetaDataFn_t)(
    QnnSystemContext_Handle_t sysCtxHandle, const void* binaryBuffer, uint64_t binaryBufferSize,
    const QnnSystemContext_BinaryInfo_t** binaryInfo);
typedef Qnn_ErrorHandle_t (*QnnSystemContext_FreeFn_t)(QnnSystemContext_Handle_t sysCtxHandle);

typedef Qnn_ErrorHandle_t (*QnnSystemTensor_getMemoryFootprintFn_t)(Qnn_Tensor_t tensor,
                                                                    uint64_t* footprint);

typedef Qnn_ErrorHandle_t (*QnnSystemLog_createFn_t)(QnnLog_Callback_t callback,
                                                     QnnLog_Level_t maxLogLevel,
                                                     Qnn_LogHandle_t* logger);
typedef Qnn_ErrorHandle_t (*QnnSystemLog_setLogLevelFn_t)(Qnn_LogHandle_t logger,
                                                          QnnLog_Level_t maxLogLevel);
typedef Qnn_ErrorHandle_t (*QnnSystemLog_freeFn_t)(Qnn_LogHandle_t logger);

typedef Qnn_ErrorHandle_t (*QnnSystemDlc_createFromFileFn_t)(Qnn_LogHandle_t logger,
                                                             const char* dlcPath,
                                                             QnnSystemDlc_Handle_t* dlcHandle);
typedef Qnn_ErrorHandle_t (*QnnSystemDlc_createFromBinaryFn_t)(
    Qnn_LogHandle_t logger, const uint8_t* buffer, const Qnn_ContextBinarySize_t bufferSize,
    QnnSystemDlc_Handle_t* dlcHandle);
typedef Qnn_ErrorHandle_t (*QnnSystemDlc_composeGraphsFn_t)(
    QnnSystemDlc_Handle_t dlcHandle, const QnnSystemDlc_GraphConfigInfo_t** graphConfigs,
    const uint32_t numGraphConfigs, Qnn_BackendHandle_t backend, Qnn_ContextHandle_t context,
    QnnInterface_t qnnInterface, QnnSystemContext_GraphInfoVersion_t graphVersion,
    QnnSystemContext_GraphInfo_t** graphs, uint32_t* numGraphs);
typedef Qnn_ErrorHandle_t (*QnnSystemDlc_getOpMappingsFn_t)(QnnSystemDlc_Handle_t dlcHandle,
                                                            const Qnn_OpMapping_t** opMappings,
                                                            uint32_t* numOpMappings);
typedef Qnn_ErrorHandle_t (*QnnSystemDlc_freeFn_t)(QnnSystemDlc_Handle_t dlcHandle);

typedef Qnn_ErrorHandle_t (*QnnSystemProfile_createSerializationTargetFn_t)(
    QnnSystemProfile_SerializationTarget_t serializationTargetInfo,
    QnnSystemProfile_SerializationTargetConfig_t* configs, uint32_t numConfigs,
    QnnSystemProfile_SerializationTargetHandle_t* serializationTarget);
typedef Qnn_ErrorHandle_t (*QnnSystemProfile_serializeEventDataFn_t)(
    QnnSystemProfile_SerializationTargetHandle_t serializationTarget,
    const QnnSystemProfile_ProfileData_t** eventData, uint32_t numEvents);
typedef Qnn_ErrorHandle_t (*QnnSystemProfile_freeSerializationTargetFn_t)(
    QnnSystemProfile_SerializationTargetHandle_t serializationTarget);

/* The 16-entry table of system API 1.7 (128 bytes). */
typedef struct {
  QnnSystemContext_CreateFn_t systemContextCreate;
  QnnSystemContext_GetBinaryInfoFn_t systemContextGetBinaryInfo;
  QnnSystemContext_GetMetaDataFn_t systemContextGetMetaData;
  QnnSystemContext_FreeFn_t systemContextFree;
  QnnSystemTensor_getMemoryFootprintFn_t systemTensorGetMemoryFootprint;
  QnnSystemLog_createFn_t systemLogCreate;
  QnnSystemLog_setLogLevelFn_t systemLogSetLogLevel;
  QnnSystemLog_freeFn_t systemLogFree;
  QnnSystemDlc_createFromFileFn_t systemDlcCreateFromFile;
  QnnSystemDlc_createFromBinaryFn_t systemDlcCreateFromBinary;
  QnnSystemDlc_composeGraphsFn_t systemDlcComposeGraphs;
  QnnSystemDlc_getOpMappingsFn_t systemDlcGetOpMappings;
  QnnSystemDlc_freeFn_t systemDlcFree;
  QnnSystemProfile_createSerializationTargetFn_t systemProfileCreateSerializationTarget;
  QnnSystemProfile_serializeEventDataFn_t systemProfileSerializeEventData;
  QnnSystemProfile_freeSerializationTargetFn_t systemProfileFreeSerializationTarget;
} QNN_SYSTEM_INTERFACE_VER_TYPE;

#define QNN_SYSTEM_INTERFACE_VER_TYPE_INIT                                                 \
  {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
   NULL}

/* 160 bytes on LP64. Unlike QnnInterface_t it carries a single version. */
typedef struct {
  uint32_t backendId;
  const char* providerName;
  Qnn_Version_t systemApiVersion;
  union UNNAMED {
    QNN_SYSTEM_INTERFACE_VER_TYPE QNN_SYSTEM_INTERFACE_VER_NAME;
  };
} QnnSystemInterface_t;

#define QNN_SYSTEM_INTERFACE_INIT \
  {QNN_BACKEND_ID_NULL, NULL, QNN_VERSION_INIT, {QNN_SYSTEM_INTERFACE_VER_TYPE_INIT}}

QNN_SYSTEM_INTERFACE
Qnn_ErrorHandle_t QnnSystemInterface_getProviders(const QnnSystemInterface_t*** providerList,
                                                  uint32_t* numProviders);

#ifdef __cplusplus
}
#endif

#endif /* QNN_SYSTEM_INTERFACE_H */
