/*
 * openhtp - QNN-compatible public API.
 * Saver/QnnSaver.h: Saver-backend specific configuration
 * (QnnSaver_initialize, resolved from libQnnSaver.so). openhtp does not
 * implement the Saver backend; the declarations are for client compatibility.
 */
#ifndef QNN_SAVER_H
#define QNN_SAVER_H

#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef QNN_SAVER_API
#define QNN_SAVER_API
#endif

/* Saver codes live in the backend sub-range 4950..4998. */
typedef enum {
  QNN_SAVER_MIN_ERROR = QNN_MIN_ERROR_BACKEND_SAVER,
  /* Call was recorded, but the returned value is a placeholder (get-style
   * APIs the Saver cannot really answer). */
  QNN_SAVER_ERROR_DUMMY_RETVALUE = QNN_MIN_ERROR_BACKEND_SAVER + 0,
  /* QnnSaver_initialize came after the backend was already created. */
  QNN_SAVER_ERROR_ALREADY_INSTANTIATED = QNN_MIN_ERROR_BACKEND_SAVER + 1,
  QNN_SAVER_MAX_ERROR = QNN_MAX_ERROR_BACKEND_SAVER
} QnnSaver_Error_t;

/* Output file names (no slashes). Defaults: saver_output.c / params.bin. */
typedef struct {
  const char* modelFileName;
  const char* dataFileName;
} QnnSaver_FileConfig_t;

typedef enum {
  QNN_SAVER_CONFIG_OPTION_OUTPUT_DIRECTORY = 0, /* default ./saver_output/ */
  QNN_SAVER_CONFIG_OPTION_APPEND_TIMESTAMP = 1, /* exclusive with FILE_CONFIG */
  QNN_SAVER_CONFIG_OPTION_BACKEND_ID = 2,       /* backend whose custom configs to record */
  QNN_SAVER_CONFIG_OPTION_FILE_CONFIG = 3,      /* may switch files at run time */
  QNN_SAVER_CONFIG_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnSaver_ConfigOption_t;

typedef struct {
  QnnSaver_ConfigOption_t option;
  union UNNAMED {
    const char* outputDirectory;
    uint8_t appendTimestamp; /* nonzero: append a timestamp to output names */
    uint32_t backendId;      /* a QNN_BACKEND_ID_* value */
    QnnSaver_FileConfig_t fileConfig;
  };
} QnnSaver_Config_t;

#define QNN_SAVER_CONFIG_INIT {QNN_SAVER_CONFIG_OPTION_UNDEFINED, {NULL}}

/* config: NULL-terminated array of pointers, or NULL. Must precede every
 * other QNN call for most options. */
QNN_SAVER_API
Qnn_ErrorHandle_t QnnSaver_initialize(const QnnSaver_Config_t** config);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QNN_SAVER_H */
