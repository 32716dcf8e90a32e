/*
 * openhtp - QNN-compatible public API.
 * QnnContext.h: contexts own graphs and tensors and can be saved to / loaded
 * from a context binary.
 */
#ifndef QNN_CONTEXT_H
#define QNN_CONTEXT_H

#include "QnnCommon.h"
#include "QnnMem.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_CONTEXT_MIN_ERROR = QNN_MIN_ERROR_CONTEXT,
  QNN_CONTEXT_NO_ERROR = QNN_SUCCESS,
  QNN_CONTEXT_ERROR_UNSUPPORTED_FEATURE = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_CONTEXT_ERROR_MEM_ALLOC = QNN_COMMON_ERROR_MEM_ALLOC,
  QNN_CONTEXT_ERROR_INVALID_ARGUMENT = QNN_MIN_ERROR_CONTEXT + 0,
  QNN_CONTEXT_ERROR_CTX_DOES_NOT_EXIST = QNN_MIN_ERROR_CONTEXT + 1,
  QNN_CONTEXT_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_CONTEXT + 2,
  QNN_CONTEXT_ERROR_NOT_FINALIZED = QNN_MIN_ERROR_CONTEXT + 3,
  QNN_CONTEXT_ERROR_BINARY_VERSION = QNN_MIN_ERROR_CONTEXT + 4,
  QNN_CONTEXT_ERROR_CREATE_FROM_BINARY = QNN_MIN_ERROR_CONTEXT + 5,
  QNN_CONTEXT_ERROR_GET_BINARY_SIZE_FAILED = QNN_MIN_ERROR_CONTEXT + 6,
  QNN_CONTEXT_ERROR_GET_BINARY_FAILED = QNN_MIN_ERROR_CONTEXT + 7,
  QNN_CONTEXT_ERROR_BINARY_CONFIGURATION = QNN_MIN_ERROR_CONTEXT + 8,
  QNN_CONTEXT_ERROR_SET_PROFILE = QNN_MIN_ERROR_CONTEXT + 9,
  QNN_CONTEXT_ERROR_INVALID_CONFIG = QNN_MIN_ERROR_CONTEXT + 10,
  QNN_CONTEXT_ERROR_BINARY_SUBOPTIMAL = QNN_MIN_ERROR_CONTEXT + 11,
  QNN_CONTEXT_ERROR_ABORTED = QNN_MIN_ERROR_CONTEXT + 12,
  QNN_CONTEXT_ERROR_TIMED_OUT = QNN_MIN_ERROR_CONTEXT + 13,
  QNN_CONTEXT_ERROR_INCREMENT_INVALID_BUFFER = QNN_MIN_ERROR_CONTEXT + 14,
  QNN_CONTEXT_MAX_ERROR = QNN_MAX_ERROR_CONTEXT,
  QNN_CONTEXT_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnContext_Error_t;

/* For HTP this points to a QnnHtpContext_CustomConfig_t. */
typedef void* QnnContext_CustomConfig_t;

typedef enum {
  QNN_CONTEXT_CONFIG_OPTION_CUSTOM = 0,
  QNN_CONTEXT_CONFIG_OPTION_PRIORITY = 1,
  QNN_CONTEXT_CONFIG_OPTION_ERROR_REPORTING = 2,
  QNN_CONTEXT_CONFIG_OPTION_OEM_STRING = 3, /* deprecated */
  QNN_CONTEXT_CONFIG_ASYNC_EXECUTION_QUEUE_DEPTH = 4,
  QNN_CONTEXT_CONFIG_ENABLE_GRAPHS = 5,
  QNN_CONTEXT_CONFIG_MEMORY_LIMIT_HINT = 6,
  QNN_CONTEXT_CONFIG_PERSISTENT_BINARY = 7,
  QNN_CONTEXT_CONFIG_BINARY_COMPATIBILITY = 8,
  /* createFromBinary only makes the handle; graphs are set up later
   * (QnnContext_finalize or the first retrieve). */
  QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT = 9,
  QNN_CONTEXT_CONFIG_GRAPH_RETENTION_ORDER = 10,
  QNN_CONTEXT_CONFIG_UNDEFINED = 0x7FFFFFFF
} QnnContext_ConfigOption_t;

