/*
 * openhtp - QNN-compatible public API.
 * System/QnnSystemContext.h: reading the metadata of a context binary
 * (graphs, their inputs and outputs) without a backend.
 */
#ifndef QNN_SYSTEM_CONTEXT_H
#define QNN_SYSTEM_CONTEXT_H

#include "QnnDevice.h"
#include "QnnTypes.h"
#include "System/QnnSystemCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_SYSTEM_CONTEXT_MINERROR = QNN_MIN_ERROR_SYSTEM,
  QNN_SYSTEM_CONTEXT_NO_ERROR = QNN_SYSTEM_COMMON_NO_ERROR,
  QNN_SYSTEM_CONTEXT_ERROR_UNSUPPORTED_FEATURE = QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE,
  QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE = QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE,
  QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT = QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT,
  QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED = QNN_SYSTEM_CONTEXT_MINERROR + 2,
  QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY = QNN_SYSTEM_CONTEXT_MINERROR + 10,
  QNN_SYSTEM_CONTEXT_MAXERROR = QNN_MAX_ERROR_SYSTEM
} QnnSystemContext_Error_t;

typedef enum {
  QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_1 = 0x01,
  QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_2 = 0x02,
  QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_3 = 0x03,
  QNN_SYSTEM_CONTEXT_GRAPH_INFO_UNDEFINED = 0x7FFFFFFF
} QnnSystemContext_GraphInfoVersion_t;

typedef enum {
  QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_1 = 0x01,
  QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_2 = 0x02,
  QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_3 = 0x03,
  QNN_SYSTEM_CONTEXT_BINARY_INFO_UNDEFINED = 0x7FFFFFFF
} QnnSystemContext_BinaryInfoVersion_t;

/* Graph description, version 1 (40 bytes). */
typedef struct {
  const char* graphName;
  uint32_t numGraphInputs;
  Qnn_Tensor_t* graphInputs;
  uint32_t numGraphOutputs;
  Qnn_Tensor_t* graphOutputs;
} QnnSystemContext_GraphInfoV1_t;

#define QNN_SYSTEM_CONTEXT_GRAPH_INFO_V1_INIT {NULL, 0, NULL, 0, NULL}

/* Version 2 adds the updatable tensors. */
typedef struct {
  const char* graphName;
  uint32_t numGraphInputs;
  Qnn_Tensor_t* graphInputs;
  uint32_t numGraphOutputs;
  Qnn_Tensor_t* graphOutputs;
  uint32_t numUpdateableTensors;
  Qnn_Tensor_t* updateableTensors;
} QnnSystemContext_GraphInfoV2_t;

#define QNN_SYSTEM_CONTEXT_GRAPH_INFO_V2_INIT {NULL, 0, NULL, 0, NULL, 0, NULL}

/* Version 3 adds the backend graph blob (HTP: QnnHtpSystemContext_GraphBlobInfo_t)
 * and the op index range. */
typedef struct {
  const char* graphName;
  uint32_t numGraphInputs;
  Qnn_Tensor_t* graphInputs;
  uint32_t numGraphOutputs;
  Qnn_Tensor_t* graphOutputs;
  uint32_t numUpdateableTensors;
  Qnn_Tensor_t* updateableTensors;
  uint32_t graphBlobInfoSize;
  void* graphBlobInfo;
  uint32_t startOpIndex;
  uint32_t endOpIndex;
} QnnSystemContext_GraphInfoV3_t;

#define QNN_SYSTEM_CONTEXT_GRAPH_INFO_V3_INIT {NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0}

/* 88 bytes on LP64. */
typedef struct {
  QnnSystemContext_GraphInfoVersion_t version;
  union UNNAMED {
    QnnSystemContext_GraphInfoV1_t graphInfoV1;
    QnnSystemContext_GraphInfoV2_t graphInfoV2;
    QnnSystemContext_GraphInfoV3_t graphInfoV3;
  };
} QnnSystemContext_GraphInfo_t;

#define QNN_SYSTEM_CONTEXT_GRAPH_INFO_INIT \
  {QNN_SYSTEM_CONTEXT_GRAPH_INFO_UNDEFINED, {QNN_SYSTEM_CONTEXT_GRAPH_INFO_V1_INIT}}

/* Binary description, version 1 (128 bytes). */
typedef struct {
  uint32_t backendId;
  const char* buildId;
  Qnn_Version_t coreApiVersion;
  Qnn_Version_t backendApiVersion;
  const char* socVersion;
  Qnn_Version_t hwInfoBlobVersion;
  Qnn_Version_t contextBlobVersion;
  uint32_t hwInfoBlobSize;
  void* hwInfoBlob; /* HTP: QnnHtpSystemContext_HwBlobInfo_t */
  uint64_t contextBlobSize;
  uint32_t numContextTensors;
  Qnn_Tensor_t* contextTensors;
  uint32_t numGraphs;
  QnnSystemContext_GraphInfo_t* graphs;
} QnnSystemContext_BinaryInfoV1_t;

