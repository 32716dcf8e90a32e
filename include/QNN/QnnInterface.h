/*
 * openhtp - QNN-compatible public API.
 * QnnInterface.h: the function table a backend library hands out through
 * QnnInterface_getProviders. Clients that dlopen a backend only need this
 * header and the table.
 */
#ifndef QNN_INTERFACE_H
#define QNN_INTERFACE_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#include "QnnBackend.h"
#include "QnnContext.h"
#include "QnnDevice.h"
#include "QnnError.h"
#include "QnnGlobalConfig.h"
#include "QnnGraph.h"
#include "QnnLog.h"
#include "QnnMem.h"
#include "QnnOpPackage.h"
#include "QnnProfile.h"
#include "QnnProperty.h"
#include "QnnSignal.h"
#include "QnnTensor.h"

#include "QnnOpDef.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks QnnInterface_getProviders; exported by default. */
#ifndef QNN_INTERFACE
#define QNN_INTERFACE QNN_OPENHTP_EXPORT
#endif

/* Name construction: with API 2.39 the table type is
 * QnnInterface_ImplementationV2_39_t and the union member is v2_39. */
#define QNN_INTERFACE_VER_EVAL(major, minor) QNN_PASTE_THREE(major, _, minor)
#define QNN_INTERFACE_NAME_EVAL(prefix, body, suffix) QNN_PASTE_THREE(prefix, body, suffix)
#define QNN_INTERFACE_VER_TYPE_EVAL(ver_major, ver_minor) \
  QNN_INTERFACE_NAME_EVAL(QnnInterface_ImplementationV, QNN_INTERFACE_VER_EVAL(ver_major, ver_minor), _t)
#define QNN_INTERFACE_VER_NAME_EVAL(ver_major, ver_minor) \
  QNN_INTERFACE_NAME_EVAL(v, QNN_INTERFACE_VER_EVAL(ver_major, ver_minor), )
#define QNN_INTERFACE_VER_TYPE \
  QNN_INTERFACE_VER_TYPE_EVAL(QNN_API_VERSION_MAJOR, QNN_API_VERSION_MINOR)
#define QNN_INTERFACE_VER_NAME \
  QNN_INTERFACE_VER_NAME_EVAL(QNN_API_VERSION_MAJOR, QNN_API_VERSION_MINOR)

typedef enum {
  QNN_INTERFACE_MIN_ERROR = QNN_MIN_ERROR_INTERFACE,
  QNN_INTERFACE_NO_ERROR = QNN_SUCCESS,
  QNN_INTERFACE_ERROR_NOT_SUPPORTED = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_INTERFACE_ERROR_INVALID_PARAMETER = QNN_COMMON_ERROR_INVALID_ARGUMENT,
  QNN_INTERFACE_MAX_ERROR = QNN_MAX_ERROR_INTERFACE
} QnnInterface_Error_t;

/* ---- One pointer type per API function; see the plain C declarations in
 * the component headers for the meaning of each argument. ---- */

/* Property */
typedef Qnn_ErrorHandle_t (*QnnProperty_HasCapabilityFn_t)(QnnProperty_Key_t key);

/* Global config */
typedef Qnn_ErrorHandle_t (*QnnGlobalConfig_SetFn_t)(const QnnGlobalConfig_t** config);

/* Backend */
typedef Qnn_ErrorHandle_t (*QnnBackend_CreateFn_t)(Qnn_LogHandle_t logger,
                                                   const QnnBackend_Config_t** config,
                                                   Qnn_BackendHandle_t* backend);
typedef Qnn_ErrorHandle_t (*QnnBackend_SetConfigFn_t)(Qnn_BackendHandle_t backend,
                                                      const QnnBackend_Config_t** config);
typedef Qnn_ErrorHandle_t (*QnnBackend_GetApiVersionFn_t)(Qnn_ApiVersion_t* pVersion);
typedef Qnn_ErrorHandle_t (*QnnBackend_GetBuildIdFn_t)(const char** id);
typedef Qnn_ErrorHandle_t (*QnnBackend_RegisterOpPackageFn_t)(Qnn_BackendHandle_t backend,
                                                              const char* packagePath,
                                                              const char* interfaceProvider,
                                                              const char* target);