/* The sentinels below really are 0x7FFFFFF (seven F) in QNN. */
typedef enum {
  QNN_CONTEXT_BINARY_COMPATIBILITY_PERMISSIVE = 0,
  QNN_CONTEXT_BINARY_COMPATIBILITY_STRICT = 1,
  QNN_CONTEXT_BINARY_COMPATIBILITY_TYPE_UNDEFINED = 0x7FFFFFF
} QnnContext_BinaryCompatibilityType_t;

typedef enum {
  QNN_CONTEXT_ASYNC_EXECUTION_QUEUE_DEPTH_TYPE_NUMERIC = 0,
  QNN_CONTEXT_ASYNC_EXECUTION_QUEUE_DEPTH_TYPE_UNDEFINED = 0x7FFFFFF
} QnnContext_AsyncExecutionQueueDepthType_t;

typedef struct {
  QnnContext_AsyncExecutionQueueDepthType_t type;
  union UNNAMED {
    uint32_t depth;
  };
} QnnContext_AsyncExecutionQueueDepth_t;

#define QNN_CONTEXT_ASYNC_EXECUTION_QUEUE_DEPTH_INIT \
  {QNN_CONTEXT_ASYNC_EXECUTION_QUEUE_DEPTH_TYPE_UNDEFINED, {0}}

/* 16 bytes on LP64; always passed as a NULL-terminated pointer array. */
typedef struct {
  QnnContext_ConfigOption_t option;
  union UNNAMED {
    QnnContext_CustomConfig_t customConfig;
    Qnn_Priority_t priority;
    Qnn_ErrorReportingConfig_t errorConfig;
    const char* oemString;
    QnnContext_AsyncExecutionQueueDepth_t asyncExeQueueDepth;
    const char* const* enableGraphs;        /* NULL-terminated names */
    uint64_t memoryLimitHint;               /* MB */
    uint8_t isPersistentBinary;
    QnnContext_BinaryCompatibilityType_t binaryCompatibilityType;
    uint8_t isGraphInitDeferred;
    const char* const* graphRetentionOrder; /* NULL-terminated names */
  };
} QnnContext_Config_t;

#define QNN_CONTEXT_CONFIG_INIT {QNN_CONTEXT_CONFIG_UNDEFINED, {NULL}}

typedef enum {
  QNN_CONTEXT_NOTIFY_TYPE_GRAPH_INIT = 0,
  QNN_CONTEXT_NOTIFY_TYPE_CONTEXT_INIT = 1,
  QNN_CONTEXT_NOTIFY_TYPE_UNDEFINED = 0x7FFFFFF
} QnnContext_createFromBinaryAsyncNotifyType_t;

/* Progress callback of QnnContext_createFromBinaryListAsync. */
typedef void (*QnnContext_createFromBinaryNotifyFn_t)(
    Qnn_ContextHandle_t context, Qnn_GraphHandle_t graph, const char* graphName,
    QnnContext_createFromBinaryAsyncNotifyType_t notifyType, void* notifyParam,
    Qnn_ErrorHandle_t status);

/* Per-context arguments of QnnContext_createFromBinaryListAsync (48 bytes). */
typedef struct {
  const QnnContext_Config_t** config;
  const void* binaryBuffer;
  const Qnn_ContextBinarySize_t binaryBufferSize;
  Qnn_ProfileHandle_t profile;
  QnnContext_createFromBinaryNotifyFn_t notifyFunc; /* required */
  void* notifyParam;
} QnnContext_ParamsV1_t;

typedef enum {
  QNN_CONTEXT_PARAMS_VERSION_1 = 1,
  QNN_CONTEXT_PARAMS_VERSION_2 = 2,
  QNN_CONTEXT_PARAMS_VERSION_UNDEFINED = 0x7FFFFFFF
} QnnContext_ParamsVersion_t;

/* ---- Binary data provided by client callbacks ---- */

typedef struct {
  Qnn_ContextBinarySize_t offset;
  Qnn_ContextBinarySize_t size;
  uint8_t isBackendMappingNeeded; /* DMA callback must then also give an fd */
} Qnn_ContextBinaryDataRequest_t;

typedef struct {
  void* memPtr;
  Qnn_ContextBinarySize_t dataStartOffset;
  Qnn_ContextBinarySize_t alignedSize;
} Qnn_ContextBinaryRawDataResponse_t;

