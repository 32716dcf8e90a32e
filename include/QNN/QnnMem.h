/*
 * openhtp - QNN-compatible public API.
 * QnnMem.h: registering client-allocated memory (ION, DMA-BUF, backend
 * custom) so tensors can refer to it through a Qnn_MemHandle_t.
 */
#ifndef QNN_MEM_H
#define QNN_MEM_H

#include "QnnCommon.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QNN_MEM_INVALID_FD -1

typedef enum {
  QNN_MEM_MIN_ERROR = QNN_MIN_ERROR_MEM,
  QNN_MEM_NO_ERROR = QNN_SUCCESS,
  QNN_MEM_ERROR_NOT_SUPPORTED = QNN_COMMON_ERROR_NOT_SUPPORTED,
  QNN_MEM_ERROR_INVALID_ARGUMENT = QNN_MIN_ERROR_MEM + 0,
  QNN_MEM_ERROR_INVALID_HANDLE = QNN_MIN_ERROR_MEM + 1,
  QNN_MEM_ERROR_ALREADY_REGISTERED = QNN_MIN_ERROR_MEM + 2,
  QNN_MEM_ERROR_MAPPING = QNN_MIN_ERROR_MEM + 3,
  QNN_MEM_ERROR_INVALID_SHAPE = QNN_MIN_ERROR_MEM + 4,
  QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE = QNN_MIN_ERROR_MEM + 5,
  QNN_MEM_MAX_ERROR = QNN_MAX_ERROR_MEM,
  QNN_MEM_ERROR_UNDEFINED = 0x7FFFFFFF
} QnnMem_Error_t;

typedef struct {
  uint32_t numDim;
  uint32_t* dimSize;       /* numDim entries */
  const char* shapeConfig; /* optional, e.g. SHAPE_CONFIG_DATA_FORMAT_UBWC_NV12 */
} Qnn_MemShape_t;

#define SHAPE_CONFIG_DATA_FORMAT_UBWC_RGBA8888 "DATA_FORMAT_UBWC_RGBA8888"
#define SHAPE_CONFIG_DATA_FORMAT_UBWC_NV12 "DATA_FORMAT_UBWC_NV12"
#define SHAPE_CONFIG_DATA_FORMAT_UBWC_NV12_Y "DATA_FORMAT_UBWC_NV12_Y"
#define SHAPE_CONFIG_DATA_FORMAT_UBWC_NV12_UV "DATA_FORMAT_UBWC_NV12_UV"
#define SHAPE_CONFIG_DATA_FORMAT_UBWC_NV124R "DATA_FORMAT_UBWC_NV124R"
#define SHAPE_CONFIG_DATA_FORMAT_UBWC_NV124R_Y "DATA_FORMAT_UBWC_NV124R_Y"
#define SHAPE_CONFIG_DATA_FORMAT_UBWC_NV124R_UV "DATA_FORMAT_UBWC_NV124R_UV"

#define QNN_MEM_SHAPE_INIT {0u, NULL, NULL}

typedef enum {
  QNN_MEM_TYPE_ION = 1,
  QNN_MEM_TYPE_CUSTOM = 2, /* customInfo points to a backend descriptor */
  QNN_MEM_TYPE_DMA_BUF = 3,
  QNN_MEM_TYPE_UNDEFINED = 0x7FFFFFFF
} Qnn_MemType_t;

typedef struct {
  int32_t fd; /* QNN_MEM_INVALID_FD when not used */
} Qnn_MemIonInfo_t;

#define QNN_MEM_ION_INFO_INIT {QNN_MEM_INVALID_FD}

/* For HTP this points to a QnnMemHtp_Descriptor_t (HTP/QnnHtpMem.h). */
typedef void* Qnn_MemInfoCustom_t;

typedef struct {
  int32_t fd;
  void* data; /* client mapping of fd */
} Qnn_MemDmaBufInfo_t;

#define QNN_MEM_DMA_BUF_INFO_INIT {QNN_MEM_INVALID_FD, NULL}

/* One buffer to register (48 bytes on LP64). */
typedef struct {
  Qnn_MemShape_t memShape;
  Qnn_DataType_t dataType;
  Qnn_MemType_t memType;
  union UNNAMED {
    Qnn_MemIonInfo_t ionInfo;
    Qnn_MemInfoCustom_t customInfo;
    Qnn_MemDmaBufInfo_t dmaBufInfo;
  };
} Qnn_MemDescriptor_t;

#define QNN_MEM_DESCRIPTOR_INIT \
  {QNN_MEM_SHAPE_INIT, QNN_DATATYPE_UNDEFINED, QNN_MEM_TYPE_UNDEFINED, {QNN_MEM_ION_INFO_INIT}}

/* memHandles[i] receives the handle for memDescriptors[i]. The array is
 * cleared to NULL first; on failure nothing stays registered. */
QNN_API
Qnn_ErrorHandle_t QnnMem_register(Qnn_ContextHandle_t context,
                                  const Qnn_MemDescriptor_t* memDescriptors,
                                  uint32_t numDescriptors, Qnn_MemHandle_t* memHandles);

/* Every valid handle is released even if another one fails. */
QNN_API
Qnn_ErrorHandle_t QnnMem_deRegister(const Qnn_MemHandle_t* memHandles, uint32_t numHandles);

#ifdef __cplusplus
}
#endif

#endif /* QNN_MEM_H */
