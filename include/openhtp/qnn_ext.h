/* openhtp extensions to the QNN HTP backend (not part of the QNN API).
 *
 * Copy accounting of a graph's most recent graphExecute, also reported as
 * profile sub-events of the EXECUTE event (identifiers "bytes copied in",
 * "bytes copied out", "bytes by reference", unit BYTES) when a profile handle
 * is passed to graphExecute. Memhandle tensors count as by-reference; a
 * client-buffer tensor counts as copied once in its direction — unless it
 * happens to lie in rpcmem memory, which FastRPC passes by reference too. */
#ifndef OPENHTP_QNN_EXT_H
#define OPENHTP_QNN_EXT_H

#include <stdint.h>

#include "QnnCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint64_t bytesCopiedIn;
  uint64_t bytesCopiedOut;
  uint64_t bytesByReference;
  uint64_t dspExecuteNs; /* time the graph ran on the emulated HTP; 0 when not measured (below) */
} OpenHtp_ExecuteStats_t;

/* QNN_SUCCESS, or QNN_GRAPH_ERROR_INVALID_HANDLE. */
QNN_API Qnn_ErrorHandle_t OpenHtp_getLastExecuteStats(Qnn_GraphHandle_t graph, OpenHtp_ExecuteStats_t* stats);

/* Whether the emulated HTP measures how long each execute of `graph` runs
 * (dspExecuteNs above). Off by default: the two clock reads cost about as
 * much as a tenth of a tiny in-process execute, and a client that does not
 * read the figure should not pay for it. An execute given a profile handle is
 * always measured (its "accelerator execute" event). QNN_SUCCESS, or
 * QNN_GRAPH_ERROR_INVALID_HANDLE. */
QNN_API Qnn_ErrorHandle_t OpenHtp_setDspTiming(Qnn_GraphHandle_t graph, uint8_t enable);

/* Sizes of the external weights / spill-fill buffers the runtime allocated and
 * registered for `context` because the backend-extension file asked for them
 * (0 when it did not). QNN_SUCCESS or QNN_CONTEXT_ERROR_INVALID_HANDLE. */
QNN_API Qnn_ErrorHandle_t OpenHtp_getRuntimeProvidedBuffers(Qnn_ContextHandle_t context, uint64_t* weightsBytes,
                                                            uint64_t* spillFillBytes);

/* The HTP perf-infrastructure votes (QnnDevice_getInfrastructure →
 * perfInfra.setPowerConfig / setMemoryConfig). votedOptions has bit
 * (1u << option) set for every QnnHtpPerfInfrastructure_PowerConfigOption_t
 * voted; the fields of an option never voted are 0. DCVS_V3 fields change
 * only with their Set* flag (powerMode when non-zero). */
typedef struct {
  uint32_t numPowerConfigIds; /* live power config ids in the process */
  uint32_t votedOptions;
  uint32_t dcvsEnable;
  uint32_t dcvsPowerMode; /* QnnHtpPerfInfrastructure_PowerMode_t */
  uint32_t sleepLatencyUs;
  uint32_t sleepDisable;
  uint32_t busVoltageCornerMin, busVoltageCornerTarget, busVoltageCornerMax;
  uint32_t coreVoltageCornerMin, coreVoltageCornerTarget, coreVoltageCornerMax;
  uint32_t rpcControlLatencyUs;
  uint32_t rpcPollingTimeUs;
  uint32_t hmxTimeoutIntervalUs;
  uint32_t hmxPickDefault;
  uint32_t hmxVoltageCornerMin, hmxVoltageCornerTarget, hmxVoltageCornerMax;
  uint32_t hmxPerfMode;
  uint32_t adaptivePollingTimeUs;
  uint32_t ddrPerfMode;
  uint32_t memGrowSizeBytes; /* last setMemoryConfig GROW_SIZE; 0 = never set */
  uint32_t reserved;
  /* The FastRPC reply-wait spin budget in force (the RPC polling vote in
   * force, else the default; see openhtp_fastrpc_set_call_spin_us). */
  int64_t callSpinNs;
} OpenHtp_PerfVotes_t;

/* powerConfigId 0: the votes in force, i.e. for each option the most recent
 * vote of a live id (destroying an id withdraws its votes). Otherwise the
 * votes recorded for that id. QNN_SUCCESS,
 * QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT (unknown or destroyed id),
 * or ..._INVALID_HANDLE_PTR (votes is NULL). */
QNN_API Qnn_ErrorHandle_t OpenHtp_getPerfVotes(uint32_t powerConfigId, OpenHtp_PerfVotes_t* votes);

#ifdef __cplusplus
}
#endif

#endif /* OPENHTP_QNN_EXT_H */
