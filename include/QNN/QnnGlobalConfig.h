/*
 * openhtp - QNN-compatible public API.
 * QnnGlobalConfig.h: process-wide settings.
 */
#ifndef QNN_CONFIG_H
#define QNN_CONFIG_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_GLOBAL_CONFIG_MIN_ERROR = QNN_MIN_ERROR_GLOBAL_CONFIG,
  QNN_GLOBAL_CONFIG_NO_ERROR = QNN_SUCCESS,
  QNN_GLOBAL_CONFIG_ERROR_INVALID_CONFIG = QNN_MIN_ERROR_GLOBAL_CONFIG,
  QNN_GLOBAL_CONFIG_MAX_ERROR = QNN_MAX_ERROR_GLOBAL_CONFIG,
  QNN_GLOBAL_CONFIG_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnGlobalConfig_Error_t;

typedef enum {
  QNN_GLOBAL_CONFIG_OPTION_SOC_MODEL = 0,
  QNN_GLOBAL_CONFIG_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnGlobalConfig_ConfigOption_t;

typedef struct {
  QnnGlobalConfig_ConfigOption_t option;
  union UNNAMED {
    Qnn_SocModel_t socModel;
  };
} QnnGlobalConfig_t;

#define QNN_GLOBAL_CONFIG_INIT {QNN_GLOBAL_CONFIG_OPTION_UNDEFINED, {QNN_SOC_MODEL_UNKNOWN}}

/* config is a NULL-terminated array; NULL means "no change". */
QNN_API
Qnn_ErrorHandle_t QnnGlobalConfig_Set(const QnnGlobalConfig_t** config);

#ifdef __cplusplus
}
#endif

#endif /* QNN_CONFIG_H */
