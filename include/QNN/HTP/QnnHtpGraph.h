/*
 * openhtp - QNN-compatible public API.
 * HTP/QnnHtpGraph.h: HTP graph custom configs (target of
 * QnnGraph_Config_t.customConfig).
 */
#ifndef QNN_HTP_GRAPH_H
#define QNN_HTP_GRAPH_H

#include "QnnGraph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "Use the maximum available" (VTCM size). */
#define QNN_HTP_GRAPH_CONFIG_OPTION_MAX 0

typedef enum {
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_SCHEDULE_THRESHOLD = 1,
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_FINALIZE_RETRIES = 2,
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_FINALIZE_OPTIMIZATION_FLAG = 3, /* the "O" level */
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_ENABLE_DLBC = 4,
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_ENABLE_DLBC_WEIGHTS = 5,
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_ENABLE_SPARSE_WEIGHTS_COMPRESSION = 6,
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_ENABLE_SLC_ALLOCATOR = 7,
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_ENABLE_VTCM_RETENTION = 8,
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_ENABLE_CACHED_WEIGHTS = 9,
  QNN_HTP_GRAPH_OPTIMIZATION_TYPE_UNKNOWN = 0x7fffffff
} QnnHtpGraph_OptimizationType_t;

typedef struct {
  QnnHtpGraph_OptimizationType_t type;
  float floatValue;
} QnnHtpGraph_OptimizationOption_t;

#define QNN_HTP_GRAPH_OPTIMIZATION_OPTION_INIT {QNN_HTP_GRAPH_OPTIMIZATION_TYPE_UNKNOWN, 0.0f}

/* VTCM window of one graph when several graphs share VTCM. */
typedef struct {
  uint32_t sizeInBytes;      /* this graph's share */
  uint32_t offsetInBytes;    /* start inside the addressable part */
  uint32_t sizeTotalInBytes; /* addressable part of VTCM */
  uint32_t reserved[3];      /* set to 0 */
} QnnHtpGraph_VtcmConfig_t;

typedef enum {
  QNN_HTP_GRAPH_CONCURRENCY_OPTION_NONE = 0,
  QNN_HTP_GRAPH_CONCURRENCY_OPTION_DEFAULT = QNN_HTP_GRAPH_CONCURRENCY_OPTION_NONE,
  QNN_HTP_GRAPH_CONCURRENCY_OPTION_ALL_SHARED = 1,
  QNN_HTP_GRAPH_CONCURRENCY_OPTION_UNKNOWN = 0x7fffffff
} QnnHtpGraph_ConcurrencyOption_t;

/* Deprecated. */
typedef struct {
  QnnHtpGraph_ConcurrencyOption_t concurrency;
  QnnHtpGraph_VtcmConfig_t vtcmConfig;
  uint32_t reserved[4]; /* set to 0 */
} QnnHtpGraph_ParallelGraphExecutionConfig_t;

/* HMX op bounding targets (V81 and later). */
typedef struct QnnHtp_HmxBoundingInfo {
  float targetHmxFreqHz;
  float targetDspCoreFreq;
} QnnHtp_HmxBoundingInfo_t;

typedef enum {
  QNN_HTP_GRAPH_CONFIG_OPTION_OPTIMIZATION = 1,
  QNN_HTP_GRAPH_CONFIG_OPTION_PRECISION = 2,
  QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_MB = 3,
  QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE = QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_MB,
  QNN_HTP_GRAPH_CONFIG_OPTION_FOLD_RELU_ACTIVATION_INTO_CONV_OFF = 4,
  QNN_HTP_GRAPH_CONFIG_OPTION_SHORT_DEPTH_CONV_ON_HMX_OFF = 5,
  QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS = 6, /* only before the first execute */
  QNN_HTP_GRAPH_CONFIG_OPTION_FINALIZE_CONFIG = 7,
  QNN_HTP_GRAPH_CONFIG_OPTION_NUM_CORES = 8,
  QNN_HTP_GRAPH_CONFIG_OPTION_PARALLEL_GRAPH_EXECUTION_CONFIG = 9, /* deprecated */
  QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES = 10,
  QNN_HTP_GRAPH_CONFIG_OPTION_HMX_BOUNDING = 11,
  QNN_HTP_GRAPH_CONFIG_OPTION_WEIGHTS_PACKING = 12,
  QNN_HTP_GRAPH_CONFIG_OPTION_ASSUME_SAME_QUANT = 13,
  QNN_HTP_GRAPH_CONFIG_OPTION_SHARE_IO_BUFFER = 14,
  QNN_HTP_GRAPH_CONFIG_OPTION_ADVANCED_ACTIVATION_FUSION = 15,
  QNN_HTP_GRAPH_CONFIG_OPTION_HIGH_PRECISION_SIGMOID = 16,
  QNN_HTP_GRAPH_CONFIG_OPTION_MONOLITHIC_LSTM = 17,
  QNN_HTP_GRAPH_CONFIG_OPTION_PRECISION_COMPENSATION = 18,
  QNN_HTP_GRAPH_CONFIG_OPTION_ENABLE_PREDICATION = 19,
  QNN_HTP_GRAPH_CONFIG_OPTION_FP16_CLAMP_OVERFLOW = 20,
  QNN_HTP_GRAPH_CONFIG_OPTION_RESERVED = 0x7fff0000,
  QNN_HTP_GRAPH_CONFIG_OPTION_UNKNOWN = 0x7fffffff
} QnnHtpGraph_ConfigOption_t;

/* Key / value finalize setting. */
typedef struct {
  const char* key;
  Qnn_Scalar_t value;
} QnnHtpGraph_FinalizeConfig_t;

/* 56 bytes on LP64. */
typedef struct {
  QnnHtpGraph_ConfigOption_t option;
  union {
    QnnHtpGraph_OptimizationOption_t optimizationOption;
    Qnn_Precision_t precision;
    uint32_t vtcmSizeInMB;
    bool foldReluActivationIntoConvOff;
    bool shortDepthConvOnHmxOff;
    uint64_t numHvxThreads;
    void* reserved;
    QnnHtpGraph_FinalizeConfig_t finalizeConfig;
    uint32_t numCores;
    QnnHtpGraph_ParallelGraphExecutionConfig_t parallelGraphExecutionConfig;
    uint32_t vtcmSizeInBytes;
    QnnHtp_HmxBoundingInfo_t hmxBoundingInfo;
    bool weightsPacking;
    bool assumeSameQuant;
    bool shareIOBuffer;
    bool advancedActivationFusion;
    bool highPrecisionSigmoid;
    bool monolithicLstm;
    bool precisionCompensation;
    bool enablePredication;
    bool fp16ClampOverflow;
  };
} QnnHtpGraph_CustomConfig_t;

#define QNN_HTP_GRAPH_CUSTOM_CONFIG_INIT \
  {QNN_HTP_GRAPH_CONFIG_OPTION_UNKNOWN, {QNN_HTP_GRAPH_OPTIMIZATION_OPTION_INIT}}

#ifdef __cplusplus
}
#endif

#endif /* QNN_HTP_GRAPH_H */
