/*
 * openhtp - QNN-compatible public API.
 * QnnGraph.h: composing, finalizing and executing graphs inside a context.
 */
#ifndef QNN_GRAPH_H
#define QNN_GRAPH_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_GRAPH_MIN_ERROR = QNN_MIN_ERROR_GRAPH,
  QNN_GRAPH_NO_ERROR = QNN_SUCCESS,
  QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_GRAPH_ERROR_MEM_ALLOC = QNN_COMMON_ERROR_MEM_ALLOC,
  QNN_GRAPH_ERROR_GENERAL = QNN_COMMON_ERROR_GENERAL,
  QNN_GRAPH_ERROR_INVALID_ARGUMENT = QNN_MIN_ERROR_GRAPH + 0,
  QNN_GRAPH_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_GRAPH + 1,
  QNN_GRAPH_ERROR_GRAPH_DOES_NOT_EXIST = QNN_MIN_ERROR_GRAPH + 2,
  QNN_GRAPH_ERROR_INVALID_NAME = QNN_MIN_ERROR_GRAPH + 3,
  QNN_GRAPH_ERROR_INVALID_TENSOR = QNN_MIN_ERROR_GRAPH + 4,
  QNN_GRAPH_ERROR_INVALID_OP_CONFIG = QNN_MIN_ERROR_GRAPH + 5,
  QNN_GRAPH_ERROR_SET_PROFILE = QNN_MIN_ERROR_GRAPH + 6,
  QNN_GRAPH_ERROR_UNCONNECTED_NODE = QNN_MIN_ERROR_GRAPH + 7,
  QNN_GRAPH_ERROR_CREATE_FAILED = QNN_MIN_ERROR_GRAPH + 20,
  QNN_GRAPH_ERROR_OPTIMIZATION_FAILED = QNN_MIN_ERROR_GRAPH + 21,
  QNN_GRAPH_ERROR_FINALIZE_FAILED = QNN_MIN_ERROR_GRAPH + 22,
  QNN_GRAPH_ERROR_GRAPH_NOT_FINALIZED = QNN_MIN_ERROR_GRAPH + 23,
  QNN_GRAPH_ERROR_GRAPH_FINALIZED = QNN_MIN_ERROR_GRAPH + 24,
  QNN_GRAPH_ERROR_EXECUTION_ASYNC_FIFO_FULL = QNN_MIN_ERROR_GRAPH + 25,
  QNN_GRAPH_ERROR_SIGNAL_IN_USE = QNN_MIN_ERROR_GRAPH + 30,
  QNN_GRAPH_ERROR_ABORTED = QNN_MIN_ERROR_GRAPH + 31,
  QNN_GRAPH_ERROR_PROFILE_IN_USE = QNN_MIN_ERROR_GRAPH + 32,
  QNN_GRAPH_ERROR_TIMED_OUT = QNN_MIN_ERROR_GRAPH + 33,
  QNN_GRAPH_ERROR_SUBGRAPH = QNN_MIN_ERROR_GRAPH + 34,
  QNN_GRAPH_ERROR_DISABLED = QNN_MIN_ERROR_GRAPH + 35,
  QNN_GRAPH_ERROR_DYNAMIC_TENSOR_SHAPE = QNN_MIN_ERROR_GRAPH + 36,
  QNN_GRAPH_ERROR_TENSOR_SPARSITY = QNN_MIN_ERROR_GRAPH + 37,
  QNN_GRAPH_ERROR_EARLY_TERMINATION = QNN_MIN_ERROR_GRAPH + 38,
  QNN_GRAPH_ERROR_INVALID_CONTEXT = QNN_MIN_ERROR_GRAPH + 39,
  QNN_GRAPH_ERROR_CYCLE_DETECTED = QNN_MIN_ERROR_GRAPH + 40,
  QNN_GRAPH_MAX_ERROR = QNN_MAX_ERROR_GRAPH,
  QNN_GRAPH_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnGraph_Error_t;

