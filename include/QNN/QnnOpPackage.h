/*
 * openhtp - QNN-compatible public API.
 * QnnOpPackage.h: the interface an op-package library exposes to a backend
 * (see QnnBackend_registerOpPackage). The package hands out a
 * QnnOpPackage_Interface_t through its interface-provider function; the
 * backend-defined objects below are opaque to the package's clients.
 *
 * openhtp does not load op packages yet; this header lets package and client
 * code compile unchanged. Names, values and layout follow QNN core API 2.x
 * (stable from 2.32 through the 2.39 openhtp reports).
 */
#ifndef QNN_OP_PACKAGE_H
#define QNN_OP_PACKAGE_H

#include "QnnCommon.h"
#include "QnnLog.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of size_t words reserved at the end of QnnOpPackage_Info_t. */
#define QNN_OP_PACKAGE_RESERVED_INFO_SIZE 12

typedef Qnn_Handle_t Qnn_OpPackageHandle_t;

/* Backend-owned objects handed to the package. */
typedef struct _QnnOpPackage_GlobalInfrastructure_t* QnnOpPackage_GlobalInfrastructure_t;
typedef struct _QnnOpPackage_GraphInfrastructure_t* QnnOpPackage_GraphInfrastructure_t;
typedef struct _QnnOpPackage_Node_t* QnnOpPackage_Node_t;

/* Package-owned objects whose contents the backend defines. */
typedef struct _QnnOpPackage_OpImpl_t* QnnOpPackage_OpImpl_t;
typedef struct _QnnOpPackage_Optimization_t* QnnOpPackage_Optimization_t;
typedef struct _QnnOpPackage_OperationInfo_t* QnnOpPackage_OperationInfo_t;
/* Not a pointer: Info_t points at one of these. */
typedef struct _QnnOpPackage_PackageInfo_t QnnOpPackage_PackageInfo_t;

typedef enum {
  QNN_OP_PACKAGE_MIN_ERROR = QNN_MIN_ERROR_OP_PACKAGE,
  QNN_OP_PACKAGE_NO_ERROR = QNN_SUCCESS,
  QNN_OP_PACKAGE_ERROR_UNSUPPORTED_FEATURE = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_OP_PACKAGE_ERROR_LIBRARY_ALREADY_INITIALIZED = QNN_MIN_ERROR_OP_PACKAGE + 0,
  QNN_OP_PACKAGE_ERROR_LIBRARY_NOT_INITIALIZED = QNN_MIN_ERROR_OP_PACKAGE + 1,
  QNN_OP_PACKAGE_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_OP_PACKAGE + 2,
  QNN_OP_PACKAGE_ERROR_INVALID_INFRASTRUCTURE = QNN_MIN_ERROR_OP_PACKAGE + 100,
  QNN_OP_PACKAGE_ERROR_INVALID_INFO = QNN_MIN_ERROR_OP_PACKAGE + 101,
  QNN_OP_PACKAGE_ERROR_VALIDATION_FAILURE = QNN_MIN_ERROR_OP_PACKAGE + 110,
  QNN_OP_PACKAGE_ERROR_INVALID_ARGUMENT = QNN_MIN_ERROR_OP_PACKAGE + 200,
  QNN_OP_PACKAGE_ERROR_GENERAL = QNN_COMMON_ERROR_GENERAL,
  QNN_OP_PACKAGE_MAX_ERROR = QNN_MAX_ERROR_OP_PACKAGE,
  QNN_OP_PACKAGE_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnOpPackage_Error_t;

/* What a package provides; returned by QnnOpPackage_GetInfoFn_t and owned by
 * the package until it is terminated / freed. */
typedef struct {
  const char* packageName;                        /* required, non-empty */
  const char** operationNames;                    /* numOperations entries */
  const QnnOpPackage_OperationInfo_t* operationInfo; /* optional, numOperations entries */
  uint32_t numOperations;
  const QnnOpPackage_Optimization_t* optimizations; /* optional */
  uint32_t numOptimizations;
  const char* sdkBuildId;                 /* optional: QNN_SDK_BUILD_ID built against */
  const Qnn_ApiVersion_t* sdkApiVersion;  /* optional */
  const QnnOpPackage_PackageInfo_t* packageInfo; /* optional */
  const Qnn_Version_t* opsetVersion;
  size_t reserved[QNN_OP_PACKAGE_RESERVED_INFO_SIZE]; /* must be zero */
} QnnOpPackage_Info_t;

#define QNN_OP_PACKAGE_INFO_INIT \
  {NULL, NULL, NULL, 0u, NULL, 0u, NULL, NULL, NULL, NULL, {0u}}

/* ---- interface 1.4: one package per library, global state ---- */
typedef Qnn_ErrorHandle_t (*QnnOpPackage_InitFn_t)(
    QnnOpPackage_GlobalInfrastructure_t infrastructure);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_TerminateFn_t)(void);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_GetInfoFn_t)(const QnnOpPackage_Info_t** info);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_ValidateOpConfigFn_t)(Qnn_OpConfig_t opConfig);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_CreateOpImplFn_t)(
    QnnOpPackage_GraphInfrastructure_t graphInfrastructure, QnnOpPackage_Node_t node,
    QnnOpPackage_OpImpl_t* opImpl);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_FreeOpImplFn_t)(QnnOpPackage_OpImpl_t opImpl);
