/*
 * openhtp - QNN-compatible public API.
 * HTP/QnnHtpContext.h: HTP context configs (passed through
 * QNN_CONTEXT_CONFIG_OPTION_CUSTOM) and properties (read through
 * QNN_CONTEXT_PROPERTY_OPTION_CUSTOM).
 */
#ifndef QNN_HTP_CONTEXT_H
#define QNN_HTP_CONTEXT_H

#include "QnnContext.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED = 1,
  QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_MULTI_CONTEXTS = 2,
  QNN_HTP_CONTEXT_CONFIG_OPTION_FILE_READ_MEMORY_BUDGET = 3,
  QNN_HTP_CONTEXT_CONFIG_OPTION_DSP_MEMORY_PROFILING_ENABLED = 4,
  QNN_HTP_CONTEXT_CONFIG_OPTION_SHARE_RESOURCES = 5,
  QNN_HTP_CONTEXT_CONFIG_OPTION_IO_MEM_ESTIMATION = 6,
  QNN_HTP_CONTEXT_CONFIG_OPTION_PREPARE_ONLY = 7,
  QNN_HTP_CONTEXT_CONFIG_OPTION_INIT_ACCELERATION = 8,
  QNN_HTP_CONTEXT_CONFIG_OPTION_SKIP_VALIDATION_ON_BINARY_SECTION = 9,
  QNN_HTP_CONTEXT_CONFIG_OPTION_SHARE_RESOURCES_OPTIMIZATION_TYPE = 10,
  QNN_HTP_CONTEXT_CONFIG_OPTION_USE_EXTENDED_UDMA = 11,
  QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING = 12,
  QNN_HTP_CONTEXT_CONFIG_OPTION_LORA_WEIGHT_SHARING_ENABLED = 13,
  QNN_HTP_CONTEXT_CONFIG_OPTION_RESERVED_14 = 14,
  QNN_HTP_CONTEXT_CONFIG_OPTION_RESERVED_15 = 15,
  QNN_HTP_CONTEXT_CONFIG_OPTION_LORA_WEIGHT_SHARING_RAM_PRELOAD_ENABLED = 16,
  QNN_HTP_CONTEXT_CONFIG_OPTION_REUSED_IO_LIMIT = 17,
  QNN_HTP_CONTEXT_CONFIG_OPTION_REFERENCE_WEIGHT_SHARING_ENABLED = 18,
  QNN_HTP_CONTEXT_CONFIG_OPTION_CONCURRENT_DESERIALIZATION_EXTRA_SIZE = 19,
  QNN_HTP_CONTEXT_CONFIG_OPTION_GRAPH_SPLITTING_ENABLED = 20, /* deprecated, use 22 */
  QNN_HTP_CONTEXT_CONFIG_OPTION_CONCURRENT_DESERIALIZATION_PATCH = 21,
  QNN_HTP_CONTEXT_CONFIG_OPTION_GRAPH_SPLITTING_CONFIGS = 22,
  QNN_HTP_CONTEXT_CONFIG_OPTION_LORA_PRELOAD_BUFFER_GROUPS = 23,
  QNN_HTP_CONTEXT_CONFIG_OPTION_RESERVED_24 = 24,
  QNN_HTP_CONTEXT_CONFIG_OPTION_PARALLEL_WEIGHT_LOADING = 25,
  QNN_HTP_CONTEXT_CONFIG_OPTION_UNKNOWN = 0x7fffffff
} QnnHtpContext_ConfigOption_t;

/* Group membership for shared spill-fill (options 2 and 12). A NULL
 * firstGroupHandle starts a new group; otherwise it names the group's first
 * context. Only the first context's maxSpillFillBuffer (bytes) counts. */
typedef struct {
  Qnn_ContextHandle_t firstGroupHandle;
  uint64_t maxSpillFillBuffer;
} QnnHtpContext_GroupRegistration_t;

/* Memory-sharing strategy for SHARE_RESOURCES (list-async creation only).
 * The enumerators carry no QNN_ prefix, as in QNN. */
typedef enum {
  SEQUENTIAL_WITH_VA_OPTIMIZATION = 0, /* default */
  SEQUENTIAL_WITHOUT_VA_OPTIMIZATION = 1,
  CONCURRENT_OPTIMIZATION = 2
} QnnHtpContext_ShareResourcesOptimizationType_t;

typedef struct {
  bool graphSplittingEnabled;
} QnnHtpContext_GraphSplit_t;

