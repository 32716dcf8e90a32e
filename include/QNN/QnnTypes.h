/*
 * openhtp - QNN-compatible public API.
 * QnnTypes.h: basic value types (data types, versions, scalars, quantization
 * encodings, tensors, params, op configs). Strings are UTF-8, NUL-terminated.
 */
#ifndef QNN_TYPES_H
#define QNN_TYPES_H

#ifdef __cplusplus
#include <climits>
#include <cstddef>
#include <cstdint>
#else
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "QnnCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Framework-op to QNN-op mapping (used by DLC tools) ---- */

typedef enum { QNN_OP_MAPPING_TYPE_TENSOR = 0, QNN_OP_MAPPING_TYPE_OP = 1 } Qnn_MappingType_t;

typedef struct {
  const char* name;
  Qnn_MappingType_t type;
} Qnn_OpMappingPair_t;

typedef struct {
  const char* name;
  Qnn_OpMappingPair_t* pair;
  uint32_t numPairs;
} Qnn_Mapping_t;

typedef struct {
  const char* graphName;
  Qnn_Mapping_t* opMappings;
  uint32_t numOpMappings;
  Qnn_Mapping_t* tensorMappings;
  uint32_t numTensorMappings;
} Qnn_OpMappingV1_t;

typedef enum {
  QNN_OP_MAPPING_VERSION_1 = 1,
} Qnn_OpMappingVersion_t;

typedef struct {
  Qnn_OpMappingVersion_t version;
  union UNNAMED {
    Qnn_OpMappingV1_t* v1;
  };
} Qnn_OpMapping_t;

#define QNN_OP_MAPPING_INIT {QNN_OP_MAPPING_VERSION_1, {NULL}}
#define QNN_OP_MAPPING_V1_INIT {NULL, NULL, 0, NULL, 0}

/* ---- Element types. High byte = class, low byte = bit width (as hex digits).
 * Sub-byte types are packed little-endian, first element in the lowest bits. */
typedef enum {
  QNN_DATATYPE_INT_2 = 0x0002,
  QNN_DATATYPE_INT_4 = 0x0004,
  QNN_DATATYPE_INT_8 = 0x0008,
  QNN_DATATYPE_INT_16 = 0x0016,
  QNN_DATATYPE_INT_32 = 0x0032,
  QNN_DATATYPE_INT_64 = 0x0064,

  QNN_DATATYPE_UINT_2 = 0x0102,
  QNN_DATATYPE_UINT_4 = 0x0104,
  QNN_DATATYPE_UINT_8 = 0x0108,
  QNN_DATATYPE_UINT_16 = 0x0116,
  QNN_DATATYPE_UINT_32 = 0x0132,
  QNN_DATATYPE_UINT_64 = 0x0164,

  QNN_DATATYPE_FLOAT_4 = 0x0204,
  QNN_DATATYPE_FLOAT_8 = 0x0208,
  QNN_DATATYPE_FLOAT_16 = 0x0216,
  QNN_DATATYPE_BFLOAT_16 = 0x0226,
  QNN_DATATYPE_FLOAT_32 = 0x0232,
  QNN_DATATYPE_FLOAT_64 = 0x0264,

  QNN_DATATYPE_SFIXED_POINT_2 = 0x0302,
  QNN_DATATYPE_SFIXED_POINT_4 = 0x0304,
  QNN_DATATYPE_SFIXED_POINT_8 = 0x0308,
  QNN_DATATYPE_SFIXED_POINT_16 = 0x0316,
  QNN_DATATYPE_SFIXED_POINT_32 = 0x0332,

  QNN_DATATYPE_UFIXED_POINT_2 = 0x0402,
  QNN_DATATYPE_UFIXED_POINT_4 = 0x0404,
  QNN_DATATYPE_UFIXED_POINT_8 = 0x0408,
  QNN_DATATYPE_UFIXED_POINT_16 = 0x0416,
  QNN_DATATYPE_UFIXED_POINT_32 = 0x0432,

  /* 0 is false, anything else true. */
  QNN_DATATYPE_BOOL_8 = 0x0508,
  QNN_DATATYPE_STRING = 0x0608,

  QNN_DATATYPE_UNDEFINED = 0x7FFFFFFF
} Qnn_DataType_t;

/* Microscaling float element encodings. */
typedef enum {
  QNN_FLOAT_ENCODING_MXFP8_E5M2 = 0,
  QNN_FLOAT_ENCODING_MXFP8_E4M3 = 1,
  QNN_FLOAT_ENCODING_MXFP6_E3M2 = 2,
  QNN_FLOAT_ENCODING_MXFP6_E2M3 = 3,
  QNN_FLOAT_ENCODING_MXFP4_E2M1 = 4,
  QNN_FLOAT_ENCODING_UNDEFINED = 0x7FFFFFFF
} Qnn_FloatEncoding_t;