/* Same meaning as QnnLog_create / QnnLog_setLogLevel / QnnLog_free. */
typedef Qnn_ErrorHandle_t (*QnnOpPackage_LogInitializeFn_t)(QnnLog_Callback_t callback,
                                                            QnnLog_Level_t maxLogLevel);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_LogSetLevelFn_t)(QnnLog_Level_t maxLogLevel);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_LogTerminateFn_t)(void);

/* ---- interface 2.0: per-handle state ---- */
typedef Qnn_ErrorHandle_t (*QnnOpPackage_CreateFn_t)(
    QnnOpPackage_GlobalInfrastructure_t infrastructure, QnnLog_Callback_t callback,
    QnnLog_Level_t maxLogLevel, Qnn_OpPackageHandle_t* opPackage);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_ValidateOpConfigHandleFn_t)(
    Qnn_OpPackageHandle_t opPackage, Qnn_OpConfig_t opConfig);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_CreateOpImplHandleFn_t)(
    Qnn_OpPackageHandle_t opPackage, QnnOpPackage_GraphInfrastructure_t graphInfrastructure,
    QnnOpPackage_Node_t node, QnnOpPackage_OpImpl_t* opImpl);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_FreeOpImplHandleFn_t)(Qnn_OpPackageHandle_t opPackage,
                                                               QnnOpPackage_OpImpl_t opImpl);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_LogSetLevelHandleFn_t)(Qnn_OpPackageHandle_t opPackage,
                                                                QnnLog_Level_t maxLogLevel);
typedef Qnn_ErrorHandle_t (*QnnOpPackage_FreeFn_t)(Qnn_OpPackageHandle_t opPackage);

#define QNN_OP_PACKAGE_API_VERSION_1_4_0 {1u, 4u, 0u}

typedef struct {
  QnnOpPackage_InitFn_t init;
  QnnOpPackage_TerminateFn_t terminate;
  QnnOpPackage_GetInfoFn_t getInfo;
  QnnOpPackage_ValidateOpConfigFn_t validateOpConfig;
  QnnOpPackage_CreateOpImplFn_t createOpImpl;
  QnnOpPackage_FreeOpImplFn_t freeOpImpl;
  QnnOpPackage_LogInitializeFn_t logInitialize;
  QnnOpPackage_LogSetLevelFn_t logSetLevel;
  QnnOpPackage_LogTerminateFn_t logTerminate;
} QnnOpPackage_ImplementationV1_4_t;

#define QNN_OP_PACKAGE_IMPLEMENTATION_V1_4_INIT \
  {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}

#define QNN_OP_PACKAGE_API_VERSION_2_0_0 {2u, 0u, 0u}

typedef struct {
  QnnOpPackage_CreateFn_t create;
  QnnOpPackage_GetInfoFn_t getInfo;
  QnnOpPackage_ValidateOpConfigHandleFn_t validateOpConfig;
  QnnOpPackage_CreateOpImplHandleFn_t createOpImpl;
  QnnOpPackage_FreeOpImplHandleFn_t freeOpImpl;
  QnnOpPackage_LogSetLevelHandleFn_t logSetLevel;
  QnnOpPackage_FreeFn_t free;
} QnnOpPackage_ImplementationV2_0_t;

#define QNN_OP_PACKAGE_IMPLEMENTATION_V2_0_INIT {NULL, NULL, NULL, NULL, NULL, NULL, NULL}

/* interfaceVersion selects the union member (1.x -> v1_4, 2.x -> v2_0). */
typedef struct {
  Qnn_Version_t interfaceVersion;
  union UNNAMED {
    QnnOpPackage_ImplementationV1_4_t v1_4;
    QnnOpPackage_ImplementationV2_0_t v2_0;
  };
} QnnOpPackage_Interface_t;

#define QNN_OP_PACKAGE_INTERFACE_INIT \
  {QNN_OP_PACKAGE_API_VERSION_1_4_0, {QNN_OP_PACKAGE_IMPLEMENTATION_V1_4_INIT}}

/* The package's exported entry point; its symbol name is the package's
 * choice and is passed as interfaceProvider at registration. */
typedef Qnn_ErrorHandle_t (*QnnOpPackage_InterfaceProvider_t)(QnnOpPackage_Interface_t* intface_);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QNN_OP_PACKAGE_H */
