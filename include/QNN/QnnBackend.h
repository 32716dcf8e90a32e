/*
 * openhtp - QNN-compatible public API.
 * QnnBackend.h: backend creation, op package registration, backend configs.
 */
#ifndef QNN_BACKEND_H
#define QNN_BACKEND_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_BACKEND_MIN_ERROR = QNN_MIN_ERROR_BACKEND,
  QNN_BACKEND_NO_ERROR = QNN_SUCCESS,
  QNN_BACKEND_ERROR_MEM_ALLOC = QNN_COMMON_ERROR_MEM_ALLOC,
  QNN_BACKEND_ERROR_UNSUPPORTED_PLATFORM = QNN_COMMON_ERROR_PLATFORM_NOT_SUPPORTED,
  QNN_BACKEND_ERROR_CANNOT_INITIALIZE = QNN_MIN_ERROR_BACKEND + 0,
  QNN_BACKEND_ERROR_TERMINATE_FAILED = QNN_MIN_ERROR_BACKEND + 2,
  QNN_BACKEND_ERROR_NOT_SUPPORTED = QNN_MIN_ERROR_BACKEND + 3,
  QNN_BACKEND_ERROR_INVALID_ARGUMENT = QNN_MIN_ERROR_BACKEND + 4,
  QNN_BACKEND_ERROR_OP_PACKAGE_NOT_FOUND = QNN_MIN_ERROR_BACKEND + 5,
  QNN_BACKEND_ERROR_OP_PACKAGE_IF_PROVIDER_NOT_FOUND = QNN_MIN_ERROR_BACKEND + 6,
  QNN_BACKEND_ERROR_OP_PACKAGE_REGISTRATION_FAILED = QNN_MIN_ERROR_BACKEND + 7,
  QNN_BACKEND_ERROR_OP_PACKAGE_UNSUPPORTED_VERSION = QNN_MIN_ERROR_BACKEND + 8,
  QNN_BACKEND_ERROR_OP_PACKAGE_DUPLICATE = QNN_MIN_ERROR_BACKEND + 9,
  QNN_BACKEND_ERROR_INCONSISTENT_CONFIG = QNN_MIN_ERROR_BACKEND + 10,
  QNN_BACKEND_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_BACKEND + 11,
  QNN_BACKEND_ERROR_INVALID_CONFIG = QNN_MIN_ERROR_BACKEND + 12,
  QNN_BACKEND_MAX_ERROR = QNN_MAX_ERROR_BACKEND,
  QNN_BACKEND_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnBackend_Error_t;

typedef void* QnnBackend_CustomConfig_t;

typedef enum {
  QNN_BACKEND_CONFIG_OPTION_CUSTOM = 0,
  QNN_BACKEND_CONFIG_OPTION_ERROR_REPORTING = 1,
  QNN_BACKEND_CONFIG_OPTION_PLATFORM = 2, /* "key=value" string, up to 1024 chars */
  QNN_BACKEND_CONFIG_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnBackend_ConfigOption_t;

typedef struct {
  QnnBackend_ConfigOption_t option;
  union UNNAMED {
    QnnBackend_CustomConfig_t customConfig;
    Qnn_ErrorReportingConfig_t errorConfig;
    const char* platformOption;
  };
} QnnBackend_Config_t;

#define QNN_BACKEND_CONFIG_INIT {QNN_BACKEND_CONFIG_OPTION_UNDEFINED, {NULL}}

/* Fully qualified op name. target may be NULL. */
typedef struct {
  const char* packageName;
  const char* name;
  const char* target;
} QnnBackend_OperationName_t;

#define QNN_BACKEND_OPERATION_NAME_INIT {NULL, NULL, NULL}

typedef enum {
  QNN_BACKEND_PROPERTY_OPTION_CUSTOM = 0,
  QNN_BACKEND_PROPERTY_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnBackend_PropertyOption_t;

typedef void* QnnBackend_CustomProperty_t;

/* The client sets option; the backend fills the rest. */
typedef struct {
  QnnBackend_PropertyOption_t option;
  union UNNAMED {
    QnnBackend_CustomProperty_t customProperty;
  };
} QnnBackend_Property_t;

#define QNN_BACKEND_PROPERTY_INIT {QNN_BACKEND_PROPERTY_OPTION_UNDEFINED, {NULL}}

/* Config arrays are NULL-terminated; NULL means defaults; when an option is
 * repeated the last one wins. */
QNN_API
Qnn_ErrorHandle_t QnnBackend_create(Qnn_LogHandle_t logger, const QnnBackend_Config_t** config,
                                    Qnn_BackendHandle_t* backend);

QNN_API
Qnn_ErrorHandle_t QnnBackend_setConfig(Qnn_BackendHandle_t backend,
                                       const QnnBackend_Config_t** config);

/* Callable without a backend. */
QNN_API
Qnn_ErrorHandle_t QnnBackend_getApiVersion(Qnn_ApiVersion_t* pVersion);

/* Callable without a backend. */
QNN_API
Qnn_ErrorHandle_t QnnBackend_getBuildId(const char** id);

QNN_API
Qnn_ErrorHandle_t QnnBackend_registerOpPackage(Qnn_BackendHandle_t backend, const char* packagePath,
                                               const char* interfaceProvider, const char* target);

/* Same as QnnBackend_registerOpPackage but the package comes from memory. */
QNN_API
Qnn_ErrorHandle_t QnnBackend_registerOpPackageFromBinary(Qnn_BackendHandle_t backend,
                                                         const void* opPackageBuffer,
                                                         uint64_t opPackageBufferSize,
                                                         const char* interfaceProvider,
                                                         const char* target);

/* The returned array is owned by the backend until QnnBackend_free. */
QNN_API
Qnn_ErrorHandle_t QnnBackend_getSupportedOperations(Qnn_BackendHandle_t backend,
                                                    uint32_t* numOperations,
                                                    const QnnBackend_OperationName_t** operations);

QNN_API
Qnn_ErrorHandle_t QnnBackend_validateOpConfig(Qnn_BackendHandle_t backend, Qnn_OpConfig_t opConfig);

/* properties: NULL-terminated, client owned. */
QNN_API
Qnn_ErrorHandle_t QnnBackend_getProperty(Qnn_BackendHandle_t backendHandle,
                                         QnnBackend_Property_t** properties);

QNN_API
Qnn_ErrorHandle_t QnnBackend_free(Qnn_BackendHandle_t backend);

#ifdef __cplusplus
}
#endif

#endif /* QNN_BACKEND_H */