/* Math precision a backend should use. */
typedef enum {
  QNN_PRECISION_FLOAT32 = 0,
  QNN_PRECISION_FLOAT16 = 1,
  QNN_PRECISION_UNDEFINED = 0x7FFFFFFF
} Qnn_Precision_t;

/* Who may read / write a tensor. */
typedef enum {
  QNN_TENSOR_TYPE_APP_WRITE = 0,   /* graph input */
  QNN_TENSOR_TYPE_APP_READ = 1,    /* graph output */
  QNN_TENSOR_TYPE_APP_READWRITE = 2,
  QNN_TENSOR_TYPE_NATIVE = 3,      /* intermediate, backend owned */
  QNN_TENSOR_TYPE_STATIC = 4,      /* constant data */
  QNN_TENSOR_TYPE_NULL = 5,        /* absent optional input */
  QNN_TENSOR_TYPE_UPDATEABLE_STATIC = 6,
  QNN_TENSOR_TYPE_UPDATEABLE_NATIVE = 7,
  QNN_TENSOR_TYPE_UPDATEABLE_APP_WRITE = 8,
  QNN_TENSOR_TYPE_UPDATEABLE_APP_READ = 9,
  QNN_TENSOR_TYPE_UPDATEABLE_APP_READWRITE = 10,
  QNN_TENSOR_TYPE_OPTIONAL_APP_WRITE = 11,
  QNN_TENSOR_TYPE_OPTIONAL_APP_READ = 12,
  QNN_TENSOR_TYPE_OPTIONAL_APP_READWRITE = 13,
  QNN_TENSOR_TYPE_UNDEFINED = 0x7FFFFFFF
} Qnn_TensorType_t;

typedef enum {
  QNN_PARAMTYPE_SCALAR = 0,
  QNN_PARAMTYPE_TENSOR = 1,
  QNN_PARAMTYPE_UNDEFINED = 0x7FFFFFFF
} Qnn_ParamType_t;

/* Whether following fields are given by the client or left to the backend. */
typedef enum {
  QNN_DEFINITION_IMPL_GENERATED = 0,
  QNN_DEFINITION_DEFINED = 1,
  QNN_DEFINITION_UNDEFINED = 0x7FFFFFFF
} Qnn_Definition_t;

/* Scheduling priority. Values at NORMAL and above may be restricted. */
typedef enum {
  QNN_PRIORITY_LOWEST = 0,
  QNN_PRIORITY_LOW = QNN_PRIORITY_LOWEST,
  QNN_PRIORITY_NORMAL_LOW = 50,
  QNN_PRIORITY_NORMAL = 100,
  QNN_PRIORITY_DEFAULT = QNN_PRIORITY_NORMAL,
  QNN_PRIORITY_NORMAL_HIGH = 150,
  QNN_PRIORITY_HIGH = 200,
  QNN_PRIORITY_HIGH_PLUS = 300,
  QNN_PRIORITY_CRITICAL = 400,
  QNN_PRIORITY_CRITICAL_PLUS = 500,
  QNN_PRIORITY_HIGHEST = QNN_PRIORITY_CRITICAL_PLUS,
  QNN_PRIORITY_UNDEFINED = 0x7FFFFFFF
} Qnn_Priority_t;

/* Size of a context binary in bytes. */
typedef uint64_t Qnn_ContextBinarySize_t;

typedef enum {
  QNN_ERROR_REPORTING_LEVEL_BRIEF = 0,
  QNN_ERROR_REPORTING_LEVEL_DETAILED = 1,
  QNN_ERROR_REPORTING_LEVEL_UNDEFINED = 0x7FFFFFFF
} Qnn_ErrorReportingLevel_t;

typedef struct {
  Qnn_ErrorReportingLevel_t reportingLevel;
  uint32_t storageLimit; /* KB reserved for error details */
} Qnn_ErrorReportingConfig_t;

#define QNN_ERROR_REPORTING_CONFIG_INIT {QNN_ERROR_REPORTING_LEVEL_UNDEFINED, 0u}

typedef struct {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
} Qnn_Version_t;

#define QNN_VERSION_INIT {0u, 0u, 0u}

/* Core API version plus the backend-specific API version. */
typedef struct {
  Qnn_Version_t coreApiVersion;
  Qnn_Version_t backendApiVersion;
} Qnn_ApiVersion_t;

#define QNN_API_VERSION_INIT \
  {{QNN_API_VERSION_MAJOR, QNN_API_VERSION_MINOR, QNN_API_VERSION_PATCH}, QNN_VERSION_INIT}

/* A typed scalar (op parameter value, profile value ...). */
typedef struct {
  Qnn_DataType_t dataType;
  union UNNAMED {
    float floatValue;
    double doubleValue;
    uint64_t uint64Value;
    int64_t int64Value;
    uint32_t uint32Value;
    int32_t int32Value;
    uint16_t uint16Value;
    int16_t int16Value;
    uint8_t uint8Value;
    int8_t int8Value;
    uint8_t bool8Value;
    int16_t bfloat16Value;
    const char* stringValue;
  };
} Qnn_Scalar_t;