typedef Qnn_ErrorHandle_t (*QnnBackend_RegisterOpPackageFromBinaryFn_t)(
    Qnn_BackendHandle_t backend, const void* opPackageBuffer, uint64_t opPackageBufferSize,
    const char* interfaceProvider, const char* target);
typedef Qnn_ErrorHandle_t (*QnnBackend_GetSupportedOperationsFn_t)(
    Qnn_BackendHandle_t backend, uint32_t* numOperations,
    const QnnBackend_OperationName_t** operations);
typedef Qnn_ErrorHandle_t (*QnnBackend_ValidateOpConfigFn_t)(Qnn_BackendHandle_t backend,
                                                             Qnn_OpConfig_t opConfig);
typedef Qnn_ErrorHandle_t (*QnnBackend_FreeFn_t)(Qnn_BackendHandle_t backend);
typedef Qnn_ErrorHandle_t (*QnnBackend_GetPropertyFn_t)(Qnn_BackendHandle_t backendHandle,
                                                        QnnBackend_Property_t** properties);

/* Context */
typedef Qnn_ErrorHandle_t (*QnnContext_CreateFn_t)(Qnn_BackendHandle_t backend,
                                                   Qnn_DeviceHandle_t device,
                                                   const QnnContext_Config_t** config,
                                                   Qnn_ContextHandle_t* context);
typedef Qnn_ErrorHandle_t (*QnnContext_SetConfigFn_t)(Qnn_ContextHandle_t context,
                                                      const QnnContext_Config_t** config);
typedef Qnn_ErrorHandle_t (*QnnContext_GetBinarySizeFn_t)(Qnn_ContextHandle_t context,
                                                          Qnn_ContextBinarySize_t* binaryBufferSize);
typedef Qnn_ErrorHandle_t (*QnnContext_GetBinaryFn_t)(Qnn_ContextHandle_t context,
                                                      void* binaryBuffer,
                                                      Qnn_ContextBinarySize_t binaryBufferSize,
                                                      Qnn_ContextBinarySize_t* writtenBufferSize);
typedef Qnn_ErrorHandle_t (*QnnContext_AddToDlcFn_t)(Qnn_ContextHandle_t context,
                                                     QnnSystemDlc_Handle_t dlcHandle);
typedef Qnn_ErrorHandle_t (*QnnContext_CreateFromBinaryFn_t)(
    Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device, const QnnContext_Config_t** config,
    const void* binaryBuffer, Qnn_ContextBinarySize_t binaryBufferSize,
    Qnn_ContextHandle_t* context, Qnn_ProfileHandle_t profile);
typedef Qnn_ErrorHandle_t (*QnnContext_FreeFn_t)(Qnn_ContextHandle_t context,
                                                 Qnn_ProfileHandle_t profile);
typedef Qnn_ErrorHandle_t (*QnnContext_ValidateBinaryFn_t)(
    Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device, const QnnContext_Config_t** config,
    const void* binaryBuffer, Qnn_ContextBinarySize_t binaryBufferSize);
typedef Qnn_ErrorHandle_t (*QnnContext_CreateFromBinaryWithSignalFn_t)(
    Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device, const QnnContext_Config_t** config,
    const void* binaryBuffer, Qnn_ContextBinarySize_t binaryBufferSize,
    Qnn_ContextHandle_t* context, Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal);
typedef Qnn_ErrorHandle_t (*QnnContext_CreateFromBinaryListAsyncFn_t)(
    Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
    const QnnContext_Params_t** contextParams, const QnnContext_Config_t** listConfig,
    Qnn_SignalHandle_t signal);
typedef Qnn_ErrorHandle_t (*QnnContext_FinalizeFn_t)(Qnn_ContextHandle_t context,
                                                     Qnn_ProfileHandle_t profile);
typedef Qnn_ErrorHandle_t (*QnnContext_CreateFromBinaryWithCallbackFn_t)(
    Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device, const QnnContext_Config_t** config,
    const Qnn_ContextBinaryCallback_t* callback, const void* binaryBuffer,
    Qnn_ContextBinarySize_t binaryBufferSize, Qnn_ContextHandle_t* context,
    Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal);