#define QNN_SYSTEM_CONTEXT_BINARY_INFO_V1_INIT                                          \
  {0, NULL, QNN_VERSION_INIT, QNN_VERSION_INIT, NULL, QNN_VERSION_INIT, QNN_VERSION_INIT, \
   0, NULL, 0, 0, NULL, 0, NULL}

/* Version 2 adds the platform info. */
typedef struct {
  uint32_t backendId;
  const char* buildId;
  Qnn_Version_t coreApiVersion;
  Qnn_Version_t backendApiVersion;
  const char* socVersion;
  Qnn_Version_t hwInfoBlobVersion;
  Qnn_Version_t contextBlobVersion;
  uint32_t hwInfoBlobSize;
  void* hwInfoBlob;
  uint64_t contextBlobSize;
  uint32_t numContextTensors;
  Qnn_Tensor_t* contextTensors;
  uint32_t numGraphs;
  QnnSystemContext_GraphInfo_t* graphs;
  QnnDevice_PlatformInfo_t* platformInfo;
} QnnSystemContext_BinaryInfoV2_t;

#define QNN_SYSTEM_CONTEXT_BINARY_INFO_V2_INIT                                          \
  {0, NULL, QNN_VERSION_INIT, QNN_VERSION_INIT, NULL, QNN_VERSION_INIT, QNN_VERSION_INIT, \
   0, NULL, 0, 0, NULL, 0, NULL, NULL}

/* Version 3 drops the hardware-info blob and adds context metadata and the
 * SoC model. */
typedef struct {
  uint32_t backendId;
  const char* buildId;
  Qnn_Version_t coreApiVersion;
  Qnn_Version_t backendApiVersion;
  const char* socVersion;
  Qnn_Version_t contextBlobVersion;
  uint64_t contextBlobSize;
  uint32_t numContextTensors;
  Qnn_Tensor_t* contextTensors;
  uint32_t numGraphs;
  QnnSystemContext_GraphInfo_t* graphs;
  QnnDevice_PlatformInfo_t* platformInfo;
  uint32_t contextMetadataSize;
  void* contextMetadata; /* HTP: QnnHtpSystemContext_ContextBlobInfo_t */
  uint32_t socModel;
} QnnSystemContext_BinaryInfoV3_t;

#define QNN_SYSTEM_CONTEXT_BINARY_INFO_V3_INIT \
  {0, NULL, QNN_VERSION_INIT, QNN_VERSION_INIT, NULL, QNN_VERSION_INIT, 0, 0, NULL, 0, NULL, NULL, 0, NULL, 0}

/* 144 bytes on LP64. */
typedef struct {
  QnnSystemContext_BinaryInfoVersion_t version;
  union UNNAMED {
    QnnSystemContext_BinaryInfoV1_t contextBinaryInfoV1;
    QnnSystemContext_BinaryInfoV2_t contextBinaryInfoV2;
    QnnSystemContext_BinaryInfoV3_t contextBinaryInfoV3;
  };
} QnnSystemContext_BinaryInfo_t;

#define QNN_SYSTEM_CONTEXT_BINARYINFO_INIT \
  {QNN_SYSTEM_CONTEXT_BINARY_INFO_UNDEFINED, {QNN_SYSTEM_CONTEXT_BINARY_INFO_V1_INIT}}

typedef void* QnnSystemContext_Handle_t;

QNN_SYSTEM_API
Qnn_ErrorHandle_t QnnSystemContext_create(QnnSystemContext_Handle_t* sysCtxHandle);

/* Deprecated in favour of QnnSystemContext_getMetadata. The returned info is
 * owned by sysCtxHandle and lives until QnnSystemContext_free. */
QNN_SYSTEM_API
Qnn_ErrorHandle_t QnnSystemContext_getBinaryInfo(QnnSystemContext_Handle_t sysCtxHandle,
                                                 void* binaryBuffer, uint64_t binaryBufferSize,
                                                 const QnnSystemContext_BinaryInfo_t** binaryInfo,
                                                 Qnn_ContextBinarySize_t* binaryInfoSize);

QNN_SYSTEM_API
Qnn_ErrorHandle_t QnnSystemContext_getMetadata(QnnSystemContext_Handle_t sysCtxHandle,
                                               const void* binaryBuffer,
                                               Qnn_ContextBinarySize_t binaryBufferSize,
                                               const QnnSystemContext_BinaryInfo_t** binaryInfo);

QNN_SYSTEM_API
Qnn_ErrorHandle_t QnnSystemContext_free(QnnSystemContext_Handle_t sysCtxHandle);

#ifdef __cplusplus
}
#endif

#endif /* QNN_SYSTEM_CONTEXT_H */