#define QNN_SCALAR_INIT {QNN_DATATYPE_UNDEFINED, {0.0f}}

/* ---- Quantization ----
 * Dequantized value = (quantized + offset) * scale; offset is usually the
 * negated zero point. */
typedef enum {
  QNN_QUANTIZATION_ENCODING_SCALE_OFFSET = 0,
  QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET = 1,
  QNN_QUANTIZATION_ENCODING_BW_SCALE_OFFSET = 2,
  QNN_QUANTIZATION_ENCODING_BW_AXIS_SCALE_OFFSET = 3,
  QNN_QUANTIZATION_ENCODING_BLOCK = 4,
  QNN_QUANTIZATION_ENCODING_BLOCKWISE_EXPANSION = 5,
  QNN_QUANTIZATION_ENCODING_VECTOR = 6,
  QNN_QUANTIZATION_ENCODING_FLOAT_BLOCK = 7,
  QNN_QUANTIZATION_ENCODING_BW_AXIS_SCALE_OFFSET_MAPPED = 8,
  QNN_QUANTIZATION_ENCODING_BW_BLOCK_MAPPED = 9,
  QNN_QUANTIZATION_ENCODING_BW_BLOCKWISE_EXPANSION_MAPPED = 10,
  QNN_QUANTIZATION_ENCODING_BW_FLOAT_BLOCK = 11,
  QNN_QUANTIZATION_ENCODING_MICROSCALING = 12,
  QNN_QUANTIZATION_ENCODING_ARRAY_OF = 13,
  QNN_QUANTIZATION_ENCODING_UNDEFINED = 0x7FFFFFFF
} Qnn_QuantizationEncoding_t;

/* How low bit-width codes map onto integer levels. */
typedef enum {
  QNN_QUANTIZATION_ENCODING_MAPPING_STANDARD_SYMMETRIC = 0,
  QNN_QUANTIZATION_ENCODING_MAPPING_ASYMMETRIC_PLUS_ONE = 1,
  QNN_QUANTIZATION_ENCODING_MAPPING_LINEAR_SYMMETRIC_EXCLUDE_ZERO = 2,
  QNN_QUANTIZATION_ENCODING_MAPPING_UNDEFINED = 0x7FFFFFFF
} Qnn_QuantizationEncodingMapping_t;

typedef struct {
  float scale; /* > 0 */
  int32_t offset;
} Qnn_ScaleOffset_t;

#define QNN_SCALE_OFFSET_INIT {0.0f, 0}

/* Per-tensor encoding with an explicit bit width (<= data type width). */
typedef struct {
  uint32_t bitwidth;
  float scale;
  int32_t offset;
} Qnn_BwScaleOffset_t;

#define QNN_BW_SCALE_OFFSET_INIT {0u, 0.0f, 0}

/* Per-axis (per-channel) encoding. */
typedef struct {
  int32_t axis;
  uint32_t numScaleOffsets;
  Qnn_ScaleOffset_t* scaleOffset;
} Qnn_AxisScaleOffset_t;

#define QNN_AXIS_SCALE_OFFSET_INIT {0, 0u, NULL}

/* Per-axis encoding with bit width; offsets == NULL means symmetric. */
typedef struct {
  uint32_t bitwidth;
  int32_t axis;
  uint32_t numElements;
  float* scales;
  int32_t* offsets;
} Qnn_BwAxisScaleOffset_t;

#define QNN_BW_AXIS_SCALE_OFFSET_INIT {0u, 0, 0u, NULL, NULL}

typedef struct {
  uint32_t bitwidth;
  int32_t axis;
  Qnn_QuantizationEncodingMapping_t mapping;
  uint32_t numElements;
  float* scales;
  int32_t* offsets;
} Qnn_BwAxisScaleOffsetMapped_t;

#define QNN_BW_AXIS_SCALE_OFFSET_MAPPED_INIT \
  {0u, 0, QNN_QUANTIZATION_ENCODING_MAPPING_STANDARD_SYMMETRIC, 0u, NULL, NULL}

/* Block encoding: blockSize has one entry per tensor dimension; there is one
 * scale/offset pair per block. */
typedef struct {
  uint32_t* blockSize;
  Qnn_ScaleOffset_t* scaleOffset;
} Qnn_BlockEncoding_t;

#define QNN_BLOCK_ENCODING_INIT {NULL, NULL}

typedef struct {
  uint32_t bitwidth;
  Qnn_QuantizationEncodingMapping_t mapping;
  uint32_t* blockSize;
  Qnn_ScaleOffset_t* scaleOffset;
} Qnn_BwBlockMapped_t;