typedef Qnn_ErrorHandle_t (*QnnContext_GetBinarySectionSizeFn_t)(
    Qnn_ContextHandle_t context, Qnn_GraphHandle_t graph, QnnContext_SectionType_t section,
    Qnn_ContextBinarySize_t* binaryBufferSize);
typedef Qnn_ErrorHandle_t (*QnnContext_GetBinarySectionFn_t)(
    Qnn_ContextHandle_t context, Qnn_GraphHandle_t graph, QnnContext_SectionType_t section,
    const QnnContext_Buffer_t* binaryBuffer, Qnn_ContextBinarySize_t* writtenBufferSize,
    Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal);
typedef Qnn_ErrorHandle_t (*QnnContext_ApplyBinarySectionFn_t)(
    Qnn_ContextHandle_t context, Qnn_GraphHandle_t graph, QnnContext_SectionType_t section,
    const QnnContext_Buffer_t* binaryBuffer, Qnn_ProfileHandle_t profile,
    Qnn_SignalHandle_t signal);
typedef Qnn_ErrorHandle_t (*QnnContext_GetBinarySectionUpdateFn_t)(
    const QnnContext_Buffer_t* binaryBuffer, const QnnContext_Buffer_t* auxiliaryBuffer,
    const Qnn_Tensor_t** tensors, uint64_t numTensors, uint8_t keepUpdatable,
    Qnn_LogHandle_t logger, Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal,
    QnnContext_Buffer_t* binarySectionUpdate);
typedef Qnn_ErrorHandle_t (*QnnContext_FreeBinarySectionUpdateFn_t)(
    QnnContext_Buffer_t binarySectionUpdate, Qnn_LogHandle_t logger);
typedef Qnn_ErrorHandle_t (*QnnContext_GetPropertyFn_t)(Qnn_ContextHandle_t contextHandle,
                                                        QnnContext_Property_t** properties);
typedef Qnn_ErrorHandle_t (*QnnContext_GetIncrementalBinaryFn_t)(
    Qnn_ContextHandle_t context, const void** binaryBuffer, Qnn_ContextBinarySize_t* startOffset,
    Qnn_ContextBinarySize_t* writtenBufferSize);
typedef Qnn_ErrorHandle_t (*QnnContext_ReleaseIncrementalBinaryFn_t)(
    Qnn_ContextHandle_t context, const void* binaryBuffer, Qnn_ContextBinarySize_t startOffset);

/* Graph */
typedef Qnn_ErrorHandle_t (*QnnGraph_CreateFn_t)(Qnn_ContextHandle_t contextHandle,
                                                 const char* graphName,
                                                 const QnnGraph_Config_t** config,
                                                 Qnn_GraphHandle_t* graphHandle);
typedef Qnn_ErrorHandle_t (*QnnGraph_CreateSubgraphFn_t)(Qnn_GraphHandle_t graphHandle,
                                                         const char* graphName,
                                                         Qnn_GraphHandle_t* subgraphHandle);
typedef Qnn_ErrorHandle_t (*QnnGraph_SetConfigFn_t)(Qnn_GraphHandle_t graphHandle,
                                                    const QnnGraph_Config_t** config);
typedef Qnn_ErrorHandle_t (*QnnGraph_GetPropertyFn_t)(Qnn_GraphHandle_t graphHandle,
                                                      QnnGraph_Property_t** properties);
typedef Qnn_ErrorHandle_t (*QnnGraph_AddNodeFn_t)(Qnn_GraphHandle_t graphHandle,
                                                  Qnn_OpConfig_t opConfig);
typedef Qnn_ErrorHandle_t (*QnnGraph_FinalizeFn_t)(Qnn_GraphHandle_t graphHandle,
                                                   Qnn_ProfileHandle_t profileHandle,
                                                   Qnn_SignalHandle_t signalHandle);
typedef Qnn_ErrorHandle_t (*QnnGraph_RetrieveFn_t)(Qnn_ContextHandle_t contextHandle,
                                                   const char* graphName,
                                                   Qnn_GraphHandle_t* graphHandle);
