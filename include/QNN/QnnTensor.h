/*
 * openhtp - QNN-compatible public API.
 * QnnTensor.h: registering tensors with a context or graph.
 */
#ifndef QNN_TENSOR_H
#define QNN_TENSOR_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  QNN_TENSOR_MIN_ERROR = QNN_MIN_ERROR_TENSOR,
  QNN_TENSOR_NO_ERROR = QNN_SUCCESS,
  QNN_TENSOR_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_TENSOR + 1,
  QNN_TENSOR_ERROR_DOES_NOT_EXIST = QNN_MIN_ERROR_TENSOR + 2,
  QNN_TENSOR_ERROR_ALREADY_EXISTS = QNN_MIN_ERROR_TENSOR + 3,
  QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM = QNN_MIN_ERROR_TENSOR + 4,
  QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM = QNN_MIN_ERROR_TENSOR + 5,
  QNN_TENSOR_ERROR_NAME_HASH_COLLISION = QNN_MIN_ERROR_TENSOR + 6,
  QNN_TENSOR_ERROR_INCOMPATIBLE_TENSOR_UPDATE = QNN_MIN_ERROR_TENSOR + 7,
  QNN_TENSOR_ERROR_UNSUPPORTED_FEATURE = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_TENSOR_MAX_ERROR = QNN_MAX_ERROR_TENSOR,
  QNN_TENSOR_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnTensor_Error_t;

/* The tensor is in/out: the backend writes its id. */
QNN_API
Qnn_ErrorHandle_t QnnTensor_createContextTensor(Qnn_ContextHandle_t context, Qnn_Tensor_t* tensor);

QNN_API
Qnn_ErrorHandle_t QnnTensor_createGraphTensor(Qnn_GraphHandle_t graph, Qnn_Tensor_t* tensor);

/* Replace data / encodings of UPDATEABLE_* tensors. */
QNN_API
Qnn_ErrorHandle_t QnnTensor_updateGraphTensors(Qnn_GraphHandle_t graph, const Qnn_Tensor_t** tensor,
                                               uint64_t numTensors);

QNN_API
Qnn_ErrorHandle_t QnnTensor_updateContextTensors(Qnn_ContextHandle_t context,
                                                 const Qnn_Tensor_t** tensor, uint64_t numTensors);

#ifdef __cplusplus
}
#endif

#endif /* QNN_TENSOR_H */