#define QNN_BW_BLOCK_MAPPED_ENCODING_INIT \
  {0u, QNN_QUANTIZATION_ENCODING_MAPPING_STANDARD_SYMMETRIC, NULL, NULL}

/* Storage width of per-block scale factors. */
typedef enum {
  QNN_BLOCKWISE_EXPANSION_BITWIDTH_SCALE_STORAGE_8 = 0,
  QNN_BLOCKWISE_EXPANSION_BITWIDTH_SCALE_STORAGE_16 = 1,
  QNN_BLOCKWISE_EXPANSION_BITWIDTH_SCALE_STORAGE_UNDEFINED = 0x7FFFFFFF
} Qnn_BlockwiseExpansionBlockScaleStorageType_t;

/* Per-channel scale/offset refined by a small integer scale per block. */
typedef struct {
  int32_t axis;
  Qnn_ScaleOffset_t* scaleOffsets;
  uint32_t numBlocksPerAxis;
  uint32_t blockScaleBitwidth;
  Qnn_BlockwiseExpansionBlockScaleStorageType_t blockScaleStorageType;
  union UNNAMED {
    uint8_t* blocksScale8;
    uint16_t* blocksScale16;
  };
} Qnn_BlockwiseExpansion_t;

#define QNN_BLOCKWISE_EXPANSION_INIT \
  {0, NULL, 0u, 0u, QNN_BLOCKWISE_EXPANSION_BITWIDTH_SCALE_STORAGE_UNDEFINED, {NULL}}

typedef struct {
  uint32_t bitwidth;
  Qnn_QuantizationEncodingMapping_t mapping;
  int32_t axis;
  Qnn_ScaleOffset_t* scaleOffsets;
  uint32_t numBlocksPerAxis;
  uint32_t blockScaleBitwidth;
  Qnn_BlockwiseExpansionBlockScaleStorageType_t blockScaleStorageType;
  union UNNAMED {
    uint8_t* blocksScale8;
    uint16_t* blocksScale16;
  };
} Qnn_BwBlockwiseExpansionMapped_t;

#define QNN_BW_BLOCKWISE_EXPANSION_MAPPED_INIT                                               \
  {0u, QNN_QUANTIZATION_ENCODING_MAPPING_STANDARD_SYMMETRIC, 0, NULL, 0u, 0u,                \
   QNN_BLOCKWISE_EXPANSION_BITWIDTH_SCALE_STORAGE_UNDEFINED, {NULL}}

/* Vector-quantized (codebook) weights. */
typedef struct {
  Qnn_BwAxisScaleOffset_t bwAxisScaleOffset;
  uint32_t rowsPerBlock;
  uint32_t columnsPerBlock;
  uint8_t vectorDimension;
  uint8_t vectorStride;
  uint8_t indexBitwidth;
} Qnn_VectorEncoding_t;

#define QNN_VECTOR_ENCODING_INIT {QNN_BW_AXIS_SCALE_OFFSET_INIT, 0u, 0u, 0u, 0u, 0u}

/* Float offset variant: value = (q + offset / scale) * scale. */
typedef struct {
  float scale;
  float offset;
} Qnn_FloatScaleOffset_t;

#define QNN_FLOAT_SCALE_OFFSET_INIT {0.0f, 0.0f}

typedef struct {
  uint32_t* blockSize;
  Qnn_FloatScaleOffset_t* floatScaleOffset;
} Qnn_FloatBlockEncoding_t;

#define QNN_FLOAT_BLOCK_ENCODING_INIT {NULL, NULL}

typedef struct {
  uint32_t bitwidth;
  uint32_t* blockSize;
  Qnn_FloatScaleOffset_t* floatScaleOffset;
} Qnn_BwFloatBlockEncoding_t;

#define QNN_BW_FLOAT_BLOCK_ENCODING_INIT {0u, NULL, NULL}

/* Microscaling (MX) encoding: one shared scale per block. */
typedef struct {
  Qnn_FloatEncoding_t valueEncoding;
  uint32_t blockRank;
  uint32_t* blockDimensions;
  uint32_t blockCount;
  Qnn_DataType_t scaleDataType;
  union UNNAMED {
    uint8_t* blockScales8;    /* FLOAT_8 scales: 2^(v - 127) */
    float* blockScalesFloat;  /* FLOAT_16 / FLOAT_32 scales */
  };
} Qnn_MicroscalingEncoding_t;

#define QNN_MICROSCALING_ENCODING_INIT \
  {QNN_FLOAT_ENCODING_UNDEFINED, 0u, NULL, 0u, QNN_DATATYPE_UNDEFINED, {NULL}}

/* Defined after Qnn_Tensor_t below. */
typedef struct Qnn_ArrayOf_t Qnn_ArrayOf_t;