typedef Qnn_ErrorHandle_t (*QnnGraph_PrepareExecutionEnvironmentFn_t)(
    Qnn_GraphHandle_t graphHandle, QnnGraph_ExecuteEnvironment_t** envs, uint32_t envSize);
typedef Qnn_ErrorHandle_t (*QnnGraph_ExecuteFn_t)(Qnn_GraphHandle_t graphHandle,
                                                  const Qnn_Tensor_t* inputs, uint32_t numInputs,
                                                  Qnn_Tensor_t* outputs, uint32_t numOutputs,
                                                  Qnn_ProfileHandle_t profileHandle,
                                                  Qnn_SignalHandle_t signalHandle);
typedef Qnn_ErrorHandle_t (*QnnGraph_ExecuteAsyncFn_t)(
    Qnn_GraphHandle_t graphHandle, const Qnn_Tensor_t* inputs, uint32_t numInputs,
    Qnn_Tensor_t* outputs, uint32_t numOutputs, Qnn_ProfileHandle_t profileHandle,
    Qnn_SignalHandle_t signalHandle, Qnn_NotifyFn_t notifyFn, void* notifyParam);
typedef Qnn_ErrorHandle_t (*QnnGraph_ReleaseExecutionEnvironmentFn_t)(
    Qnn_GraphHandle_t graphHandle, const QnnGraph_ExecuteEnvironment_t** envs, uint32_t envSize);
typedef Qnn_ErrorHandle_t (*QnnGraph_ValidateFn_t)(Qnn_GraphHandle_t graphHandle,
                                                   const QnnGraph_ValidateConfig_t** config,
                                                   QnnGraph_ValidationResult_t** validationResult);
typedef Qnn_ErrorHandle_t (*QnnGraph_FreeValidationResultFn_t)(
    QnnGraph_ValidationResult_t* validationResult);

/* Tensor */
typedef Qnn_ErrorHandle_t (*QnnTensor_CreateContextTensorFn_t)(Qnn_ContextHandle_t context,
                                                               Qnn_Tensor_t* tensor);
typedef Qnn_ErrorHandle_t (*QnnTensor_CreateGraphTensorFn_t)(Qnn_GraphHandle_t graph,
                                                             Qnn_Tensor_t* tensor);
typedef Qnn_ErrorHandle_t (*QnnTensor_UpdateContextTensorsFn_t)(Qnn_ContextHandle_t context,
                                                                const Qnn_Tensor_t** tensor,
                                                                uint64_t numTensors);
typedef Qnn_ErrorHandle_t (*QnnTensor_UpdateGraphTensorsFn_t)(Qnn_GraphHandle_t graph,
                                                              const Qnn_Tensor_t** tensor,
                                                              uint64_t numTensors);

/* Log */
typedef Qnn_ErrorHandle_t (*QnnLog_CreateFn_t)(QnnLog_Callback_t callback,
                                               QnnLog_Level_t maxLogLevel, Qnn_LogHandle_t* logger);
typedef Qnn_ErrorHandle_t (*QnnLog_SetLogLevelFn_t)(Qnn_LogHandle_t logger,
                                                    QnnLog_Level_t maxLogLevel);
typedef Qnn_ErrorHandle_t (*QnnLog_FreeFn_t)(Qnn_LogHandle_t logger);

/* Profile */
typedef Qnn_ErrorHandle_t (*QnnProfile_CreateFn_t)(Qnn_BackendHandle_t backend,
                                                   QnnProfile_Level_t level,
                                                   Qnn_ProfileHandle_t* profile);
typedef Qnn_ErrorHandle_t (*QnnProfile_SetConfigFn_t)(Qnn_ProfileHandle_t profileHandle,
                                                      const QnnProfile_Config_t** config);
typedef Qnn_ErrorHandle_t (*QnnProfile_GetEventsFn_t)(Qnn_ProfileHandle_t profile,
                                                      const QnnProfile_EventId_t** profileEventIds,
                                                      uint32_t* numEvents);
typedef Qnn_ErrorHandle_t (*QnnProfile_GetSubEventsFn_t)(QnnProfile_EventId_t eventId,
                                                         const QnnProfile_EventId_t** subEventIds,
                                                         uint32_t* numSubEvents);
