/*
 * openhtp - QNN-compatible public API.
 * HTP/QnnHtpPerfInfrastructure.h: power / clock votes and memory settings,
 * reached through QnnDevice_getInfrastructure (see HTP/QnnHtpDevice.h).
 */
#ifndef QNN_HTP_PERF_INFRASTRUCTURE_H
#define QNN_HTP_PERF_INFRASTRUCTURE_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upper limit for the RPC polling time, microseconds. */
#define QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_MAX_RPC_POLLING_TIME 9999

typedef enum {
  QNN_HTP_PERF_INFRASTRUCTURE_MIN_ERROR = QNN_MIN_ERROR_PERF_INFRASTRUCTURE,
  QNN_HTP_PERF_INFRASTRUCTURE_NO_ERROR = QNN_SUCCESS,
  QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_HANDLE_PTR = QNN_MIN_ERROR_PERF_INFRASTRUCTURE + 0,
  QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT = QNN_MIN_ERROR_PERF_INFRASTRUCTURE + 1,
  QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED_CONFIG = QNN_MIN_ERROR_PERF_INFRASTRUCTURE + 2,
  QNN_HTP_PERF_INFRASTRUCTURE_ERROR_TRANSPORT = QNN_MIN_ERROR_PERF_INFRASTRUCTURE + 3,
  QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED = QNN_MIN_ERROR_PERF_INFRASTRUCTURE + 4,
  QNN_HTP_PERF_INFRASTRUCTURE_ERROR_MEM_ALLOC = QNN_MIN_ERROR_PERF_INFRASTRUCTURE + 5,
  QNN_HTP_PERF_INFRASTRUCTURE_ERROR_FAILED = QNN_MIN_ERROR_PERF_INFRASTRUCTURE + 6,
  QNN_HTP_PERF_INFRASTRUCTURE_MAX_ERROR = QNN_MAX_ERROR_PERF_INFRASTRUCTURE,
  QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNDEFINED = 0x7fffffff
} QnnHtpPerfInfrastructure_Error_t;

/* "Set*" flags: non-zero means the matching value field is applied. */
typedef uint32_t QnnHtpPerfInfrastructure_SetDcvsEnable_t;
typedef uint32_t QnnHtpPerfInfrastructure_DcvsEnable_t;
typedef uint32_t QnnHtpPerfInfrastructure_SetSleepLatency_t;
typedef uint32_t QnnHtpPerfInfrastructure_SleepLatency_t; /* microseconds */
typedef uint32_t QnnHtpPerfInfrastructure_SetSleepDisable_t;
typedef uint32_t QnnHtpPerfInfrastructure_SleepDisable_t;
typedef uint32_t QnnHtpPerfInfrastructure_SetBusParams_t;
typedef uint32_t QnnHtpPerfInfrastructure_SetCoreParams_t;
typedef uint32_t QnnHtpPerfInfrastructure_RpcControlLatency_t;   /* microseconds */
typedef uint32_t QnnHtpPerfInfrastructure_RpcPollingTime_t;      /* microseconds */
typedef uint32_t QnnHtpPerfInfrastructure_AdaptivePollingTime_t; /* microseconds */
typedef uint32_t QnnHtpPerfInfrastructure_DdrPerfMode_t;         /* non-zero enables */
typedef uint32_t QnnHtpPerfInfrastructure_HmxTimeoutIntervalUs_t;
typedef uint32_t QnnHtpPerfInfrastructure_MemGrowSize_t;         /* bytes, default 16 MB */
typedef uint32_t QnnHtpPerfInfrastructure_HmxDefault_Vote_t;     /* 1: follow DCVS corner */

/* Clock level inside the chosen voltage corner. */
typedef enum {
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH = 0,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_LOW = 1,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D1 = 2,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D2 = 3,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D3 = 4,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D4 = 5,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D5 = 6,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D6 = 7,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D7 = 8,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D8 = 9,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D9 = 10,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D10 = 11,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D11 = 12,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D12 = 13,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D13 = 14,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D14 = 15,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D15 = 16,
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_MAX = 0xFF, /* range bound, not a vote */
  QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_UNKNOWN = 0x7fffffff
} QnnHtpPerfInfrastructure_ClkPerfMode_t;

