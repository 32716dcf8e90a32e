/*
 * openhtp - QNN-compatible public API.
 * QnnProfile.h: collecting timing / memory events from a backend.
 */
#ifndef QNN_PROFILE_H
#define QNN_PROFILE_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Event types (QnnProfile_EventType_t). Without a unit, values are
 * microseconds. ---- */
#define QNN_PROFILE_EVENTTYPE_INIT 100     /* context create ... graph finalize, or load */
#define QNN_PROFILE_EVENTTYPE_FINALIZE 300 /* QnnGraph_finalize */
#define QNN_PROFILE_EVENTTYPE_EXECUTE 400  /* QnnGraph_execute[Async] */
#define QNN_PROFILE_EVENTTYPE_NODE 404     /* per-node sub-event of EXECUTE (DETAILED) */
#define QNN_PROFILE_EVENTTYPE_EXECUTE_QUEUE_WAIT 405
#define QNN_PROFILE_EVENTTYPE_EXECUTE_PREPROCESS 406
#define QNN_PROFILE_EVENTTYPE_EXECUTE_DEVICE 407
#define QNN_PROFILE_EVENTTYPE_EXECUTE_POSTPROCESS 408
#define QNN_PROFILE_EVENTTYPE_DEINIT 500   /* QnnContext_free */
#define QNN_PROFILE_EVENTTYPE_TRACE 600    /* op traces, DETAILED only */
#define QNN_PROFILE_EVENTTYPE_BACKEND 1000 /* first backend-defined type */

/* ---- Profile levels (QnnProfile_Level_t) ---- */
#define QNN_PROFILE_LEVEL_BASIC 1
#define QNN_PROFILE_LEVEL_DETAILED 2
#define QNN_PROFILE_LEVEL_BACKEND 1000

/* ---- Units (QnnProfile_EventUnit_t) ---- */
#define QNN_PROFILE_EVENTUNIT_MICROSEC 1
#define QNN_PROFILE_EVENTUNIT_BYTES 2
#define QNN_PROFILE_EVENTUNIT_CYCLES 3
#define QNN_PROFILE_EVENTUNIT_COUNT 4
#define QNN_PROFILE_EVENTUNIT_OBJECT 5
#define QNN_PROFILE_EVENTUNIT_NONE 6
#define QNN_PROFILE_EVENTUNIT_BACKEND 1000