typedef Qnn_ErrorHandle_t (*QnnProfile_GetEventDataFn_t)(QnnProfile_EventId_t eventId,
                                                         QnnProfile_EventData_t* eventData);
typedef Qnn_ErrorHandle_t (*QnnProfile_GetExtendedEventDataFn_t)(
    QnnProfile_EventId_t eventId, QnnProfile_ExtendedEventData_t* eventData);
typedef Qnn_ErrorHandle_t (*QnnProfile_FreeFn_t)(Qnn_ProfileHandle_t profile);

/* Mem */
typedef Qnn_ErrorHandle_t (*QnnMem_RegisterFn_t)(Qnn_ContextHandle_t context,
                                                 const Qnn_MemDescriptor_t* memDescriptors,
                                                 uint32_t numDescriptors,
                                                 Qnn_MemHandle_t* memHandles);
typedef Qnn_ErrorHandle_t (*QnnMem_DeRegisterFn_t)(const Qnn_MemHandle_t* memHandles,
                                                   uint32_t numHandles);

/* Device */
typedef Qnn_ErrorHandle_t (*QnnDevice_GetPlatformInfoFn_t)(
    Qnn_LogHandle_t logger, const QnnDevice_PlatformInfo_t** platformInfo);
typedef Qnn_ErrorHandle_t (*QnnDevice_FreePlatformInfoFn_t)(
    Qnn_LogHandle_t logger, const QnnDevice_PlatformInfo_t* platformInfo);
typedef Qnn_ErrorHandle_t (*QnnDevice_GetInfrastructureFn_t)(
    const QnnDevice_Infrastructure_t* deviceInfra);
typedef Qnn_ErrorHandle_t (*QnnDevice_CreateFn_t)(Qnn_LogHandle_t logger,
                                                  const QnnDevice_Config_t** config,
                                                  Qnn_DeviceHandle_t* device);
typedef Qnn_ErrorHandle_t (*QnnDevice_SetConfigFn_t)(Qnn_DeviceHandle_t device,
                                                     const QnnDevice_Config_t** config);
typedef Qnn_ErrorHandle_t (*QnnDevice_GetInfoFn_t)(Qnn_DeviceHandle_t device,
                                                   const QnnDevice_PlatformInfo_t** platformInfo);
typedef Qnn_ErrorHandle_t (*QnnDevice_FreeFn_t)(Qnn_DeviceHandle_t device);

/* Signal */
typedef Qnn_ErrorHandle_t (*QnnSignal_CreateFn_t)(Qnn_BackendHandle_t backend,
                                                  const QnnSignal_Config_t** config,
                                                  Qnn_SignalHandle_t* signal);
typedef Qnn_ErrorHandle_t (*QnnSignal_SetConfigFn_t)(Qnn_SignalHandle_t signal,
                                                     const QnnSignal_Config_t** config);
typedef Qnn_ErrorHandle_t (*QnnSignal_TriggerFn_t)(Qnn_SignalHandle_t signal);
typedef Qnn_ErrorHandle_t (*QnnSignal_FreeFn_t)(Qnn_SignalHandle_t signal);

/* Error */
typedef Qnn_ErrorHandle_t (*QnnError_GetMessageFn_t)(Qnn_ErrorHandle_t errorHandle,
                                                     const char** errorMessage);
typedef Qnn_ErrorHandle_t (*QnnError_GetVerboseMessageFn_t)(Qnn_ErrorHandle_t errorHandle,
                                                            const char** errorMessage);
typedef Qnn_ErrorHandle_t (*QnnError_FreeVerboseMessageFn_t)(const char* errorMessage);

/* The table (75 pointers, 600 bytes). Entries are only ever appended; a
 * NULL entry means "not supported". Comments give index and byte offset. */
