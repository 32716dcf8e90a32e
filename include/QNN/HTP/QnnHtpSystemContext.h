/*
 * openhtp - QNN-compatible public API.
 * HTP/QnnHtpSystemContext.h: layout of the HTP-specific blobs found in
 * context-binary metadata (System/QnnSystemContext.h).
 */
#ifndef QNN_HTP_SYSTEM_CONTEXT_H
#define QNN_HTP_SYSTEM_CONTEXT_H

#include "QnnCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* hwInfoBlob of binary-info V1 / V2. */
typedef enum {
  QNN_SYSTEM_CONTEXT_HTP_HW_INFO_BLOB_VERSION_V1 = 0x01,
  QNN_SYSTEM_CONTEXT_HTP_HW_INFO_BLOB_UNDEFINED = 0x7FFFFFFF
} QnnHtpSystemContext_HwInfoBlobVersion_t;

typedef struct QnnHtpSystemContext_HwBlobInfoV1 {
  uint32_t graphListIndex;      /* index into the graph list */
  uint64_t spillFillBufferSize; /* bytes */
} QnnHtpSystemContext_HwBlobInfoV1_t;

typedef struct {
  QnnHtpSystemContext_HwInfoBlobVersion_t version;
  union UNNAMED {
    QnnHtpSystemContext_HwBlobInfoV1_t contextBinaryHwInfoBlobV1_t;
  };
} QnnHtpSystemContext_HwBlobInfo_t;

/* graphBlobInfo of graph-info V3. */
typedef enum {
  QNN_SYSTEM_CONTEXT_HTP_GRAPH_INFO_BLOB_VERSION_V1 = 0x01,
  QNN_SYSTEM_CONTEXT_HTP_GRAPH_INFO_BLOB_VERSION_V2 = 0x02,
  QNN_SYSTEM_CONTEXT_HTP_GRAPH_INFO_BLOB_UNDEFINED = 0x7FFFFFFF
} QnnHtpSystemContext_GraphInfoBlobVersion_t;

typedef struct {
  uint64_t spillFillBufferSize; /* bytes */
  uint32_t vtcmSize;            /* MB */
  uint32_t optimizationLevel;
  uint8_t htpDlbc;
  uint64_t numHvxThreads;
} QnnHtpSystemContext_GraphBlobInfoV1_t;

/* Memory breakdown of a graph (all sizes in bytes). Carries its own
 * version; it is not part of the wrapper union below. */
typedef struct {
  QnnHtpSystemContext_GraphInfoBlobVersion_t version;
  uint64_t nativeKChannelSize;
  uint64_t nativeVChannelSize;
  uint32_t isSafeShareIO; /* 1: inputs and outputs may share a buffer */
  uint64_t ioTensorSize;
  uint64_t opDataSize;
  uint64_t constSize;
  uint64_t ddrTensorSize;
  uint64_t sharedWeightsSize;
} QnnHtpSystemContext_GraphBlobInfoV2_t;

typedef struct {
  QnnHtpSystemContext_GraphInfoBlobVersion_t version;
  union UNNAMED {
    QnnHtpSystemContext_GraphBlobInfoV1_t contextBinaryGraphBlobInfoV1;
  };
} QnnHtpSystemContext_GraphBlobInfo_t;

/* contextMetadata of binary-info V3. */
typedef enum {
  QNN_SYSTEM_CONTEXT_HTP_CONTEXT_INFO_BLOB_VERSION_V1 = 0x01,
  QNN_SYSTEM_CONTEXT_HTP_CONTEXT_INFO_BLOB_UNDEFINED = 0x7FFFFFFF
} QnnHtpSystemContext_ContextInfoBlobVersion_t;

typedef struct {
  uint32_t dspArch; /* integer code of the DSP architecture */
} QnnHtpSystemContext_ContextBlobInfoV1_t;

typedef struct {
  QnnHtpSystemContext_ContextInfoBlobVersion_t version;
  union UNNAMED {
    QnnHtpSystemContext_ContextBlobInfoV1_t contextBinaryContextBlobInfoV1;
  };
} QnnHtpSystemContext_ContextBlobInfo_t;

#ifdef __cplusplus
}
#endif

#endif /* QNN_HTP_SYSTEM_CONTEXT_H */
