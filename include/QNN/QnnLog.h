/*
 * openhtp - QNN-compatible public API.
 * QnnLog.h: logging handles and the client log callback.
 */
#ifndef QNN_LOG_H
#define QNN_LOG_H

#ifdef __cplusplus
#include <cstdarg>
#else
#include <stdarg.h>
#endif

#include "QnnCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_LOG_MIN_ERROR = QNN_MIN_ERROR_LOG,
  QNN_LOG_NO_ERROR = QNN_SUCCESS,
  QNN_LOG_ERROR_MEM_ALLOC = QNN_COMMON_ERROR_MEM_ALLOC,
  QNN_LOG_ERROR_INITIALIZATION = QNN_MIN_ERROR_LOG + 2,
  QNN_LOG_ERROR_INVALID_ARGUMENT = QNN_MIN_ERROR_LOG + 3,
  QNN_LOG_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_LOG + 4,
  QNN_LOG_MAX_ERROR = QNN_MAX_ERROR_LOG,
  QNN_LOG_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnLog_Error_t;

/* Ascending verbosity; a message is emitted when its level <= the maximum. */
typedef enum {
  QNN_LOG_LEVEL_ERROR = 1,
  QNN_LOG_LEVEL_WARN = 2,
  QNN_LOG_LEVEL_INFO = 3,
  QNN_LOG_LEVEL_VERBOSE = 4,
  QNN_LOG_LEVEL_DEBUG = 5,
  QNN_LOG_LEVEL_MAX = 0x7fffffff
} QnnLog_Level_t;

/* printf-style sink. May be called from several threads at once. The
 * timestamp only increases; its unit is unspecified. */
typedef void (*QnnLog_Callback_t)(const char* fmt, QnnLog_Level_t level, uint64_t timestamp,
                                  va_list args);

/* callback == NULL selects the platform default stream. */
QNN_API
Qnn_ErrorHandle_t QnnLog_create(QnnLog_Callback_t callback, QnnLog_Level_t maxLogLevel,
                                Qnn_LogHandle_t* logger);

QNN_API
Qnn_ErrorHandle_t QnnLog_setLogLevel(Qnn_LogHandle_t logger, QnnLog_Level_t maxLogLevel);

QNN_API
Qnn_ErrorHandle_t QnnLog_free(Qnn_LogHandle_t logger);

#ifdef __cplusplus
}
#endif

#endif /* QNN_LOG_H */