/* Voltage corners for DCVS votes (HAP_DCVS_VCORNER_* values). */
typedef enum {
  DCVS_VOLTAGE_CORNER_DISABLE = 0x10,
  DCVS_VOLTAGE_VCORNER_MIN_VOLTAGE_CORNER = 0x20,
  DCVS_VOLTAGE_VCORNER_SVS2 = 0x30,
  DCVS_VOLTAGE_VCORNER_SVS = 0x40,
  DCVS_VOLTAGE_VCORNER_SVS_PLUS = 0x50,
  DCVS_VOLTAGE_VCORNER_NOM = 0x60,
  DCVS_VOLTAGE_VCORNER_NOM_PLUS = 0x70,
  DCVS_VOLTAGE_VCORNER_TURBO = 0x80,
  DCVS_VOLTAGE_VCORNER_TURBO_PLUS = 0x90,
  DCVS_VOLTAGE_VCORNER_TURBO_L2 = 0x92,
  DCVS_VOLTAGE_VCORNER_TURBO_L3 = 0x93,
  DCVS_VOLTAGE_VCORNER_TURBO_L4 = 0x94,
  DCVS_VOLTAGE_VCORNER_TURBO_L5 = 0x95,
  DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER = 0xA0,
  DCVS_VOLTAGE_VCORNER_UNKNOWN = 0x7fffffff
} QnnHtpPerfInfrastructure_VoltageCorner_t;

/* Finer-grained corners (HAP_DCVS_EXP_VCORNER_* values), used for HMX. */
typedef enum {
  DCVS_EXP_VCORNER_DISABLE = 0,
  DCVS_EXP_VCORNER_MIN = 0x100,
  DCVS_EXP_VCORNER_LOW_SVS_D2 = 0x134,
  DCVS_EXP_VCORNER_LOW_SVS_D1 = 0x138,
  DCVS_EXP_VCORNER_LOW_SVS = 0x140,
  DCVS_EXP_VCORNER_LOW_SVS_L0 = 0x14C,
  DCVS_EXP_VCORNER_SVS = 0x180,
  DCVS_EXP_VCORNER_SVS_L0 = 0x190,
  DCVS_EXP_VCORNER_SVS_L1 = 0x1C0,
  DCVS_EXP_VCORNER_SVS_L2 = 0x1E0,
  DCVS_EXP_VCORNER_NOM = 0x200,
  DCVS_EXP_VCORNER_NOM_L1 = 0x240,
  DCVS_EXP_VCORNER_NOM_L2 = 0x250,
  DCVS_EXP_VCORNER_TUR = 0x280,
  DCVS_EXP_VCORNER_TUR_L1 = 0x2A0,
  DCVS_EXP_VCORNER_TUR_L2 = 0x2B0,
  DCVS_EXP_VCORNER_TUR_L3 = 0x2C0,
  DCVS_EXP_VCORNER_MAX = 0xFFFF,
  DCVS_EXP_VCORNER_UNKNOWN = 0x7fffffff
} QnnHtpPerfInfrastructure_ExpVoltageCorner_t;

/* DCVS behaviour (HAP_DCVS_V2_* values). */
typedef enum {
  QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_ADJUST_UP_DOWN = 0x1,
  QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_ADJUST_ONLY_UP = 0x2,
  QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_POWER_SAVER_MODE = 0x4,
  QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_POWER_SAVER_AGGRESSIVE_MODE = 0x8,
  QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_PERFORMANCE_MODE = 0x10,
  QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_DUTY_CYCLE_MODE = 0x20,
  QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_UNKNOWN = 0x7fffffff
} QnnHtpPerfInfrastructure_PowerMode_t;

/* DCVS v3 vote with separate bus and core corners. */
typedef struct {
  uint32_t contextId; /* the power config id */
  QnnHtpPerfInfrastructure_SetDcvsEnable_t setDcvsEnable;
  QnnHtpPerfInfrastructure_DcvsEnable_t dcvsEnable;
  QnnHtpPerfInfrastructure_PowerMode_t powerMode;
  QnnHtpPerfInfrastructure_SetSleepLatency_t setSleepLatency;
  QnnHtpPerfInfrastructure_SleepLatency_t sleepLatency;
  QnnHtpPerfInfrastructure_SetSleepDisable_t setSleepDisable;
  QnnHtpPerfInfrastructure_SleepDisable_t sleepDisable;
  QnnHtpPerfInfrastructure_SetBusParams_t setBusParams;
  QnnHtpPerfInfrastructure_VoltageCorner_t busVoltageCornerMin;
  QnnHtpPerfInfrastructure_VoltageCorner_t busVoltageCornerTarget;
  QnnHtpPerfInfrastructure_VoltageCorner_t busVoltageCornerMax;
  QnnHtpPerfInfrastructure_SetCoreParams_t setCoreParams;
  QnnHtpPerfInfrastructure_VoltageCorner_t coreVoltageCornerMin;
  QnnHtpPerfInfrastructure_VoltageCorner_t coreVoltageCornerTarget;
  QnnHtpPerfInfrastructure_VoltageCorner_t coreVoltageCornerMax;
} QnnHtpPerfInfrastructure_DcvsV3_t;

