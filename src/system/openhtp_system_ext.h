/*
 * openhtp's private extension of libQnnSystem: what QNN's System API has no
 * field for. Not part of the QNN API; clients look the symbols up with dlsym
 * and do without them against another libQnnSystem.so.
 */
#ifndef OPENHTP_SYSTEM_EXT_H
#define OPENHTP_SYSTEM_EXT_H

#include <stdint.h>

#include "System/QnnSystemContext.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of static data (weights) the binary most recently read through
 * sysCtxHandle carries, each tensor aligned as the backend's weights buffer
 * requires: the size of the buffer the backend allocates for them.
 * Errors: INVALID_HANDLE; INVALID_ARGUMENT if weightsSize is NULL or no binary
 * has been read through the handle yet. */
QNN_SYSTEM_API
Qnn_ErrorHandle_t OpenHtpSystemContext_getWeightsSize(QnnSystemContext_Handle_t sysCtxHandle, uint64_t* weightsSize);

typedef Qnn_ErrorHandle_t (*OpenHtpSystemContext_GetWeightsSizeFn_t)(QnnSystemContext_Handle_t sysCtxHandle,
                                                                     uint64_t* weightsSize);

#define OPENHTP_SYSTEM_CONTEXT_GET_WEIGHTS_SIZE_SYMBOL "OpenHtpSystemContext_getWeightsSize"

#ifdef __cplusplus
}
#endif

#endif /* OPENHTP_SYSTEM_EXT_H */
