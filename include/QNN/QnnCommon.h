/*
 * openhtp - QNN-compatible public API.
 * QnnCommon.h: version numbers, error-code ranges, handle types and the
 * export macro shared by every other header.
 */
#ifndef QNN_COMMON_H
#define QNN_COMMON_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Attribute that makes a symbol visible even when the library is built with
 * -fvisibility=hidden. */
#ifndef QNN_OPENHTP_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define QNN_OPENHTP_EXPORT __attribute__((visibility("default")))
#else
#define QNN_OPENHTP_EXPORT
#endif
#endif

/* Marks every public C entry point. A client may pre-define it. */
#ifndef QNN_API
#define QNN_API QNN_OPENHTP_EXPORT
#endif

/* Only used by documentation tools; unions it marks are anonymous. */
#define UNNAMED

/* Core API version of these headers. 2.39 is the newest known layout of the
 * interface table (75 entries). */
#define QNN_API_VERSION_MAJOR 2
#define QNN_API_VERSION_MINOR 39
#define QNN_API_VERSION_PATCH 0

/* Backend identifiers. Each backend header defines its own, e.g.
 * QNN_BACKEND_ID_HTP (6) in HTP/QnnHtpCommon.h. */
#define QNN_BACKEND_ID_NULL 0

#define QNN_SUCCESS 0

/* Error code ranges per API component. */
#define QNN_MIN_ERROR_COMMON 1000
#define QNN_MAX_ERROR_COMMON 1999
#define QNN_MIN_ERROR_PROPERTY 2000
#define QNN_MAX_ERROR_PROPERTY 2999
#define QNN_MIN_ERROR_OP_PACKAGE 3000
#define QNN_MAX_ERROR_OP_PACKAGE 3999
#define QNN_MIN_ERROR_BACKEND 4000
#define QNN_MIN_ERROR_BACKEND_SAVER 4950
#define QNN_MAX_ERROR_BACKEND_SAVER 4998
#define QNN_MAX_ERROR_BACKEND 4999
#define QNN_MIN_ERROR_CONTEXT 5000
#define QNN_MAX_ERROR_CONTEXT 5999
#define QNN_MIN_ERROR_GRAPH 6000
#define QNN_MAX_ERROR_GRAPH 6999
#define QNN_MIN_ERROR_TENSOR 7000
#define QNN_MAX_ERROR_TENSOR 7999
#define QNN_MIN_ERROR_MEM 8000
#define QNN_MAX_ERROR_MEM 8999
#define QNN_MIN_ERROR_SIGNAL 9000
#define QNN_MAX_ERROR_SIGNAL 9999
#define QNN_MIN_ERROR_ERROR 10000
#define QNN_MAX_ERROR_ERROR 10999
#define QNN_MIN_ERROR_LOG 11000
#define QNN_MAX_ERROR_LOG 11999
#define QNN_MIN_ERROR_PROFILE 12000
#define QNN_MAX_ERROR_PROFILE 12999
#define QNN_MIN_ERROR_PERF_INFRASTRUCTURE 13000
#define QNN_MAX_ERROR_PERF_INFRASTRUCTURE 13999
#define QNN_MIN_ERROR_DEVICE 14000
#define QNN_MAX_ERROR_DEVICE 14999
#define QNN_MIN_ERROR_GLOBAL_CONFIG 15000
#define QNN_MAX_ERROR_GLOBAL_CONFIG 15999
#define QNN_MIN_ERROR_SYSTEM 30000
#define QNN_MAX_ERROR_SYSTEM 49999
#define QNN_MIN_ERROR_INTERFACE 60000
#define QNN_MAX_ERROR_INTERFACE 60999

/* Glues three tokens together (after expanding them). */
#define QNN_PASTE_THREE(a, b, c) a##b##c

/* The error code proper lives in the low 16 bits of a Qnn_ErrorHandle_t. */
#define QNN_GET_ERROR_CODE(errorHandle) ((errorHandle) & 0xFFFF)

/* Return type of every API call; see QNN_GET_ERROR_CODE. */
typedef uint64_t Qnn_ErrorHandle_t;

/* Opaque handles. */
typedef void* Qnn_Handle_t;
typedef Qnn_Handle_t Qnn_BackendHandle_t;
typedef Qnn_Handle_t Qnn_ContextHandle_t;
typedef Qnn_Handle_t Qnn_DeviceHandle_t;
typedef Qnn_Handle_t Qnn_GraphHandle_t;
typedef Qnn_Handle_t Qnn_LogHandle_t;
typedef Qnn_Handle_t Qnn_MemHandle_t;
typedef Qnn_Handle_t Qnn_ProfileHandle_t;
/* A signal may be attached to one call at a time. */
typedef Qnn_Handle_t Qnn_SignalHandle_t;
/* DLC container handle (System API); needed by QnnContext_addToDlc. */
typedef Qnn_Handle_t QnnSystemDlc_Handle_t;

/* Codes shared by all components. */
typedef enum {
  QNN_COMMON_MIN_ERROR = QNN_MIN_ERROR_COMMON,
  QNN_COMMON_ERROR_NOT_SUPPORTED = QNN_MIN_ERROR_COMMON + 0,
  QNN_COMMON_ERROR_MEM_ALLOC = QNN_MIN_ERROR_COMMON + 2,
  QNN_COMMON_ERROR_SYSTEM = QNN_MIN_ERROR_COMMON + 3,
  QNN_COMMON_ERROR_INVALID_ARGUMENT = QNN_MIN_ERROR_COMMON + 4,
  QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED = QNN_MIN_ERROR_COMMON + 5,
  QNN_COMMON_ERROR_PLATFORM_NOT_SUPPORTED = QNN_MIN_ERROR_COMMON + 6,
  /* DSP subsystem restarted and recovered. */
  QNN_COMMON_ERROR_SYSTEM_COMMUNICATION = QNN_MIN_ERROR_COMMON + 7,
  QNN_COMMON_ERROR_INCOMPATIBLE_BINARIES = QNN_MIN_ERROR_COMMON + 8,
  QNN_COMMON_ERROR_LOADING_BINARIES = QNN_MIN_ERROR_COMMON + 9,
  QNN_COMMON_ERROR_RESOURCE_UNAVAILABLE = QNN_MIN_ERROR_COMMON + 10,
  /* DSP subsystem restarted and did not recover. */
  QNN_COMMON_ERROR_SYSTEM_COMMUNICATION_FATAL = QNN_MIN_ERROR_COMMON + 11,
  QNN_COMMON_ERROR_GENERAL = QNN_MIN_ERROR_COMMON + 100,
  QNN_COMMON_MAX_ERROR = QNN_MAX_ERROR_COMMON,
  QNN_COMMON_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnCommon_Error_t;

#ifdef __cplusplus
}
#endif

#endif /* QNN_COMMON_H */
