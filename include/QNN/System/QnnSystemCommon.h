/*
 * openhtp - QNN-compatible public API.
 * System/QnnSystemCommon.h: version, export macro and common errors of the
 * System library (libQnnSystem.so).
 */
#ifndef QNN_SYSTEM_COMMON_H
#define QNN_SYSTEM_COMMON_H

#include "QnnCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QNN_SYSTEM_COMMON_MIN_ERROR QNN_MIN_ERROR_SYSTEM
#define QNN_SYSTEM_COMMON_MAX_ERROR (QNN_MIN_ERROR_SYSTEM + 999)
#define QNN_SYSTEM_PROFILE_MIN_ERROR (QNN_MIN_ERROR_SYSTEM + 1000)
#define QNN_SYSTEM_PROFILE_MAX_ERROR (QNN_MIN_ERROR_SYSTEM + 1999)

typedef enum {
  QNN_SYSTEM_COMMON_NO_ERROR = QNN_SUCCESS,
  QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE = QNN_SYSTEM_COMMON_MIN_ERROR + 0,
  QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT = QNN_SYSTEM_COMMON_MIN_ERROR + 1
} QnnSystemCommon_Error_t;

#define QNN_SYSTEM_INTERFACE_PROVIDER_NAME "SYSTEM_QTI_AISW"

/* Marks the plain System API functions; exported by default. */
#ifndef QNN_SYSTEM_API
#define QNN_SYSTEM_API QNN_OPENHTP_EXPORT
#endif

/* System API version. We deliberately stay at 1.7: its interface table has
 * 16 entries whose layout we know exactly. Newer versions append many DLC /
 * record accessors (89 entries by 1.14) whose signatures we have not seen in
 * full, and one release (core 2.33) even broke the table; claiming a newer
 * minor would promise entries we cannot provide. Clients built against 1.x
 * headers with minor <= 7 accept this provider. */
#define QNN_SYSTEM_API_VERSION_MAJOR 1
#define QNN_SYSTEM_API_VERSION_MINOR 7
#define QNN_SYSTEM_API_VERSION_PATCH 0

#define QNN_SYSTEM_CONTEXT_MIN_ERROR QNN_MIN_ERROR_SYSTEM
#define QNN_SYSTEM_CONTEXT_MAX_ERROR (QNN_SYSTEM_CONTEXT_MIN_ERROR + 999)

#ifdef __cplusplus
}
#endif

#endif /* QNN_SYSTEM_COMMON_H */