typedef enum {
  QNN_HTP_PARALLEL_WEIGHT_LOADING_MODE_ADAPTIVE = 0, /* default */
  QNN_HTP_PARALLEL_WEIGHT_LOADING_MODE_ON = 1,
  QNN_HTP_PARALLEL_WEIGHT_LOADING_MODE_OFF = 2
} QnnHtpContext_ParallelWeightLoadingMode_t;

typedef struct {
  QnnHtpContext_ParallelWeightLoadingMode_t mode;
  uint64_t thresholdInMbOverride; /* 0 = built-in threshold (ADAPTIVE only) */
} QnnHtpContext_ParallelWeightLoading_t;

/* Graphs (NULL-terminated name list) sharing one LoRA preload buffer. */
typedef struct {
  const char** graphNames;
  uint32_t numGraphs;
} QnnHtpContext_LoraPreloadGroup_t;

typedef struct {
  const QnnHtpContext_LoraPreloadGroup_t* groups;
  uint32_t numGroups;
} QnnHtpContext_LoraPreloadBufferGroups_t;

/* Target of QnnContext_Config_t.customConfig (24 bytes on LP64). Every union
 * member sits at offset 8. */
typedef struct QnnHtpContext_CustomConfig {
  QnnHtpContext_ConfigOption_t option;
  union UNNAMED {
    bool weightSharingEnabled;                                       /* 1 */
    QnnHtpContext_GroupRegistration_t groupRegistration;             /* 2 */
    uint64_t fileReadMemoryBudgetInMb;                               /* 3 */
    bool dspMemoryProfilingEnabled;                                  /* 4 */
    bool shareResources;                                             /* 5 */
    bool ioMemEstimation;                                            /* 6 */
    bool isPrepareOnly;                                              /* 7 */
    bool initAcceleration;                                           /* 8 */
    bool skipValidationOnBinarySection;                              /* 9 */
    QnnHtpContext_ShareResourcesOptimizationType_t shareResOptType;  /* 10 */
    bool useExtendedUdma;                                            /* 11 */
    QnnHtpContext_GroupRegistration_t concurrentGroupRegistration;   /* 12 */
    bool loraWeightSharingEnabled;                                   /* 13 */
    bool loraWeightSharingRamPreloadEnabled;                         /* 16 */
    const QnnHtpContext_LoraPreloadBufferGroups_t* loraPreloadBufferGroups; /* 23 */
    uint64_t reusedIoLimitMb;                                        /* 17 */
    bool referenceWeightSharingEnabled;                              /* 18 */
    uint32_t concurrentDeserializationExtraSizeKB;                   /* 19, max 102400 */
    bool graphSplittingEnabled;                                      /* 20 */
    int concurrentDeserializationPatchFd;                            /* 21 */
    QnnHtpContext_GraphSplit_t graphSplittingConfigs;                /* 22 */
    QnnHtpContext_ParallelWeightLoading_t parallelWeightLoading;     /* 25 */
  };
} QnnHtpContext_CustomConfig_t;

#define QNN_HTP_CONTEXT_CUSTOM_CONFIG_INIT {QNN_HTP_CONTEXT_CONFIG_OPTION_UNKNOWN, {false}}

/* What QnnContext_getProperty can report for HTP. */
typedef enum {
  QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT = 1,    /* external buffer alignment */
  QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE = 2,
  QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE = 3,
  QNN_HTP_CONTEXT_GET_PROP_RESERVED_4 = 4,
  QNN_HTP_CONTEXT_GET_PROP_RESERVED_5 = 5,
  QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE = 6,
  QNN_HTP_CONTEXT_GET_PROP_RESERVED_7 = 7,
  QNN_HTP_CONTEXT_GET_PROP_UNDEFINED = 0x7fffffff
} QnnHtpContext_GetPropertyOption_t;

/* Target of QnnContext_Property_t.customProperty (16 bytes on LP64). */
typedef struct {
  QnnHtpContext_GetPropertyOption_t option;
  union UNNAMED {
    uint64_t bufferStartAlignment;
    uint64_t spillfillBufferSize;
    uint64_t weightsBufferSize;
    uint64_t vtcmBackupBufferSize;
  };
} QnnHtpContext_CustomProperty_t;

#define QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT {QNN_HTP_CONTEXT_GET_PROP_UNDEFINED, {0u}}

#ifdef __cplusplus
}
#endif

#endif /* QNN_HTP_CONTEXT_H */
