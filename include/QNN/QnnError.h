/*
 * openhtp - QNN-compatible public API.
 * QnnError.h: turning error handles into text.
 */
#ifndef QNN_ERROR_H
#define QNN_ERROR_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_ERROR_MIN_ERROR = QNN_MIN_ERROR_ERROR,
  QNN_ERROR_NO_ERROR = QNN_SUCCESS,
  QNN_ERROR_INVALID_ARGUMENT = QNN_MIN_ERROR_ERROR + 0,
  QNN_ERROR_INVALID_ERROR_HANDLE = QNN_MIN_ERROR_ERROR + 1,
  QNN_ERROR_MAX_ERROR = QNN_MAX_ERROR_ERROR,
  QNN_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnError_Error_t;

/* Short message; the string is static and must not be freed. */
QNN_API
Qnn_ErrorHandle_t QnnError_getMessage(Qnn_ErrorHandle_t errorHandle, const char** errorMessage);

/* Long message; release it with QnnError_freeVerboseMessage. */
QNN_API
Qnn_ErrorHandle_t QnnError_getVerboseMessage(Qnn_ErrorHandle_t errorHandle,
                                             const char** errorMessage);

QNN_API
Qnn_ErrorHandle_t QnnError_freeVerboseMessage(const char* errorMessage);

#ifdef __cplusplus
}
#endif

#endif /* QNN_ERROR_H */