typedef enum {
  QNN_PROFILE_MIN_ERROR = QNN_MIN_ERROR_PROFILE,
  QNN_PROFILE_NO_ERROR = QNN_SUCCESS,
  QNN_PROFILE_ERROR_UNSUPPORTED = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_PROFILE_ERROR_INVALID_ARGUMENT = QNN_COMMON_ERROR_INVALID_ARGUMENT,
  QNN_PROFILE_ERROR_MEM_ALLOC = QNN_COMMON_ERROR_MEM_ALLOC,
  QNN_PROFILE_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_PROFILE + 0,
  QNN_PROFILE_ERROR_HANDLE_IN_USE = QNN_MIN_ERROR_PROFILE + 1,
  QNN_PROFILE_ERROR_INCOMPATIBLE_EVENT = QNN_MIN_ERROR_PROFILE + 2,
  QNN_PROFILE_MAX_ERROR = QNN_MAX_ERROR_PROFILE,
  QNN_PROFILE_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnProfile_Error_t;

typedef uint32_t QnnProfile_EventType_t;
typedef uint64_t QnnProfile_EventValue_t;
typedef uint32_t QnnProfile_Level_t;
typedef uint64_t QnnProfile_EventId_t;
typedef uint32_t QnnProfile_EventUnit_t;

typedef struct {
  QnnProfile_EventType_t type;
  QnnProfile_EventUnit_t unit;
  QnnProfile_EventValue_t value;
  const char* identifier;
} QnnProfile_EventData_t;

#define QNN_PROFILE_EVENT_DATA_INIT {0u, 0u, 0u, NULL}

typedef struct {
  Qnn_OpaqueObject_t opaqueObject;
  const char* fileName; /* may be NULL */
} QnnProfile_BackendOpaqueObject_t;

#define QNN_PROFILE_BACKEND_OPAQUE_OBJECT_INIT {QNN_OPAQUE_OBJECT_INIT, NULL}

typedef struct {
  QnnProfile_EventType_t type;
  QnnProfile_EventUnit_t unit;
  union UNNAMED {
    Qnn_Scalar_t value;                                   /* MICROSEC, BYTES, CYCLES, COUNT */
    QnnProfile_BackendOpaqueObject_t backendOpaqueObject; /* OBJECT */
  };
  uint64_t timestamp; /* microseconds */
  const char* identifier;
} QnnProfile_ExtendedEventDataV1_t;

#define QNN_PROFILE_EXTENDED_EVENT_DATA_V1_INIT {0u, 0u, {QNN_SCALAR_INIT}, 0u, NULL}

typedef enum {
  QNN_PROFILE_DATA_VERSION_1 = 1,
  QNN_PROFILE_DATA_VERSION_UNDEFINED = 0x7FFFFFFF
} QnnProfile_ExtendedEventDataVersion_t;

typedef struct {
  QnnProfile_ExtendedEventDataVersion_t version;
  union UNNAMED {
    QnnProfile_ExtendedEventDataV1_t v1;
  };
} QnnProfile_ExtendedEventData_t;

#define QNN_PROFILE_EXTENDED_EVENT_DATA_INIT \
  {QNN_PROFILE_DATA_VERSION_1, {QNN_PROFILE_EXTENDED_EVENT_DATA_V1_INIT}}

typedef enum {
  QNN_PROFILE_CONFIG_OPTION_CUSTOM = 0,
  QNN_PROFILE_CONFIG_OPTION_MAX_EVENTS = 1,
  QNN_PROFILE_CONFIG_OPTION_ENABLE_OPTRACE = 2,
  QNN_PROFILE_CONFIG_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnProfile_ConfigOption_t;

typedef void* QnnProfile_CustomConfig_t;

typedef struct {
  QnnProfile_ConfigOption_t option;
  union UNNAMED {
    QnnProfile_CustomConfig_t customConfig;
    uint64_t numMaxEvents;
    uint8_t enableOptrace;
  };
} QnnProfile_Config_t;

#define QNN_PROFILE_CONFIG_INIT {QNN_PROFILE_CONFIG_OPTION_UNDEFINED, {NULL}}

QNN_API
Qnn_ErrorHandle_t QnnProfile_create(Qnn_BackendHandle_t backend, QnnProfile_Level_t level,
                                    Qnn_ProfileHandle_t* profile);

QNN_API
Qnn_ErrorHandle_t QnnProfile_setConfig(Qnn_ProfileHandle_t profileHandle,
                                       const QnnProfile_Config_t** config);

/* Top-level events recorded so far; the id array is backend owned. */
QNN_API
Qnn_ErrorHandle_t QnnProfile_getEvents(Qnn_ProfileHandle_t profile,
                                       const QnnProfile_EventId_t** profileEventIds,
                                       uint32_t* numEvents);

QNN_API
Qnn_ErrorHandle_t QnnProfile_getSubEvents(QnnProfile_EventId_t eventId,
                                          const QnnProfile_EventId_t** subEventIds,
                                          uint32_t* numSubEvents);

QNN_API
Qnn_ErrorHandle_t QnnProfile_getEventData(QnnProfile_EventId_t eventId,
                                          QnnProfile_EventData_t* eventData);

QNN_API
Qnn_ErrorHandle_t QnnProfile_getExtendedEventData(QnnProfile_EventId_t eventId,
                                                  QnnProfile_ExtendedEventData_t* eventData);

QNN_API
Qnn_ErrorHandle_t QnnProfile_free(Qnn_ProfileHandle_t profile);

#ifdef __cplusplus
}
#endif

#endif /* QNN_PROFILE_H */