/* Quantization description of a tensor. Members marked (ptr) are pointers. */
typedef struct {
  Qnn_Definition_t encodingDefinition;
  Qnn_QuantizationEncoding_t quantizationEncoding;
  union UNNAMED {
    Qnn_ScaleOffset_t scaleOffsetEncoding;
    Qnn_AxisScaleOffset_t axisScaleOffsetEncoding;
    Qnn_BwScaleOffset_t bwScaleOffsetEncoding;
    Qnn_BwAxisScaleOffset_t bwAxisScaleOffsetEncoding;
    Qnn_BlockEncoding_t blockEncoding;
    Qnn_BlockwiseExpansion_t* blockwiseExpansion;                       /* (ptr) */
    Qnn_VectorEncoding_t* vectorEncoding;                               /* (ptr) */
    Qnn_FloatBlockEncoding_t floatBlockEncoding;
    Qnn_BwAxisScaleOffsetMapped_t* bwAxisScaleOffsetMappedEncoding;     /* (ptr) */
    Qnn_BwBlockMapped_t* bwBlockMappedEncoding;                         /* (ptr) */
    Qnn_BwBlockwiseExpansionMapped_t* bwBlockwiseExpansionMappedEncoding; /* (ptr) */
    Qnn_BwFloatBlockEncoding_t bwFloatBlockEncoding;
    Qnn_MicroscalingEncoding_t* microScalingEncoding;                   /* (ptr) */
    Qnn_ArrayOf_t* arrayOfEncoding;                                     /* (ptr) */
  };
} Qnn_QuantizeParams_t;

#define QNN_QUANTIZE_PARAMS_INIT \
  {QNN_DEFINITION_UNDEFINED, QNN_QUANTIZATION_ENCODING_UNDEFINED, {QNN_SCALE_OFFSET_INIT}}

/* ---- Tensor data formats (Qnn_TensorDataFormat_t values) ---- */
#define QNN_TENSOR_DATA_FORMAT_DENSE 0
#define QNN_TENSOR_DATA_FORMAT_FLAT_BUFFER QNN_TENSOR_DATA_FORMAT_DENSE
#define QNN_TENSOR_DATA_FORMAT_SPARSE 1
#define QNN_TENSOR_DATA_FORMAT_CODEBOOK 2
#define QNN_TENSOR_DATA_FORMAT_MX 3
#define QNN_TENSOR_DATA_FORMAT_UBWC_RGBA8888 4
#define QNN_TENSOR_DATA_FORMAT_UBWC_NV12 5
#define QNN_TENSOR_DATA_FORMAT_UBWC_NV12_Y 6
#define QNN_TENSOR_DATA_FORMAT_UBWC_NV12_UV 7
#define QNN_TENSOR_DATA_FORMAT_HMX_WEIGHT_LAYOUT 8
#define QNN_TENSOR_DATA_FORMAT_UBWC_NV124R 9
#define QNN_TENSOR_DATA_FORMAT_UBWC_NV124R_Y 10
#define QNN_TENSOR_DATA_FORMAT_UBWC_NV124R_UV 11
#define QNN_TENSOR_DATA_FORMAT_UBWC_P010 12
#define QNN_TENSOR_DATA_FORMAT_UBWC_P010_Y 13
#define QNN_TENSOR_DATA_FORMAT_UBWC_P010_UV 14
#define QNN_TENSOR_DATA_FORMAT_UBWC_P016 15
#define QNN_TENSOR_DATA_FORMAT_UBWC_P016_Y 16
#define QNN_TENSOR_DATA_FORMAT_UBWC_P016_UV 17
#define QNN_TENSOR_DATA_FORMAT_UBWC_TP10 18
#define QNN_TENSOR_DATA_FORMAT_UBWC_TP10_Y 19
#define QNN_TENSOR_DATA_FORMAT_UBWC_TP10_UV 20
#define QNN_TENSOR_DATA_FORMAT_UBWC_TBAYER10_1X1 21
#define QNN_TENSOR_DATA_FORMAT_UBWC_TBAYER10_2X2 22
#define QNN_TENSOR_DATA_FORMAT_UBWC_TBAYER10_3X3 23
#define QNN_TENSOR_DATA_FORMAT_UBWC_TBAYER10_4X4 24
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_10BPS_1X1 25
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_10BPS_2X2 26
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_10BPS_4X4 27
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_12BPS_1X1 28
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_12BPS_2X2 29
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_12BPS_4X4 30
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_14BPS_1X1 31
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_14BPS_2X2 32
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_14BPS_4X4 33
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_16BPS_1X1 34
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_16BPS_2X2 35
#define QNN_TENSOR_DATA_FORMAT_UBWC_BAYER16_16BPS_4X4 36
#define QNN_TENSOR_DATA_FORMAT_BATCH_ALIGNED_256 37

typedef uint32_t Qnn_TensorDataFormat_t;

