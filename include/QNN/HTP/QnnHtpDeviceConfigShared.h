/*
 * openhtp - QNN-compatible public API.
 * HTP/QnnHtpDeviceConfigShared.h: HTP device custom config, the target of
 * QnnDevice_Config_t.customConfig.
 */
#ifndef QNN_HTP_DEVICE_CONFIG_SHARED_H
#define QNN_HTP_DEVICE_CONFIG_SHARED_H

#include "QnnCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Hexagon architecture; the value is the version number. */
typedef enum {
  QNN_HTP_DEVICE_ARCH_NONE = 0,
  QNN_HTP_DEVICE_ARCH_V68 = 68,
  QNN_HTP_DEVICE_ARCH_V69 = 69,
  QNN_HTP_DEVICE_ARCH_V73 = 73,
  QNN_HTP_DEVICE_ARCH_V75 = 75,
  QNN_HTP_DEVICE_ARCH_V79 = 79,
  QNN_HTP_DEVICE_ARCH_V81 = 81,
  QNN_HTP_DEVICE_ARCH_V85 = 85,
  QNN_HTP_DEVICE_ARCH_V89 = 89,
  QNN_HTP_DEVICE_ARCH_UNKNOWN = 0x7fffffff
} QnnHtpDevice_Arch_t;

/* Lowest architecture the generated code may assume. */
typedef struct {
  uint32_t deviceId;
  QnnHtpDevice_Arch_t arch;
} QnnHtpDevice_Minimum_Arch_t;

typedef struct {
  uint32_t deviceId;
  bool useSignedProcessDomain;
} QnnHtpDevice_UseSignedProcessDomain_t;

/* Deprecated: secure PD is no longer supported. */
typedef struct {
  uint32_t deviceId;
  bool useSecureProcessDomain;
} QnnHtpDevice_UseSecureProcessDomain_t;

typedef struct {
  uint32_t deviceId;
  bool enableAsyncExecute;
} QnnHtpDevice_AsyncExecute_t;

typedef struct {
  uint32_t deviceId;
  bool useDynamicPartitioning;
  void* rsmHandle; /* opaque resource-sharing-manager handle */
} QnnHtpDevice_UseDynamicPartitioning_t;

typedef enum {
  QNN_HTP_DEVICE_CONFIG_OPTION_SOC = 0,
  QNN_HTP_DEVICE_CONFIG_OPTION_ARCH = 1,
  QNN_HTP_DEVICE_CONFIG_OPTION_SIGNEDPD = 2,
  QNN_HTP_DEVICE_CONFIG_OPTION_SECUREPD = 3, /* deprecated */
  QNN_HTP_DEVICE_CONFIG_OPTION_ASYNC_EXECUTE = 4,
  QNN_HTP_DEVICE_CONFIG_OPTION_DYNAMIC_PARTITIONING = 5,
  QNN_HTP_DEVICE_CONFIG_OPTION_APP_UID = 6,
  QNN_HTP_DEVICE_CONFIG_OPTION_HTP_EXTENSION = 0x7fff0000,
  QNN_HTP_DEVICE_CONFIG_OPTION_UNKNOWN = 0x7fffffff
} QnnHtpDevice_ConfigOption_t;

/* 24 bytes / 8-byte aligned on LP64 (the pointer in useDynamicPartitioning). */
typedef struct {
  QnnHtpDevice_ConfigOption_t option;
  union UNNAMED {
    uint32_t socModel;
    QnnHtpDevice_Minimum_Arch_t arch;
    QnnHtpDevice_UseSignedProcessDomain_t useSignedProcessDomain;
    QnnHtpDevice_UseSecureProcessDomain_t useSecureProcessDomain;
    QnnHtpDevice_AsyncExecute_t asyncExecute;
    QnnHtpDevice_UseDynamicPartitioning_t useDynamicPartitioning;
    uint32_t appUid;
  };
} QnnHtpDevice_CustomConfig_t;

#ifdef __cplusplus
}
#endif

#endif /* QNN_HTP_DEVICE_CONFIG_SHARED_H */