/* Values 1 and 2 are unused. */
typedef enum {
  QNN_GRAPH_CONFIG_OPTION_CUSTOM = 0,
  QNN_GRAPH_CONFIG_OPTION_PRIORITY = 3,
  QNN_GRAPH_CONFIG_OPTION_PROFILE_HANDLE = 4,
  QNN_GRAPH_CONFIG_OPTION_SET_PROFILING_STATE = 5,
  QNN_GRAPH_CONFIG_OPTION_SET_PROFILING_NUM_EXECUTIONS = 6,
  QNN_GRAPH_CONFIG_OPTION_ENABLE_BINARY_SECTION_WEIGHTS_UPDATES = 7,
  QNN_GRAPH_CONFIG_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnGraph_ConfigOption_t;

/* For HTP this points to a QnnHtpGraph_CustomConfig_t. */
typedef void* QnnGraph_CustomConfig_t;

typedef enum {
  QNN_GRAPH_PROFILING_STATE_ENABLED = 1,
  QNN_GRAPH_PROFILING_STATE_DISABLED = 2,
  QNN_GRAPH_PROFILING_STATE_UNDEFINED = 0x7FFFFFFF
} QnnGraph_ProfilingState_t;

typedef struct {
  QnnGraph_ConfigOption_t option;
  union UNNAMED {
    QnnGraph_CustomConfig_t customConfig;
    Qnn_Priority_t priority;
    Qnn_ProfileHandle_t profileHandle;
    QnnGraph_ProfilingState_t profilingState;
    uint32_t numProfilingExecutions;
    uint8_t enableBinarySectionWeightsUpdates;
  };
} QnnGraph_Config_t;

#define QNN_GRAPH_CONFIG_INIT {QNN_GRAPH_CONFIG_OPTION_UNDEFINED, {NULL}}

typedef enum {
  QNN_GRAPH_PROPERTY_OPTION_CUSTOM = 0,
  QNN_GRAPH_PROPERTY_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnGraph_PropertyOption_t;

typedef void* QnnGraph_CustomProperty_t;

typedef struct {
  QnnGraph_PropertyOption_t option;
  union UNNAMED {
    QnnGraph_CustomProperty_t customProperty;
  };
} QnnGraph_Property_t;

#define QNN_GRAPH_PROPERTY_INIT {QNN_GRAPH_PROPERTY_OPTION_UNDEFINED, {NULL}}

typedef enum {
  QNN_GRAPH_EXECUTE_ENVIRONMENT_OPTION_BIND_MEM_HANDLES = 0,
  QNN_GRAPH_EXECUTE_ENVIRONMENT_OPTION_POPULATE_CLIENT_BUFS = 1,
  QNN_GRAPH_EXECUTE_ENVIRONMENT_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnGraph_ExecuteEnvironmentOption_t;

/* Owned by the client. */
typedef struct {
  QnnGraph_ExecuteEnvironmentOption_t option;
  union UNNAMED {
    Qnn_TensorSet_t tensorSet;
  };
} QnnGraph_ExecuteEnvironment_t;

typedef enum {
  QNN_GRAPH_VALIDATE_OPTION_CUSTOM = 0,
  QNN_GRAPH_VALIDATE_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnGraph_ValidateOption_t;

typedef void* QnnGraph_CustomValidateConfig_t;

typedef struct {
  QnnGraph_ValidateOption_t option;
  union UNNAMED {
    QnnGraph_CustomValidateConfig_t customConfig;
  };
} QnnGraph_ValidateConfig_t;

#define QNN_GRAPH_VALIDATE_CONFIG_INIT {QNN_GRAPH_VALIDATE_OPTION_UNDEFINED, {NULL}}

typedef enum {
  QNN_GRAPH_NODE_VALIDATION_STATUS_SUPPORTED = 0,
  QNN_GRAPH_NODE_VALIDATION_STATUS_UNSUPPORTED = 1,
  QNN_GRAPH_NODE_VALIDATION_STATUS_UNDEFINED = 0x7FFFFFFF
} QnnGraph_NodeValidationStatus_t;

/* Strings are backend owned. */
typedef struct {
  const char* nodeName;
  QnnGraph_NodeValidationStatus_t status;
  Qnn_ErrorHandle_t errorCode;
  const char* errorMessage;
} QnnGraph_NodeValidationResult_t;

typedef struct {
  uint32_t numResults;
  const QnnGraph_NodeValidationResult_t* results;
  Qnn_ErrorHandle_t overallStatus;
} QnnGraph_ValidationResult_t;

/* Passed by value to Qnn_NotifyFn_t. */
typedef struct {
  Qnn_ErrorHandle_t error;
} Qnn_NotifyStatus_t;

#define QNN_NOTIFY_STATUS_INIT {0u}

/* Completion callback of QnnGraph_executeAsync. */
typedef void (*Qnn_NotifyFn_t)(void* notifyParam, Qnn_NotifyStatus_t notifyStatus);

QNN_API
Qnn_ErrorHandle_t QnnGraph_create(Qnn_ContextHandle_t contextHandle, const char* graphName,
                                  const QnnGraph_Config_t** config, Qnn_GraphHandle_t* graphHandle);

QNN_API
Qnn_ErrorHandle_t QnnGraph_createSubgraph(Qnn_GraphHandle_t graphHandle, const char* graphName,
                                          Qnn_GraphHandle_t* subgraphHandle);

QNN_API
Qnn_ErrorHandle_t QnnGraph_setConfig(Qnn_GraphHandle_t graphHandle,
                                     const QnnGraph_Config_t** config);

QNN_API
Qnn_ErrorHandle_t QnnGraph_getProperty(Qnn_GraphHandle_t graphHandle,
                                       QnnGraph_Property_t** properties);

/* Nodes must be added in dependency order. */
QNN_API
Qnn_ErrorHandle_t QnnGraph_addNode(Qnn_GraphHandle_t graphHandle, Qnn_OpConfig_t opConfig);

QNN_API
Qnn_ErrorHandle_t QnnGraph_finalize(Qnn_GraphHandle_t graphHandle, Qnn_ProfileHandle_t profileHandle,
                                    Qnn_SignalHandle_t signalHandle);

/* Look up a graph by name (e.g. after QnnContext_createFromBinary). */
QNN_API
Qnn_ErrorHandle_t QnnGraph_retrieve(Qnn_ContextHandle_t contextHandle, const char* graphName,
                                    Qnn_GraphHandle_t* graphHandle);

QNN_API
Qnn_ErrorHandle_t QnnGraph_prepareExecutionEnvironment(Qnn_GraphHandle_t graphHandle,
                                                       QnnGraph_ExecuteEnvironment_t** envs,
                                                       uint32_t envSize);

QNN_API
Qnn_ErrorHandle_t QnnGraph_execute(Qnn_GraphHandle_t graphHandle, const Qnn_Tensor_t* inputs,
                                   uint32_t numInputs, Qnn_Tensor_t* outputs, uint32_t numOutputs,
                                   Qnn_ProfileHandle_t profileHandle,
                                   Qnn_SignalHandle_t signalHandle);

QNN_API
Qnn_ErrorHandle_t QnnGraph_executeAsync(Qnn_GraphHandle_t graphHandle, const Qnn_Tensor_t* inputs,
                                        uint32_t numInputs, Qnn_Tensor_t* outputs,
                                        uint32_t numOutputs, Qnn_ProfileHandle_t profileHandle,
                                        Qnn_SignalHandle_t signalHandle, Qnn_NotifyFn_t notifyFn,
                                        void* notifyParam);

QNN_API
Qnn_ErrorHandle_t QnnGraph_releaseExecutionEnvironment(Qnn_GraphHandle_t graphHandle,
                                                       const QnnGraph_ExecuteEnvironment_t** envs,
                                                       uint32_t envSize);

/* Per-node support check of a composed graph; free the result with
 * QnnGraph_freeValidationResult. */
QNN_API
Qnn_ErrorHandle_t QnnGraph_validate(Qnn_GraphHandle_t graphHandle,
                                    const QnnGraph_ValidateConfig_t** config,
                                    QnnGraph_ValidationResult_t** validationResult);

QNN_API
Qnn_ErrorHandle_t QnnGraph_freeValidationResult(QnnGraph_ValidationResult_t* validationResult);

#ifdef __cplusplus
}
#endif

#endif /* QNN_GRAPH_H */