typedef struct {
  /*  0 @  0 */ QnnProperty_HasCapabilityFn_t               propertyHasCapability;
  /*  1 @  8 */ QnnBackend_CreateFn_t                       backendCreate;
  /*  2 @ 16 */ QnnBackend_SetConfigFn_t                    backendSetConfig;
  /*  3 @ 24 */ QnnBackend_GetApiVersionFn_t                backendGetApiVersion;
  /*  4 @ 32 */ QnnBackend_GetBuildIdFn_t                   backendGetBuildId;
  /*  5 @ 40 */ QnnBackend_RegisterOpPackageFn_t            backendRegisterOpPackage;
  /*  6 @ 48 */ QnnBackend_GetSupportedOperationsFn_t       backendGetSupportedOperations;
  /*  7 @ 56 */ QnnBackend_ValidateOpConfigFn_t             backendValidateOpConfig;
  /*  8 @ 64 */ QnnBackend_FreeFn_t                         backendFree;
  /*  9 @ 72 */ QnnContext_CreateFn_t                       contextCreate;
  /* 10 @ 80 */ QnnContext_SetConfigFn_t                    contextSetConfig;
  /* 11 @ 88 */ QnnContext_GetBinarySizeFn_t                contextGetBinarySize;
  /* 12 @ 96 */ QnnContext_GetBinaryFn_t                    contextGetBinary;
  /* 13 @104 */ QnnContext_CreateFromBinaryFn_t             contextCreateFromBinary;
  /* 14 @112 */ QnnContext_FreeFn_t                         contextFree;
  /* 15 @120 */ QnnGraph_CreateFn_t                         graphCreate;
  /* 16 @128 */ QnnGraph_CreateSubgraphFn_t                 graphCreateSubgraph;
  /* 17 @136 */ QnnGraph_SetConfigFn_t                      graphSetConfig;
  /* 18 @144 */ QnnGraph_AddNodeFn_t                        graphAddNode;
  /* 19 @152 */ QnnGraph_FinalizeFn_t                       graphFinalize;
  /* 20 @160 */ QnnGraph_RetrieveFn_t                       graphRetrieve;
  /* 21 @168 */ QnnGraph_ExecuteFn_t                        graphExecute;
  /* 22 @176 */ QnnGraph_ExecuteAsyncFn_t                   graphExecuteAsync;
  /* 23 @184 */ QnnTensor_CreateContextTensorFn_t           tensorCreateContextTensor;
  /* 24 @192 */ QnnTensor_CreateGraphTensorFn_t             tensorCreateGraphTensor;
  /* 25 @200 */ QnnLog_CreateFn_t                           logCreate;
  /* 26 @208 */ QnnLog_SetLogLevelFn_t                      logSetLogLevel;
  /* 27 @216 */ QnnLog_FreeFn_t                             logFree;
  /* 28 @224 */ QnnProfile_CreateFn_t                       profileCreate;
  /* 29 @232 */ QnnProfile_SetConfigFn_t                    profileSetConfig;
  /* 30 @240 */ QnnProfile_GetEventsFn_t                    profileGetEvents;
  /* 31 @248 */ QnnProfile_GetSubEventsFn_t                 profileGetSubEvents;
  /* 32 @256 */ QnnProfile_GetEventDataFn_t                 profileGetEventData;
  /* 33 @264 */ QnnProfile_GetExtendedEventDataFn_t         profileGetExtendedEventData;
  /* 34 @272 */ QnnProfile_FreeFn_t                         profileFree;
  /* 35 @280 */ QnnMem_RegisterFn_t                         memRegister;
  /* 36 @288 */ QnnMem_DeRegisterFn_t                       memDeRegister;
  /* 37 @296 */ QnnDevice_GetPlatformInfoFn_t               deviceGetPlatformInfo;
  /* 38 @304 */ QnnDevice_FreePlatformInfoFn_t              deviceFreePlatformInfo;
  /* 39 @312 */ QnnDevice_GetInfrastructureFn_t             deviceGetInfrastructure;
  /* 40 @320 */ QnnDevice_CreateFn_t                        deviceCreate;
  /* 41 @328 */ QnnDevice_SetConfigFn_t                     deviceSetConfig;
  /* 42 @336 */ QnnDevice_GetInfoFn_t                       deviceGetInfo;
  /* 43 @344 */ QnnDevice_FreeFn_t                          deviceFree;
  /* 44 @352 */ QnnSignal_CreateFn_t                        signalCreate;
  /* 45 @360 */ QnnSignal_SetConfigFn_t                     signalSetConfig;
  /* 46 @368 */ QnnSignal_TriggerFn_t                       signalTrigger;
  /* 47 @376 */ QnnSignal_FreeFn_t                          signalFree;
  /* 48 @384 */ QnnError_GetMessageFn_t                     errorGetMessage;
  /* 49 @392 */ QnnError_GetVerboseMessageFn_t              errorGetVerboseMessage;
  /* 50 @400 */ QnnError_FreeVerboseMessageFn_t             errorFreeVerboseMessage;
  /* 51 @408 */ QnnGraph_PrepareExecutionEnvironmentFn_t    graphPrepareExecutionEnvironment;
  /* 52 @416 */ QnnGraph_ReleaseExecutionEnvironmentFn_t    graphReleaseExecutionEnvironment;
  /* 53 @424 */ QnnGraph_GetPropertyFn_t                    graphGetProperty;
  /* 54 @432 */ QnnContext_ValidateBinaryFn_t               contextValidateBinary;
  /* 55 @440 */ QnnContext_CreateFromBinaryWithSignalFn_t   contextCreateFromBinaryWithSignal;
  /* 56 @448 */ QnnContext_CreateFromBinaryListAsyncFn_t    contextCreateFromBinaryListAsync;
  /* 57 @456 */ QnnTensor_UpdateGraphTensorsFn_t            tensorUpdateGraphTensors;
  /* 58 @464 */ QnnTensor_UpdateContextTensorsFn_t          tensorUpdateContextTensors;
  /* 59 @472 */ QnnContext_GetBinarySectionSizeFn_t         contextGetBinarySectionSize;
  /* 60 @480 */ QnnContext_GetBinarySectionFn_t             contextGetBinarySection;
  /* 61 @488 */ QnnContext_ApplyBinarySectionFn_t           contextApplyBinarySection;
  /* 62 @496 */ QnnBackend_GetPropertyFn_t                  backendGetProperty;
  /* 63 @504 */ QnnContext_GetPropertyFn_t                  contextGetProperty;
  /* 64 @512 */ QnnContext_GetIncrementalBinaryFn_t         contextGetIncrementalBinary;
  /* 65 @520 */ QnnContext_ReleaseIncrementalBinaryFn_t     contextReleaseIncrementalBinary;
  /* 66 @528 */ QnnContext_FinalizeFn_t                     contextFinalize;
  /* 67 @536 */ QnnGlobalConfig_SetFn_t                     globalConfigSet;
  /* 68 @544 */ QnnContext_CreateFromBinaryWithCallbackFn_t contextCreateFromBinaryWithCallback;
  /* 69 @552 */ QnnContext_GetBinarySectionUpdateFn_t       contextGetBinarySectionUpdate;
  /* 70 @560 */ QnnContext_FreeBinarySectionUpdateFn_t      contextFreeBinarySectionUpdate;
  /* 71 @568 */ QnnContext_AddToDlcFn_t                     contextAddToDlc;
  /* 72 @576 */ QnnGraph_ValidateFn_t                       graphValidate;
  /* 73 @584 */ QnnGraph_FreeValidationResultFn_t           graphFreeValidationResult;
  /* 74 @592 */ QnnBackend_RegisterOpPackageFromBinaryFn_t  backendRegisterOpPackageFromBinary;
} QNN_INTERFACE_VER_TYPE;