typedef struct {
  Qnn_MemDmaBufInfo_t dmaBuffer;
  Qnn_ContextBinarySize_t dataStartOffset;
  Qnn_ContextBinarySize_t alignedSize;
} Qnn_ContextBinaryDmaDataResponse_t;

typedef struct {
  void* memPtr;
  Qnn_ContextBinarySize_t memSize;
} Qnn_ContextBinaryRawDataMem_t;

typedef struct {
  Qnn_MemDmaBufInfo_t dmaBuffer;
  Qnn_ContextBinarySize_t memSize;
} Qnn_ContextBinaryDmaDataMem_t;

typedef Qnn_ErrorHandle_t (*Qnn_ContextBinaryRawDataProviderFn_t)(
    Qnn_ContextBinaryDataRequest_t req, Qnn_ContextBinaryRawDataResponse_t* rawDataResponse,
    void* notifyParam);

typedef Qnn_ErrorHandle_t (*Qnn_ContextBinaryDmaDataProviderFn_t)(
    Qnn_ContextBinaryDataRequest_t req, Qnn_ContextBinaryDmaDataResponse_t* dmaDataResponse,
    void* notifyParam);

typedef Qnn_ErrorHandle_t (*Qnn_ContextBinaryRawDataReleaseFn_t)(
    Qnn_ContextBinaryRawDataMem_t rawDataMem, void* notifyParam);

typedef Qnn_ErrorHandle_t (*Qnn_ContextBinaryDmaDataReleaseFn_t)(
    Qnn_ContextBinaryDmaDataMem_t dmaDataMem, void* notifyParam);

typedef struct {
  Qnn_ContextBinaryRawDataProviderFn_t dataProvide;
  Qnn_ContextBinaryRawDataReleaseFn_t dataRelease;
  void* notifyParam;
} Qnn_ContextBinaryRawBufferCallbackV1_t;

typedef struct {
  Qnn_ContextBinaryDmaDataProviderFn_t dataProvide;
  Qnn_ContextBinaryDmaDataReleaseFn_t dataRelease;
  void* notifyParam;
} Qnn_ContextBinaryDmaBufferCallbackV1_t;

typedef enum {
  QNN_CONTEXT_CALLBACK_RAW_BUFFER_VERSION_1 = 1,
  QNN_CONTEXT_CALLBACK_RAW_BUFFER_VERSION_UNDEFINED = 0x7FFFFFFF
} Qnn_ContextBinaryRawBufferCallbackVersion_t;

typedef struct {
  Qnn_ContextBinaryRawBufferCallbackVersion_t version;
  union UNNAMED {
    Qnn_ContextBinaryRawBufferCallbackV1_t v1;
  };
} Qnn_ContextBinaryRawBufferCallback_t;

typedef enum {
  QNN_CONTEXT_CALLBACK_DMA_BUFFER_VERSION_1 = 1,
  QNN_CONTEXT_CALLBACK_DMA_BUFFER_VERSION_UNDEFINED = 0x7FFFFFFF
} Qnn_ContextBinaryDmaBufferCallbackVersion_t;

typedef struct {
  Qnn_ContextBinaryDmaBufferCallbackVersion_t version;
  union UNNAMED {
    Qnn_ContextBinaryDmaBufferCallbackV1_t v1;
  };
} Qnn_ContextBinaryDmaBufferCallback_t;

typedef enum {
  QNN_CONTEXT_CALLBACK_RAW_BUFFER = 1,
  QNN_CONTEXT_CALLBACK_DMA_BUFFER = 2,
  QNN_CONTEXT_CALLBACK_UNDEFINED = 0x7FFFFFFF
} Qnn_ContextBinaryCallbackType_t;

typedef struct {
  Qnn_ContextBinaryCallbackType_t type;
  union UNNAMED {
    Qnn_ContextBinaryRawBufferCallback_t rawBufferCallback;
    Qnn_ContextBinaryDmaBufferCallback_t dmaBufferCallback;
  };
} Qnn_ContextBinaryCallback_t;

/* Version 1 plus a data callback (56 bytes). */
typedef struct {
  const QnnContext_Config_t** config;
  const void* binaryBuffer;
  const Qnn_ContextBinarySize_t binaryBufferSize;
  Qnn_ProfileHandle_t profile;
  QnnContext_createFromBinaryNotifyFn_t notifyFunc;
  void* notifyParam;
  const Qnn_ContextBinaryCallback_t* callback;
} QnnContext_ParamsV2_t;