/* HMX clock vote; with hmxPickDefault = 1 the corners are ignored. */
typedef struct {
  QnnHtpPerfInfrastructure_HmxDefault_Vote_t hmxPickDefault;
  QnnHtpPerfInfrastructure_ExpVoltageCorner_t hmxVoltageCornerMin;
  QnnHtpPerfInfrastructure_ExpVoltageCorner_t hmxVoltageCornerTarget;
  QnnHtpPerfInfrastructure_ExpVoltageCorner_t hmxVoltageCornerMax;
  QnnHtpPerfInfrastructure_ClkPerfMode_t hmxPerfMode;
} QnnHtpPerfInfrastructure_HmxV2_t;

typedef enum {
  QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3 = 1,
  QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY = 2,
  QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME = 3, /* process wide */
  QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_TIMEOUT_INTERVAL_US = 4,
  QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_V2 = 5,
  QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_ADAPTIVE_POLLING_TIME = 6,
  QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DDR_PERF_MODE = 7,
  QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_UNKNOWN = 0x7fffffff
} QnnHtpPerfInfrastructure_PowerConfigOption_t;

typedef struct {
  QnnHtpPerfInfrastructure_PowerConfigOption_t option;
  union UNNAMED {
    QnnHtpPerfInfrastructure_DcvsV3_t dcvsV3Config;
    QnnHtpPerfInfrastructure_RpcControlLatency_t rpcControlLatencyConfig;
    QnnHtpPerfInfrastructure_RpcPollingTime_t rpcPollingTimeConfig;
    QnnHtpPerfInfrastructure_HmxTimeoutIntervalUs_t hmxTimeoutIntervalUsConfig;
    QnnHtpPerfInfrastructure_HmxV2_t hmxV2Config;
    QnnHtpPerfInfrastructure_AdaptivePollingTime_t adaptivePollingTimeConfig;
    QnnHtpPerfInfrastructure_DdrPerfMode_t ddrPerfModeConfig;
  };
} QnnHtpPerfInfrastructure_PowerConfig_t;

/* All-zero DCVS v3 body, used by the init macro below. */
#define QNN_HTP_PERF_INFRASTRUCTURE_DCVS_V3_INIT                                             \
  {0u, 0u, 0u, (QnnHtpPerfInfrastructure_PowerMode_t)0, 0u, 0u, 0u, 0u, 0u,                    \
   (QnnHtpPerfInfrastructure_VoltageCorner_t)0, (QnnHtpPerfInfrastructure_VoltageCorner_t)0,   \
   (QnnHtpPerfInfrastructure_VoltageCorner_t)0, 0u, (QnnHtpPerfInfrastructure_VoltageCorner_t)0, \
   (QnnHtpPerfInfrastructure_VoltageCorner_t)0, (QnnHtpPerfInfrastructure_VoltageCorner_t)0}

#define QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT \
  {QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_UNKNOWN, {QNN_HTP_PERF_INFRASTRUCTURE_DCVS_V3_INIT}}

typedef enum {
  QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIGOPTION_GROW_SIZE = 1,
  QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIGOPTION_UNKNOWN = 0x7fffffff
} QnnHtpPerfInfrastructure_MemoryConfigOption_t;

typedef struct {
  QnnHtpPerfInfrastructure_MemoryConfigOption_t option;
  union UNNAMED {
    QnnHtpPerfInfrastructure_MemGrowSize_t memGrowSizeConfig;
  };
} QnnHtpPerfInfrastructure_MemoryConfig_t;

#define QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIG_INIT \
  {QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIGOPTION_UNKNOWN, {0u}}

/* Creates an id that later votes refer to; destroy it when done. */
typedef Qnn_ErrorHandle_t (*QnnHtpPerfInfrastructure_CreatePowerConfigIdFn_t)(
    uint32_t deviceId, uint32_t coreId, uint32_t* powerConfigId);

typedef Qnn_ErrorHandle_t (*QnnHtpPerfInfrastructure_DestroyPowerConfigIdFn_t)(
    uint32_t powerConfigId);

/* config: NULL-terminated array of votes. */
typedef Qnn_ErrorHandle_t (*QnnHtpPerfInfrastructure_SetPowerConfigFn_t)(
    uint32_t powerConfigId, const QnnHtpPerfInfrastructure_PowerConfig_t** config);

/* config: NULL-terminated array. */
typedef Qnn_ErrorHandle_t (*QnnHtpPerfInfrastructure_SetMemoryConfigFn_t)(
    uint32_t deviceId, uint32_t coreId, const QnnHtpPerfInfrastructure_MemoryConfig_t** config);

#ifdef __cplusplus
}
#endif

#endif /* QNN_HTP_PERF_INFRASTRUCTURE_H */
