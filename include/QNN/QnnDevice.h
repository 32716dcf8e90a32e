/*
 * openhtp - QNN-compatible public API.
 * QnnDevice.h: hardware discovery and logical device handles.
 */
#ifndef QNN_DEVICE_H
#define QNN_DEVICE_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reserved ids that select the default device / core. */
#define QNN_DEVICE_DEFAULT_DEVICE_ID 0xFFFFFFFF
#define QNN_DEVICE_DEFAULT_CORE_ID 0xFFFFFFFF

typedef enum {
  QNN_DEVICE_MIN_ERROR = QNN_MIN_ERROR_DEVICE,
  QNN_DEVICE_ERROR_UNSUPPORTED_FEATURE = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_DEVICE_ERROR_MEM_ALLOC = QNN_COMMON_ERROR_MEM_ALLOC,
  QNN_DEVICE_ERROR_INVALID_ARGUMENT = QNN_COMMON_ERROR_INVALID_ARGUMENT,
  QNN_DEVICE_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_DEVICE + 0,
  QNN_DEVICE_ERROR_INVALID_CONFIG = QNN_MIN_ERROR_DEVICE + 1,
  QNN_DEVICE_ERROR_HARDWARE_UNAVAILABLE = QNN_MIN_ERROR_DEVICE + 2,
  QNN_DEVICE_ERROR_ASSOCIATED_TO_CONTEXT = QNN_MIN_ERROR_DEVICE + 3,
  QNN_DEVICE_NO_ERROR = QNN_SUCCESS,
  QNN_DEVICE_MAX_ERROR = QNN_MAX_ERROR_DEVICE,
  QNN_DEVICE_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnDevice_Error_t;

/* Backend-defined objects; each backend header defines the struct body
 * (for HTP see HTP/QnnHtpDevice.h). */
typedef struct _QnnDevice_Infrastructure_t* QnnDevice_Infrastructure_t;
typedef struct _QnnDevice_CoreInfoExtension_t* QnnDevice_CoreInfoExtension_t;
typedef struct _QnnDevice_DeviceInfoExtension_t* QnnDevice_DeviceInfoExtension_t;

typedef struct {
  uint32_t coreId;
  uint32_t coreType; /* backend-defined */
  QnnDevice_CoreInfoExtension_t coreInfoExtension;
} QnnDevice_CoreInfoV1_t;

#define QNN_DEVICE_CORE_INFO_V1_INIT {QNN_DEVICE_DEFAULT_CORE_ID, 0u, NULL}

typedef enum {
  QNN_DEVICE_CORE_INFO_VERSION_1 = 1,
  QNN_DEVICE_CORE_INFO_VERSION_UNDEFINED = 0x7FFFFFFF
} QnnDevice_CoreInfoVersion_t;

typedef struct {
  QnnDevice_CoreInfoVersion_t version;
  union UNNAMED {
    QnnDevice_CoreInfoV1_t v1;
  };
} QnnDevice_CoreInfo_t;

#define QNN_DEVICE_CORE_INFO_INIT {QNN_DEVICE_CORE_INFO_VERSION_1, {QNN_DEVICE_CORE_INFO_V1_INIT}}

typedef struct {
  uint32_t deviceId;
  uint32_t deviceType; /* backend-defined */
  uint32_t numCores;
  QnnDevice_CoreInfo_t* cores;
  QnnDevice_DeviceInfoExtension_t deviceInfoExtension;
} QnnDevice_HardwareDeviceInfoV1_t;

#define QNN_DEVICE_HARDWARE_DEVICE_INFO_V1_INIT {QNN_DEVICE_DEFAULT_DEVICE_ID, 0u, 0u, NULL, NULL}

typedef enum {
  QNN_DEVICE_HARDWARE_DEVICE_INFO_VERSION_1 = 1,
  QNN_DEVICE_HARDWARE_DEVICE_INFO_VERSION_UNDEFINED = 0x7FFFFFFF
} QnnDevice_HardwareDeviceInfoVersion_t;

typedef struct {
  QnnDevice_HardwareDeviceInfoVersion_t version;
  union UNNAMED {
    QnnDevice_HardwareDeviceInfoV1_t v1;
  };
} QnnDevice_HardwareDeviceInfo_t;

#define QNN_DEVICE_HARDWARE_DEVICE_INFO_INIT \
  {QNN_DEVICE_HARDWARE_DEVICE_INFO_VERSION_1, {QNN_DEVICE_HARDWARE_DEVICE_INFO_V1_INIT}}

typedef struct {
  uint32_t numHwDevices;
  QnnDevice_HardwareDeviceInfo_t* hwDevices;
} QnnDevice_PlatformInfoV1_t;

#define QNN_DEVICE_PLATFORM_INFO_V1_INIT {0u, NULL}

typedef enum {
  QNN_DEVICE_PLATFORM_INFO_VERSION_1 = 1,
  QNN_DEVICE_PLATFORM_INFO_VERSION_UNDEFINED = 0x7FFFFFFF
} QnnDevice_PlatformInfoVersion_t;

typedef struct {
  QnnDevice_PlatformInfoVersion_t version;
  union UNNAMED {
    QnnDevice_PlatformInfoV1_t v1;
  };
} QnnDevice_PlatformInfo_t;

#define QNN_DEVICE_PLATFORM_INFO_INIT \
  {QNN_DEVICE_PLATFORM_INFO_VERSION_1, {QNN_DEVICE_PLATFORM_INFO_V1_INIT}}

typedef void* QnnDevice_CustomConfig_t;

typedef enum {
  QNN_DEVICE_CONFIG_OPTION_CUSTOM = 0,
  QNN_DEVICE_CONFIG_OPTION_PLATFORM_INFO = 1,
  QNN_DEVICE_CONFIG_OPTION_UNDEFINED = 0x7FFFFFFF
} QnnDevice_ConfigOption_t;

typedef struct {
  QnnDevice_ConfigOption_t option;
  union UNNAMED {
    QnnDevice_CustomConfig_t customConfig;
    QnnDevice_PlatformInfo_t* hardwareInfo;
  };
} QnnDevice_Config_t;

#define QNN_DEVICE_CONFIG_INIT {QNN_DEVICE_CONFIG_OPTION_UNDEFINED, {NULL}}

/* The returned info is backend owned; release with QnnDevice_freePlatformInfo. */
QNN_API
Qnn_ErrorHandle_t QnnDevice_getPlatformInfo(Qnn_LogHandle_t logger,
                                            const QnnDevice_PlatformInfo_t** platformInfo);

QNN_API
Qnn_ErrorHandle_t QnnDevice_freePlatformInfo(Qnn_LogHandle_t logger,
                                             const QnnDevice_PlatformInfo_t* platformInfo);

/* Backend-specific helper object (for HTP: the perf infrastructure). */
QNN_API
Qnn_ErrorHandle_t QnnDevice_getInfrastructure(const QnnDevice_Infrastructure_t* deviceInfra);

/* config == NULL opens every device and core the backend controls. */
QNN_API
Qnn_ErrorHandle_t QnnDevice_create(Qnn_LogHandle_t logger, const QnnDevice_Config_t** config,
                                   Qnn_DeviceHandle_t* device);

QNN_API
Qnn_ErrorHandle_t QnnDevice_setConfig(Qnn_DeviceHandle_t device, const QnnDevice_Config_t** config);

QNN_API
Qnn_ErrorHandle_t QnnDevice_getInfo(Qnn_DeviceHandle_t device,
                                    const QnnDevice_PlatformInfo_t** platformInfo);

QNN_API
Qnn_ErrorHandle_t QnnDevice_free(Qnn_DeviceHandle_t device);

#ifdef __cplusplus
}
#endif

#endif /* QNN_DEVICE_H */