/* Note: v1 is stored by value, v2 by pointer. */
typedef struct {
  QnnContext_ParamsVersion_t version;
  union UNNAMED {
    QnnContext_ParamsV1_t v1;
    QnnContext_ParamsV2_t* v2;
  };
} QnnContext_Params_t;

/* ---- Binary sections (updatable weights / quant params) ---- */

typedef enum {
  QNN_CONTEXT_SECTION_UPDATABLE = 1,
  QNN_CONTEXT_SECTION_UPDATABLE_WEIGHTS = 2,
  QNN_CONTEXT_SECTION_UPDATABLE_QUANT_PARAMS = 3,
  QNN_CONTEXT_SECTION_UNDEFINED = 0x7FFFFFFF
} QnnContext_SectionType_t;

typedef enum {
  QNN_CONTEXTMEMTYPE_RAW = 0,
  QNN_CONTEXTMEMTYPE_MEMHANDLE = 1,
  QNN_CONTEXTMEMTYPE_UNDEFINED = 0x7FFFFFFF
} QnnContext_MemType_t;

typedef struct {
  void* data;
  Qnn_ContextBinarySize_t dataSize;
} Qnn_BinaryBuffer_t;

typedef struct {
  QnnContext_MemType_t memType;
  union UNNAMED {
    Qnn_BinaryBuffer_t binaryBuf;
    Qnn_MemHandle_t memHandle;
  };
} QnnContext_BufferV1_t;

typedef enum {
  QNN_CONTEXT_BUFFER_VERSION_1 = 1,
  QNN_CONTEXT_BUFFER_VERSION_UNDEFINED = 0x7FFFFFFF
} QnnContext_BufferVersion_t;

typedef struct {
  QnnContext_BufferVersion_t version;
  union UNNAMED {
    QnnContext_BufferV1_t v1;
  };
} QnnContext_Buffer_t;

/* ---- Properties ---- */

