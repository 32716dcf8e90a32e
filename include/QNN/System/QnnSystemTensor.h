/*
 * openhtp - QNN-compatible public API.
 * System/QnnSystemTensor.h: tensor helpers of the System library.
 */
#ifndef QNN_SYSTEM_TENSOR_H
#define QNN_SYSTEM_TENSOR_H

#include "QnnTypes.h"
#include "System/QnnSystemCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes needed to hold the tensor's data. */
QNN_SYSTEM_API
Qnn_ErrorHandle_t QnnSystemTensor_getMemoryFootprint(Qnn_Tensor_t tensor, uint64_t* footprint);

#ifdef __cplusplus
}
#endif

#endif /* QNN_SYSTEM_TENSOR_H */