#define QNN_INTERFACE_VER_TYPE_INIT \
  {                                 \
    NULL, /* propertyHasCapability */ \
    NULL, /* backendCreate */ \
    NULL, /* backendSetConfig */ \
    NULL, /* backendGetApiVersion */ \
    NULL, /* backendGetBuildId */ \
    NULL, /* backendRegisterOpPackage */ \
    NULL, /* backendGetSupportedOperations */ \
    NULL, /* backendValidateOpConfig */ \
    NULL, /* backendFree */ \
    NULL, /* contextCreate */ \
    NULL, /* contextSetConfig */ \
    NULL, /* contextGetBinarySize */ \
    NULL, /* contextGetBinary */ \
    NULL, /* contextCreateFromBinary */ \
    NULL, /* contextFree */ \
    NULL, /* graphCreate */ \
    NULL, /* graphCreateSubgraph */ \
    NULL, /* graphSetConfig */ \
    NULL, /* graphAddNode */ \
    NULL, /* graphFinalize */ \
    NULL, /* graphRetrieve */ \
    NULL, /* graphExecute */ \
    NULL, /* graphExecuteAsync */ \
    NULL, /* tensorCreateContextTensor */ \
    NULL, /* tensorCreateGraphTensor */ \
    NULL, /* logCreate */ \
    NULL, /* logSetLogLevel */ \
    NULL, /* logFree */ \
    NULL, /* profileCreate */ \
    NULL, /* profileSetConfig */ \
    NULL, /* profileGetEvents */ \
    NULL, /* profileGetSubEvents */ \
    NULL, /* profileGetEventData */ \
    NULL, /* profileGetExtendedEventData */ \
    NULL, /* profileFree */ \
    NULL, /* memRegister */ \
    NULL, /* memDeRegister */ \
    NULL, /* deviceGetPlatformInfo */ \
    NULL, /* deviceFreePlatformInfo */ \
    NULL, /* deviceGetInfrastructure */ \
    NULL, /* deviceCreate */ \
    NULL, /* deviceSetConfig */ \
    NULL, /* deviceGetInfo */ \
    NULL, /* deviceFree */ \
    NULL, /* signalCreate */ \
    NULL, /* signalSetConfig */ \
    NULL, /* signalTrigger */ \
    NULL, /* signalFree */ \
    NULL, /* errorGetMessage */ \
    NULL, /* errorGetVerboseMessage */ \
    NULL, /* errorFreeVerboseMessage */ \
    NULL, /* graphPrepareExecutionEnvironment */ \
    NULL, /* graphReleaseExecutionEnvironment */ \
    NULL, /* graphGetProperty */ \
    NULL, /* contextValidateBinary */ \
    NULL, /* contextCreateFromBinaryWithSignal */ \
    NULL, /* contextCreateFromBinaryListAsync */ \
    NULL, /* tensorUpdateGraphTensors */ \
    NULL, /* tensorUpdateContextTensors */ \
    NULL, /* contextGetBinarySectionSize */ \
    NULL, /* contextGetBinarySection */ \
    NULL, /* contextApplyBinarySection */ \
    NULL, /* backendGetProperty */ \
    NULL, /* contextGetProperty */ \
    NULL, /* contextGetIncrementalBinary */ \
    NULL, /* contextReleaseIncrementalBinary */ \
    NULL, /* contextFinalize */ \
    NULL, /* globalConfigSet */ \
    NULL, /* contextCreateFromBinaryWithCallback */ \
    NULL, /* contextGetBinarySectionUpdate */ \
    NULL, /* contextFreeBinarySectionUpdate */ \
    NULL, /* contextAddToDlc */ \
    NULL, /* graphValidate */ \
    NULL, /* graphFreeValidationResult */ \
    NULL  /* backendRegisterOpPackageFromBinary */ \
  }

/* What QnnInterface_getProviders returns (640 bytes on LP64). */
typedef struct {
  uint32_t backendId;       /* QNN_BACKEND_ID_* or QNN_BACKEND_ID_NULL */
  const char* providerName; /* may be NULL */
  Qnn_ApiVersion_t apiVersion;
  union UNNAMED {
    QNN_INTERFACE_VER_TYPE QNN_INTERFACE_VER_NAME;
  };
} QnnInterface_t;

#define QNN_INTERFACE_INIT \
  {QNN_BACKEND_ID_NULL, NULL, QNN_API_VERSION_INIT, {QNN_INTERFACE_VER_TYPE_INIT}}

/* Entry point every backend library exports. The returned objects stay
 * valid until the library is unloaded. */
QNN_INTERFACE
Qnn_ErrorHandle_t QnnInterface_getProviders(const QnnInterface_t*** providerList,
                                            uint32_t* numProviders);

#ifdef __cplusplus
}
#endif

#endif /* QNN_INTERFACE_H */