/* Where a tensor's data lives. */
typedef enum {
  QNN_TENSORMEMTYPE_RAW = 0,          /* clientBuf */
  QNN_TENSORMEMTYPE_MEMHANDLE = 1,    /* memHandle from QnnMem_register */
  QNN_TENSORMEMTYPE_RETRIEVE_RAW = 2, /* retrieveRaw callbacks (tensor V2 only) */
  QNN_TENSORMEMTYPE_UNDEFINED = 0x7FFFFFFF
} Qnn_TensorMemType_t;

/* Plain client memory. */
typedef struct {
  void* data;
  uint32_t dataSize; /* bytes */
} Qnn_ClientBuffer_t;

#define QNN_CLIENT_BUFFER_INIT {NULL, 0u}

/* Client callbacks that hand out tensor data on demand. Every successful get
 * is matched by one free. */
typedef Qnn_ErrorHandle_t (*Qnn_GetTensorRawDataFn_t)(Qnn_ContextHandle_t context,
                                                      Qnn_GraphHandle_t graph, uint64_t id,
                                                      Qnn_ClientBuffer_t* clientBuf);
typedef Qnn_ErrorHandle_t (*Qnn_FreeTensorRawDataFn_t)(Qnn_ContextHandle_t context,
                                                       Qnn_GraphHandle_t graph, uint64_t id);

typedef struct {
  Qnn_GetTensorRawDataFn_t getTensorData;
  Qnn_FreeTensorRawDataFn_t freeTensorData;
} Qnn_TensorRetrieveRaw_t;

#define QNN_TENSOR_RETRIEVE_RAW_INIT {NULL, NULL}

/* Opaque blob with a 64-bit length. */
typedef struct {
  void* data;
  uint64_t len;
} Qnn_OpaqueObject_t;

#define QNN_OPAQUE_OBJECT_INIT {NULL, 0u}

/* Tensor description, version 1 (112 bytes on LP64). */
typedef struct {
  uint32_t id; /* assigned by the backend */
  const char* name;
  Qnn_TensorType_t type;
  Qnn_TensorDataFormat_t dataFormat;
  Qnn_DataType_t dataType;
  Qnn_QuantizeParams_t quantizeParams;
  uint32_t rank;
  uint32_t* dimensions; /* rank entries, NULL when rank is 0 */
  Qnn_TensorMemType_t memType;
  union UNNAMED {
    Qnn_ClientBuffer_t clientBuf;
    Qnn_MemHandle_t memHandle;
  };
} Qnn_TensorV1_t;

#define QNN_TENSOR_V1_INIT                                                              \
  {0u, NULL, QNN_TENSOR_TYPE_UNDEFINED, QNN_TENSOR_DATA_FORMAT_FLAT_BUFFER,             \
   QNN_DATATYPE_UNDEFINED, QNN_QUANTIZE_PARAMS_INIT, 0u, NULL, QNN_TENSORMEMTYPE_UNDEFINED, \
   {QNN_CLIENT_BUFFER_INIT}}

typedef enum {
  QNN_SPARSE_LAYOUT_HYBRID_COO = 0,
  QNN_SPARSE_LAYOUT_UNDEFINED = 0x7FFFFFFF
} Qnn_SparseLayoutType_t;

typedef struct {
  uint32_t numSpecifiedElements;
  uint32_t numSparseDimensions;
} Qnn_SparseLayoutHybridCoo_t;

#define QNN_SPARSE_LAYOUT_HYBRID_COO_INIT {0u, 0u}

/* Only meaningful for QNN_TENSOR_DATA_FORMAT_SPARSE. */
typedef struct {
  Qnn_SparseLayoutType_t type;
  union UNNAMED {
    Qnn_SparseLayoutHybridCoo_t hybridCoo;
  };
} Qnn_SparseParams_t;

#define QNN_SPARSE_PARAMS_INIT {QNN_SPARSE_LAYOUT_UNDEFINED, {QNN_SPARSE_LAYOUT_HYBRID_COO_INIT}}

/* Tensor description, version 2 (136 bytes on LP64). The first fields match
 * version 1. */
typedef struct {
  uint32_t id;
  const char* name;
  Qnn_TensorType_t type;
  Qnn_TensorDataFormat_t dataFormat;
  Qnn_DataType_t dataType;
  Qnn_QuantizeParams_t quantizeParams;
  uint32_t rank;
  uint32_t* dimensions;
  Qnn_TensorMemType_t memType;
  union UNNAMED {
    Qnn_ClientBuffer_t clientBuf;
    Qnn_MemHandle_t memHandle;
    Qnn_TensorRetrieveRaw_t* retrieveRaw;
  };
  uint8_t* isDynamicDimensions; /* rank flags, or NULL when all static */
  Qnn_SparseParams_t sparseParams;
  uint8_t isProduced; /* set by execute when early termination is supported */
} Qnn_TensorV2_t;