typedef enum {
  QNN_CONTEXT_PROPERTY_OPTION_CUSTOM = 0,
  QNN_CONTEXT_PROPERTY_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnContext_PropertyOption_t;

/* For HTP this points to a QnnHtpContext_CustomProperty_t. */
typedef void* QnnContext_CustomProperty_t;

/* The client sets option; the backend fills the rest. */
typedef struct {
  QnnContext_PropertyOption_t option;
  union UNNAMED {
    QnnContext_CustomProperty_t customProperty;
  };
} QnnContext_Property_t;

#define QNN_CONTEXT_PROPERTY_INIT {QNN_CONTEXT_PROPERTY_OPTION_UNDEFINED, {NULL}}

/* ---- Functions ---- */

/* device == NULL behaves like a device created with default config. */
QNN_API
Qnn_ErrorHandle_t QnnContext_create(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                    const QnnContext_Config_t** config,
                                    Qnn_ContextHandle_t* context);

QNN_API
Qnn_ErrorHandle_t QnnContext_setConfig(Qnn_ContextHandle_t context,
                                       const QnnContext_Config_t** config);

/* Needs every graph finalized; not allowed on a context loaded from a binary. */
QNN_API
Qnn_ErrorHandle_t QnnContext_getBinarySize(Qnn_ContextHandle_t context,
                                           Qnn_ContextBinarySize_t* binaryBufferSize);

QNN_API
Qnn_ErrorHandle_t QnnContext_getBinary(Qnn_ContextHandle_t context, void* binaryBuffer,
                                       Qnn_ContextBinarySize_t binaryBufferSize,
                                       Qnn_ContextBinarySize_t* writtenBufferSize);

QNN_API
Qnn_ErrorHandle_t QnnContext_createFromBinary(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                              const QnnContext_Config_t** config,
                                              const void* binaryBuffer,
                                              Qnn_ContextBinarySize_t binaryBufferSize,
                                              Qnn_ContextHandle_t* context,
                                              Qnn_ProfileHandle_t profile);

QNN_API
Qnn_ErrorHandle_t QnnContext_createFromBinaryWithSignal(
    Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device, const QnnContext_Config_t** config,
    const void* binaryBuffer, Qnn_ContextBinarySize_t binaryBufferSize,
    Qnn_ContextHandle_t* context, Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal);

/* contextParams: NULL-terminated; listConfig applies to the whole group. */
QNN_API
Qnn_ErrorHandle_t QnnContext_createFromBinaryListAsync(Qnn_BackendHandle_t backend,
                                                       Qnn_DeviceHandle_t device,
                                                       const QnnContext_Params_t** contextParams,
                                                       const QnnContext_Config_t** listConfig,
                                                       Qnn_SignalHandle_t signal);

QNN_API
Qnn_ErrorHandle_t QnnContext_createFromBinaryWithCallback(
    Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device, const QnnContext_Config_t** config,
    const Qnn_ContextBinaryCallback_t* callback, const void* binaryBuffer,
    Qnn_ContextBinarySize_t binaryBufferSize, Qnn_ContextHandle_t* context,
    Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal);

QNN_API
Qnn_ErrorHandle_t QnnContext_validateBinary(Qnn_BackendHandle_t backend, Qnn_DeviceHandle_t device,
                                            const QnnContext_Config_t** config,
                                            const void* binaryBuffer,
                                            Qnn_ContextBinarySize_t binaryBufferSize);

/* Completes a context created with DEFER_GRAPH_INIT. */
QNN_API
Qnn_ErrorHandle_t QnnContext_finalize(Qnn_ContextHandle_t context, Qnn_ProfileHandle_t profile);

QNN_API
Qnn_ErrorHandle_t QnnContext_getBinarySectionSize(Qnn_ContextHandle_t context,
                                                  Qnn_GraphHandle_t graph,
                                                  QnnContext_SectionType_t section,
                                                  Qnn_ContextBinarySize_t* binaryBufferSize);

QNN_API
Qnn_ErrorHandle_t QnnContext_getBinarySection(Qnn_ContextHandle_t context, Qnn_GraphHandle_t graph,
                                              QnnContext_SectionType_t section,
                                              const QnnContext_Buffer_t* binaryBuffer,
                                              Qnn_ContextBinarySize_t* writtenBufferSize,
                                              Qnn_ProfileHandle_t profile,
                                              Qnn_SignalHandle_t signal);

QNN_API
Qnn_ErrorHandle_t QnnContext_applyBinarySection(Qnn_ContextHandle_t context,
                                                Qnn_GraphHandle_t graph,
                                                QnnContext_SectionType_t section,
                                                const QnnContext_Buffer_t* binaryBuffer,
                                                Qnn_ProfileHandle_t profile,
                                                Qnn_SignalHandle_t signal);

QNN_API
Qnn_ErrorHandle_t QnnContext_getBinarySectionUpdate(
    const QnnContext_Buffer_t* binaryBuffer, const QnnContext_Buffer_t* auxiliaryBuffer,
    const Qnn_Tensor_t** tensors, uint64_t numTensors, uint8_t keepUpdatable,
    Qnn_LogHandle_t logger, Qnn_ProfileHandle_t profile, Qnn_SignalHandle_t signal,
    QnnContext_Buffer_t* binarySectionUpdate);

QNN_API
Qnn_ErrorHandle_t QnnContext_freeBinarySectionUpdate(QnnContext_Buffer_t binarySectionUpdate,
                                                     Qnn_LogHandle_t logger);

/* properties: NULL-terminated, client owned. */
QNN_API
Qnn_ErrorHandle_t QnnContext_getProperty(Qnn_ContextHandle_t contextHandle,
                                         QnnContext_Property_t** properties);

QNN_API
Qnn_ErrorHandle_t QnnContext_getIncrementalBinary(Qnn_ContextHandle_t context,
                                                  const void** binaryBuffer,
                                                  Qnn_ContextBinarySize_t* startOffset,
                                                  Qnn_ContextBinarySize_t* writtenBufferSize);

QNN_API
Qnn_ErrorHandle_t QnnContext_releaseIncrementalBinary(Qnn_ContextHandle_t context,
                                                      const void* binaryBuffer,
                                                      Qnn_ContextBinarySize_t startOffset);

/* Appends the context's graphs to a DLC opened with the System API. */
QNN_API
Qnn_ErrorHandle_t QnnContext_addToDlc(Qnn_ContextHandle_t context, QnnSystemDlc_Handle_t dlcHandle);

QNN_API
Qnn_ErrorHandle_t QnnContext_free(Qnn_ContextHandle_t context, Qnn_ProfileHandle_t profile);

#ifdef __cplusplus
}
#endif

#endif /* QNN_CONTEXT_H */
