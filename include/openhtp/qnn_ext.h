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
  uint64_t dspExecuteNs; /* time the graph ran on the emulated HTP */
} OpenHtp_ExecuteStats_t;

/* QNN_SUCCESS, or QNN_GRAPH_ERROR_INVALID_HANDLE. */
QNN_API Qnn_ErrorHandle_t OpenHtp_getLastExecuteStats(Qnn_GraphHandle_t graph, OpenHtp_ExecuteStats_t* stats);

/* Sizes of the external weights / spill-fill buffers the runtime allocated and
 * registered for `context` because the backend-extension file asked for them
 * (0 when it did not). QNN_SUCCESS or QNN_CONTEXT_ERROR_INVALID_HANDLE. */
QNN_API Qnn_ErrorHandle_t OpenHtp_getRuntimeProvidedBuffers(Qnn_ContextHandle_t context, uint64_t* weightsBytes,
                                                            uint64_t* spillFillBytes);

#ifdef __cplusplus
}
#endif

#endif /* OPENHTP_QNN_EXT_H */