#define QNN_TENSOR_V2_INIT                                                                  \
  {0u, NULL, QNN_TENSOR_TYPE_UNDEFINED, QNN_TENSOR_DATA_FORMAT_FLAT_BUFFER,                 \
   QNN_DATATYPE_UNDEFINED, QNN_QUANTIZE_PARAMS_INIT, 0u, NULL, QNN_TENSORMEMTYPE_UNDEFINED, \
   {QNN_CLIENT_BUFFER_INIT}, NULL, QNN_SPARSE_PARAMS_INIT, 0u}

typedef enum {
  QNN_TENSOR_VERSION_1 = 1,
  QNN_TENSOR_VERSION_2 = 2,
  QNN_TENSOR_VERSION_UNDEFINED = 0x7FFFFFFF
} Qnn_TensorVersion_t;

/* Versioned tensor (144 bytes on LP64). */
typedef struct {
  Qnn_TensorVersion_t version;
  union UNNAMED {
    Qnn_TensorV1_t v1;
    Qnn_TensorV2_t v2;
  };
} Qnn_Tensor_t;

#define QNN_TENSOR_INIT {QNN_TENSOR_VERSION_1, {QNN_TENSOR_V1_INIT}}

typedef struct {
  uint32_t numInputs;
  Qnn_Tensor_t* inputs;
  uint32_t numOutputs;
  Qnn_Tensor_t* outputs;
} Qnn_TensorSetV1_t;

#define QNN_TENSOR_SET_V1_INIT {0u, NULL, 0u, NULL}

typedef enum {
  QNN_TENSOR_SET_VERSION_1 = 1,
  QNN_TENSOR_SET_VERSION_UNDEFINED = 0x7FFFFFFF
} Qnn_TensorSetVersion_t;

typedef struct {
  Qnn_TensorSetVersion_t version;
  union UNNAMED {
    Qnn_TensorSetV1_t v1;
  };
} Qnn_TensorSet_t;

#define QNN_TENSOR_SET_INIT {QNN_TENSOR_SET_VERSION_1, {QNN_TENSOR_SET_V1_INIT}}

/* A list of alternative encodings selected at run time by indexTensor. */
struct Qnn_ArrayOf_t {
  Qnn_QuantizationEncoding_t quantizationEncoding;
  uint32_t numElements;
  Qnn_Tensor_t* indexTensor;
  Qnn_QuantizeParams_t** vectorElements;
};

#define QNN_ARRAYOF_INIT {QNN_QUANTIZATION_ENCODING_UNDEFINED, 0u, NULL, NULL}

/* Named op parameter: a scalar or a STATIC tensor (160 bytes on LP64). */
typedef struct {
  Qnn_ParamType_t paramType;
  const char* name;
  union UNNAMED {
    Qnn_Scalar_t scalarParam;
    Qnn_Tensor_t tensorParam;
  };
} Qnn_Param_t;

#define QNN_PARAM_INIT {QNN_PARAMTYPE_UNDEFINED, NULL, {QNN_SCALAR_INIT}}

/* One node of a graph. */
typedef struct {
  const char* name;        /* instance name */
  const char* packageName; /* e.g. QNN_OP_PACKAGE_NAME_QTI_AISW */
  const char* typeName;    /* e.g. QNN_OP_CONV_2D */
  uint32_t numOfParams;
  Qnn_Param_t* params;
  uint32_t numOfInputs;
  Qnn_Tensor_t* inputTensors;
  uint32_t numOfOutputs;
  Qnn_Tensor_t* outputTensors;
} Qnn_OpConfigV1_t;

#define QNN_OPCONFIG_V1_INIT {NULL, NULL, NULL, 0u, NULL, 0u, NULL, 0u, NULL}

typedef enum {
  QNN_OPCONFIG_VERSION_1 = 1,
  QNN_OPCONFIG_VERSION_UNDEFINED = 0x7FFFFFFF
} Qnn_OpConfigVersion_t;

/* Versioned op config (80 bytes on LP64); passed by value. */
typedef struct {
  Qnn_OpConfigVersion_t version;
  union UNNAMED {
    Qnn_OpConfigV1_t v1;
  };
} Qnn_OpConfig_t;

#define QNN_OPCONFIG_INIT {QNN_OPCONFIG_VERSION_1, {QNN_OPCONFIG_V1_INIT}}

