/*
 * openhtp - QNN-compatible public API.
 * HTP/QnnHtpDevice.h: HTP device info extensions and the perf
 * infrastructure returned by QnnDevice_getInfrastructure.
 */
#ifndef QNN_HTP_DEVICE_H
#define QNN_HTP_DEVICE_H

#include "QnnCommon.h"
#include "QnnDevice.h"
#include "QnnHtpDeviceConfigShared.h"
#include "QnnHtpPerfInfrastructure.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* QnnDevice_HardwareDeviceInfoV1_t.deviceType values. */
typedef enum {
  QNN_HTP_DEVICE_TYPE_ON_CHIP = 0,  /* HTP inside the SoC */
  QNN_HTP_DEVICE_TYPE_OFF_CHIP = 1,
  QNN_HTP_DEVICE_TYPE_UNKNOWN = 0x7fffffff
} QnnHtpDevice_DeviceType_t;

/* QnnDevice_CoreInfoV1_t.coreType values. */
typedef enum {
  QNN_HTP_CORE_TYPE_NSP = 0,
  QNN_HTP_CORE_TYPE_HPASS = 1,
  QNN_HTP_CORE_TYPE_MAX, /* valid types are below this */
  QNN_HTP_CORE_TYPE_UNKNOWN = 0x7fffffff
} QnnHtpDevice_CoreType_t;

typedef struct {
  size_t vtcmSize;   /* MB */
  uint32_t socModel; /* Qnn_SocModel_t value */
  bool signedPdSupport;
  bool dlbcSupport;
  QnnHtpDevice_Arch_t arch;
} QnnHtpDevice_OnChipDeviceInfoExtension_t;

/* Body of the opaque QnnDevice_DeviceInfoExtension_t for HTP. */
typedef struct _QnnDevice_DeviceInfoExtension_t {
  QnnHtpDevice_DeviceType_t devType;
  union UNNAMED {
    QnnHtpDevice_OnChipDeviceInfoExtension_t onChipDevice;
  };
} QnnHtpDevice_DeviceInfoExtension_t;

/* Power / memory control functions. */
typedef struct {
  QnnHtpPerfInfrastructure_CreatePowerConfigIdFn_t createPowerConfigId;
  QnnHtpPerfInfrastructure_DestroyPowerConfigIdFn_t destroyPowerConfigId;
  QnnHtpPerfInfrastructure_SetPowerConfigFn_t setPowerConfig;
  QnnHtpPerfInfrastructure_SetMemoryConfigFn_t setMemoryConfig;
} QnnHtpDevice_PerfInfrastructure_t;

#define QNN_HTP_DEVICE_PERF_INFRASTRUCTURE_INIT {NULL, NULL, NULL, NULL}

typedef enum {
  QNN_HTP_DEVICE_INFRASTRUCTURE_TYPE_PERF = 0,
  QNN_HTP_DEVICE_INFRASTRUCTURE_TYPE_UNKNOWN = 0x7fffffff
} QnnHtpDevice_InfrastructureType_t;

/* Body of the opaque QnnDevice_Infrastructure_t for HTP. */
typedef struct _QnnDevice_Infrastructure_t {
  QnnHtpDevice_InfrastructureType_t infraType;
  union UNNAMED {
    QnnHtpDevice_PerfInfrastructure_t perfInfra;
  };
} QnnHtpDevice_Infrastructure_t;

#ifdef __cplusplus
}
#endif

#endif /* QNN_HTP_DEVICE_H */