/* SoC identifiers (no longer extended upstream). */
typedef enum {
  QNN_SOC_MODEL_UNKNOWN = 0,
  QNN_SOC_MODEL_SDM845 = 1,
  QNN_SOC_MODEL_SDM835 = 2,
  QNN_SOC_MODEL_SDM821 = 3,
  QNN_SOC_MODEL_SDM820 = 4,
  QNN_SOC_MODEL_SDM801 = 5,
  QNN_SOC_MODEL_SDM670 = 6,
  QNN_SOC_MODEL_SDM660 = 7,
  QNN_SOC_MODEL_SDM652 = 8,
  QNN_SOC_MODEL_SDM636 = 9,
  QNN_SOC_MODEL_SDM630 = 10,
  QNN_SOC_MODEL_SDM625 = 11,
  QNN_SOC_MODEL_SDM855 = 12,
  QNN_SOC_MODEL_SDM710 = 13,
  QNN_SOC_MODEL_SDM632 = 15,
  QNN_SOC_MODEL_SM6150 = 16,
  QNN_SOC_MODEL_SM7150 = 17,
  QNN_SOC_MODEL_QCS405 = 18,
  QNN_SOC_MODEL_SM6125 = 19,
  QNN_SOC_MODEL_QCS403 = 20,
  QNN_SOC_MODEL_SDM865 = 21,
  QNN_SOC_MODEL_IPQ6018 = 23,
  QNN_SOC_MODEL_IPQ6028 = 24,
  QNN_SOC_MODEL_SM7250 = 25,
  QNN_SOC_MODEL_SA8195 = 26,
  QNN_SOC_MODEL_SM6250 = 27,
  QNN_SOC_MODEL_SM4250 = 28,
  QNN_SOC_MODEL_SM6350 = 29,
  QNN_SOC_MODEL_SM8350 = 30,
  QNN_SOC_MODEL_SM4350 = 31,
  QNN_SOC_MODEL_SM7350 = 32,
  QNN_SOC_MODEL_QCS410 = 33,
  QNN_SOC_MODEL_SM8325 = 34,
  QNN_SOC_MODEL_SM7325 = 35,
  QNN_SOC_MODEL_SM8450 = 36,
  QNN_SOC_MODEL_SC8280X = 37,
  QNN_SOC_MODEL_SM7315 = 38,
  QNN_SOC_MODEL_SA8295 = 39,
  QNN_SOC_MODEL_SM6225 = 40,
  QNN_SOC_MODEL_SM7450 = 41,
  QNN_SOC_MODEL_SM8475 = 42,
  QNN_SOC_MODEL_SM8550 = 43,
  QNN_SOC_MODEL_SXR1230P = 45,
  QNN_SOC_MODEL_SSG2115P = 46,
  QNN_SOC_MODEL_STP6225P = 47,
  QNN_SOC_MODEL_QCS6125 = 48,
  QNN_SOC_MODEL_QRB4210 = 49,
  QNN_SOC_MODEL_SM6450 = 50,
  QNN_SOC_MODEL_QCS7230 = 51,
  QNN_SOC_MODEL_SA8255 = 52,
  QNN_SOC_MODEL_SXR2230P = 53,
  QNN_SOC_MODEL_SM7475 = 54,
  QNN_SOC_MODEL_SM4375 = 55,
  QNN_SOC_MODEL_QCM4325 = 56,
  QNN_SOC_MODEL_SM8650 = 57,
  QNN_SOC_MODEL_SSG2125P = 58,
  QNN_SOC_MODEL_SM4450 = 59,
  QNN_SOC_MODEL_SC8380XP = 60,
  QNN_SOC_MODEL_SM7435 = 61,
  QNN_SOC_MODEL_SA8540 = 62,
  QNN_SOC_MODEL_AIC100 = 63,
  QNN_SOC_MODEL_SM7550 = 64,
  QNN_SOC_MODEL_SM6450Q = 65,
  QNN_SOC_MODEL_QCS8550 = 66,
  QNN_SOC_MODEL_SA8620P = 67,
  QNN_SOC_MODEL_SM8635 = 68,
  QNN_SOC_MODEL_SM8750 = 69,
  QNN_SOC_MODEL_SM7675 = 70,
  QNN_SOC_MODEL_SM4635 = 71,
  QNN_SOC_MODEL_SA8797 = 72,
  QNN_SOC_MODEL_SM7635 = 73,
  QNN_SOC_MODEL_SM6650 = 74,
  QNN_SOC_MODEL_SXR2330P = 75,
  QNN_SOC_MODEL_SM6475 = 76,
  QNN_SOC_MODEL_QCS9100 = 77,
  QNN_SOC_MODEL_QCM6690 = 78,
  QNN_SOC_MODEL_IPQ9574 = 79,
  QNN_SOC_MODEL_IPQ5404 = 80,
  QNN_SOC_MODEL_IPQ5424 = 81,
  QNN_SOC_MODEL_QCS8300 = 82,
  QNN_SOC_MODEL_QCS2290 = 83,
  QNN_SOC_MODEL_SA525M = 84,
  QNN_SOC_MODEL_SM8735 = 85,
  QNN_SOC_MODEL_SM7750 = 86,
  QNN_SOC_MODEL_SM8850 = 87,
  QNN_SOC_MODEL_DYNAMIC_SDM = INT_MAX
} Qnn_SocModel_t;

#ifdef __cplusplus
}
#endif

#endif /* QNN_TYPES_H */
