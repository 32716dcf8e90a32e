/*
 * Shared body of all_headers.c / all_headers.cpp: includes every public
 * header and instantiates every initializer macro, so that a header or macro
 * that breaks under strict C11 / C++17 warnings fails the build.
 */
#ifndef OPENHTP_TESTS_ALL_HEADERS_BODY_H
#define OPENHTP_TESTS_ALL_HEADERS_BODY_H

#include "QnnBackend.h"
#include "QnnCommon.h"
#include "QnnContext.h"
#include "QnnDevice.h"
#include "QnnError.h"
#include "QnnGlobalConfig.h"
#include "QnnGraph.h"
#include "QnnInterface.h"
#include "QnnLog.h"
#include "QnnMem.h"
#include "QnnOpDef.h"
#include "QnnOpPackage.h"
#include "QnnProfile.h"
#include "QnnProperty.h"
#include "QnnSdkBuildId.h"
#include "QnnSignal.h"
#include "QnnTensor.h"
#include "QnnTypes.h"

#include "HTP/QnnHtpCommon.h"
#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpDevice.h"
#include "HTP/QnnHtpDeviceConfigShared.h"
#include "HTP/QnnHtpGraph.h"
#include "HTP/QnnHtpMem.h"
#include "HTP/QnnHtpPerfInfrastructure.h"
#include "HTP/QnnHtpProfile.h"
#include "HTP/QnnHtpProperty.h"
#include "HTP/QnnHtpSystemContext.h"

#include "Saver/QnnSaver.h"
#include "Saver/QnnSaverCommon.h"

#include "System/QnnSystemCommon.h"
#include "System/QnnSystemContext.h"
#include "System/QnnSystemDlc.h"
#include "System/QnnSystemInterface.h"
#include "System/QnnSystemLog.h"
#include "System/QnnSystemProfile.h"
#include "System/QnnSystemTensor.h"

/* The FastRPC headers are written by another part of the project; include
 * them when present. */
#if defined(__has_include)
#if __has_include("rpcmem.h")
#include "rpcmem.h"
#endif
#if __has_include("remote.h")
#include "remote.h"
#endif
#endif

/* Every *_INIT macro, once. Returns a value derived from all objects so
 * nothing is "unused". */
static int openhtp_use_all_init_macros(void) {
  Qnn_OpMapping_t opMapping = QNN_OP_MAPPING_INIT;
  Qnn_OpMappingV1_t opMappingV1 = QNN_OP_MAPPING_V1_INIT;
  Qnn_ErrorReportingConfig_t errCfg = QNN_ERROR_REPORTING_CONFIG_INIT;
  Qnn_Version_t version = QNN_VERSION_INIT;
  Qnn_ApiVersion_t apiVersion = QNN_API_VERSION_INIT;
  Qnn_Scalar_t scalar = QNN_SCALAR_INIT;
  Qnn_ScaleOffset_t so = QNN_SCALE_OFFSET_INIT;
  Qnn_BwScaleOffset_t bwso = QNN_BW_SCALE_OFFSET_INIT;
  Qnn_AxisScaleOffset_t aso = QNN_AXIS_SCALE_OFFSET_INIT;
  Qnn_BwAxisScaleOffset_t bwaso = QNN_BW_AXIS_SCALE_OFFSET_INIT;
  Qnn_BwAxisScaleOffsetMapped_t bwasom = QNN_BW_AXIS_SCALE_OFFSET_MAPPED_INIT;
  Qnn_BlockEncoding_t block = QNN_BLOCK_ENCODING_INIT;
  Qnn_BwBlockMapped_t bwblock = QNN_BW_BLOCK_MAPPED_ENCODING_INIT;
  Qnn_BlockwiseExpansion_t bwe = QNN_BLOCKWISE_EXPANSION_INIT;
  Qnn_BwBlockwiseExpansionMapped_t bwbwe = QNN_BW_BLOCKWISE_EXPANSION_MAPPED_INIT;
  Qnn_VectorEncoding_t vec = QNN_VECTOR_ENCODING_INIT;
  Qnn_FloatScaleOffset_t fso = QNN_FLOAT_SCALE_OFFSET_INIT;
  Qnn_FloatBlockEncoding_t fbe = QNN_FLOAT_BLOCK_ENCODING_INIT;
  Qnn_BwFloatBlockEncoding_t bwfbe = QNN_BW_FLOAT_BLOCK_ENCODING_INIT;
  Qnn_MicroscalingEncoding_t mx = QNN_MICROSCALING_ENCODING_INIT;
  Qnn_QuantizeParams_t qp = QNN_QUANTIZE_PARAMS_INIT;
  Qnn_TensorRetrieveRaw_t rr = QNN_TENSOR_RETRIEVE_RAW_INIT;
  Qnn_ClientBuffer_t cb = QNN_CLIENT_BUFFER_INIT;
  Qnn_OpaqueObject_t oo = QNN_OPAQUE_OBJECT_INIT;
  Qnn_TensorV1_t tv1 = QNN_TENSOR_V1_INIT;
  Qnn_SparseLayoutHybridCoo_t coo = QNN_SPARSE_LAYOUT_HYBRID_COO_INIT;
  Qnn_SparseParams_t sp = QNN_SPARSE_PARAMS_INIT;
  Qnn_TensorV2_t tv2 = QNN_TENSOR_V2_INIT;
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  Qnn_TensorSetV1_t tsv1 = QNN_TENSOR_SET_V1_INIT;
  Qnn_TensorSet_t ts = QNN_TENSOR_SET_INIT;
  Qnn_ArrayOf_t arr = QNN_ARRAYOF_INIT;
  Qnn_Param_t param = QNN_PARAM_INIT;
  Qnn_OpConfigV1_t opv1 = QNN_OPCONFIG_V1_INIT;
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;

  QnnBackend_Config_t bcfg = QNN_BACKEND_CONFIG_INIT;
  QnnBackend_OperationName_t opName = QNN_BACKEND_OPERATION_NAME_INIT;
  QnnBackend_Property_t bprop = QNN_BACKEND_PROPERTY_INIT;
  QnnDevice_CoreInfoV1_t coreV1 = QNN_DEVICE_CORE_INFO_V1_INIT;
  QnnDevice_CoreInfo_t core = QNN_DEVICE_CORE_INFO_INIT;
  QnnDevice_HardwareDeviceInfoV1_t hwV1 = QNN_DEVICE_HARDWARE_DEVICE_INFO_V1_INIT;
  QnnDevice_HardwareDeviceInfo_t hw = QNN_DEVICE_HARDWARE_DEVICE_INFO_INIT;
  QnnDevice_PlatformInfoV1_t platV1 = QNN_DEVICE_PLATFORM_INFO_V1_INIT;
  QnnDevice_PlatformInfo_t plat = QNN_DEVICE_PLATFORM_INFO_INIT;
  QnnDevice_Config_t dcfg = QNN_DEVICE_CONFIG_INIT;
  QnnGlobalConfig_t gcfg = QNN_GLOBAL_CONFIG_INIT;
  QnnSignal_Config_t scfg = QNN_SIGNAL_CONFIG_INIT;
  Qnn_MemShape_t shape = QNN_MEM_SHAPE_INIT;
  Qnn_MemIonInfo_t ion = QNN_MEM_ION_INFO_INIT;
  Qnn_MemDmaBufInfo_t dma = QNN_MEM_DMA_BUF_INFO_INIT;
  Qnn_MemDescriptor_t md = QNN_MEM_DESCRIPTOR_INIT;
  QnnProfile_EventData_t ev = QNN_PROFILE_EVENT_DATA_INIT;
  QnnProfile_BackendOpaqueObject_t boo = QNN_PROFILE_BACKEND_OPAQUE_OBJECT_INIT;
  QnnProfile_ExtendedEventDataV1_t xev1 = QNN_PROFILE_EXTENDED_EVENT_DATA_V1_INIT;
  QnnProfile_ExtendedEventData_t xev = QNN_PROFILE_EXTENDED_EVENT_DATA_INIT;
  QnnProfile_Config_t pcfg = QNN_PROFILE_CONFIG_INIT;
  QnnGraph_Config_t gphcfg = QNN_GRAPH_CONFIG_INIT;
  QnnGraph_Property_t gprop = QNN_GRAPH_PROPERTY_INIT;
  QnnGraph_ValidateConfig_t gval = QNN_GRAPH_VALIDATE_CONFIG_INIT;
  Qnn_NotifyStatus_t ns = QNN_NOTIFY_STATUS_INIT;
  QnnContext_AsyncExecutionQueueDepth_t qd = QNN_CONTEXT_ASYNC_EXECUTION_QUEUE_DEPTH_INIT;
  QnnContext_Config_t ccfg = QNN_CONTEXT_CONFIG_INIT;
  QnnContext_Property_t cprop = QNN_CONTEXT_PROPERTY_INIT;
  QnnInterface_t iface = QNN_INTERFACE_INIT;
  QnnOpPackage_Info_t opkgInfo = QNN_OP_PACKAGE_INFO_INIT;
  QnnOpPackage_ImplementationV1_4_t opkgV14 = QNN_OP_PACKAGE_IMPLEMENTATION_V1_4_INIT;
  QnnOpPackage_ImplementationV2_0_t opkgV20 = QNN_OP_PACKAGE_IMPLEMENTATION_V2_0_INIT;
  QnnOpPackage_Interface_t opkgIface = QNN_OP_PACKAGE_INTERFACE_INIT;
  Qnn_Version_t opkgVer14 = QNN_OP_PACKAGE_API_VERSION_1_4_0;
  Qnn_Version_t opkgVer20 = QNN_OP_PACKAGE_API_VERSION_2_0_0;
  QnnSaver_Config_t saverCfg = QNN_SAVER_CONFIG_INIT;
  Qnn_ApiVersion_t saverVersion = QNN_SAVER_API_VERSION_INIT;

  QnnHtpContext_CustomConfig_t hcc = QNN_HTP_CONTEXT_CUSTOM_CONFIG_INIT;
  QnnHtpContext_CustomProperty_t hcp = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  QnnHtpDevice_PerfInfrastructure_t hpi = QNN_HTP_DEVICE_PERF_INFRASTRUCTURE_INIT;
  QnnHtpGraph_OptimizationOption_t hgo = QNN_HTP_GRAPH_OPTIMIZATION_OPTION_INIT;
  QnnHtpGraph_CustomConfig_t hgc = QNN_HTP_GRAPH_CUSTOM_CONFIG_INIT;
  QnnHtpPerfInfrastructure_PowerConfig_t hpc = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  QnnHtpPerfInfrastructure_MemoryConfig_t hmc = QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIG_INIT;
  Qnn_ApiVersion_t htpVersion = QNN_HTP_API_VERSION_INIT;

  QnnSystemContext_GraphInfoV1_t sg1 = QNN_SYSTEM_CONTEXT_GRAPH_INFO_V1_INIT;
  QnnSystemContext_GraphInfoV2_t sg2 = QNN_SYSTEM_CONTEXT_GRAPH_INFO_V2_INIT;
  QnnSystemContext_GraphInfoV3_t sg3 = QNN_SYSTEM_CONTEXT_GRAPH_INFO_V3_INIT;
  QnnSystemContext_GraphInfo_t sg = QNN_SYSTEM_CONTEXT_GRAPH_INFO_INIT;
  QnnSystemContext_BinaryInfoV1_t sb1 = QNN_SYSTEM_CONTEXT_BINARY_INFO_V1_INIT;
  QnnSystemContext_BinaryInfoV2_t sb2 = QNN_SYSTEM_CONTEXT_BINARY_INFO_V2_INIT;
  QnnSystemContext_BinaryInfoV3_t sb3 = QNN_SYSTEM_CONTEXT_BINARY_INFO_V3_INIT;
  QnnSystemContext_BinaryInfo_t sb = QNN_SYSTEM_CONTEXT_BINARYINFO_INIT;
  QnnSystemProfile_HeaderV1_t sph = QNN_SYSTEM_PROFILE_HEADER_V1_INIT;
  QnnSystemProfile_ProfileEventV1_t spe = QNN_SYSTEM_PROFILE_EVENT_V1_INIT;
  QnnSystemProfile_ProfileDataV1_t spd1 = QNN_SYSTEM_PROFILE_DATA_V1_INIT;
  QnnSystemProfile_ProfileData_t spd = QNN_SYSTEM_PROFILE_DATA_INIT;
  QnnSystemInterface_t siface = QNN_SYSTEM_INTERFACE_INIT;

  const char* build = QNN_SDK_BUILD_ID;
  const char* pkg = QNN_OP_PACKAGE_NAME_QTI_AISW;

  return (int)opMapping.version + (int)opMappingV1.numOpMappings + (int)errCfg.storageLimit +
         (int)version.major + (int)apiVersion.coreApiVersion.major + (int)scalar.dataType +
         (int)so.offset + (int)bwso.bitwidth + (int)aso.axis + (int)bwaso.axis + (int)bwasom.axis +
         (block.blockSize == NULL) + (int)bwblock.bitwidth + (int)bwe.axis + (int)bwbwe.axis +
         (int)vec.rowsPerBlock + (int)fso.scale + (fbe.blockSize == NULL) + (int)bwfbe.bitwidth +
         (int)mx.blockRank + (int)qp.encodingDefinition + (rr.getTensorData == NULL) +
         (int)cb.dataSize + (int)oo.len + (int)tv1.rank + (int)coo.numSparseDimensions +
         (int)sp.type + (int)tv2.isProduced + (int)t.version + (int)tsv1.numInputs +
         (int)ts.version + (int)arr.numElements + (int)param.paramType + (int)opv1.numOfParams +
         (int)op.version + (int)bcfg.option + (opName.name == NULL) + (int)bprop.option +
         (int)coreV1.coreType + (int)core.version + (int)hwV1.numCores + (int)hw.version +
         (int)platV1.numHwDevices + (int)plat.version + (int)dcfg.option + (int)gcfg.option +
         (int)scfg.option + (int)shape.numDim + (int)ion.fd + (int)dma.fd + (int)md.memType +
         (int)ev.type + (boo.fileName == NULL) + (int)xev1.unit + (int)xev.version +
         (int)pcfg.option + (int)gphcfg.option + (int)gprop.option + (int)gval.option +
         (int)ns.error + (int)qd.type + (int)ccfg.option + (int)cprop.option +
         (int)iface.backendId + (int)opkgInfo.numOperations + (opkgV14.init == NULL) +
         (opkgV20.create == NULL) + (int)opkgIface.interfaceVersion.major + (int)opkgVer14.minor +
         (int)opkgVer20.major + (int)saverCfg.option + (int)saverVersion.backendApiVersion.major +
         QNN_PROPERTY_CUSTOM_HTP_UNSIGNED_PD_SUPPORT + (int)hcc.option + (int)hcp.option +
         (hpi.setPowerConfig == NULL) + (int)hgo.type + (int)hgc.option + (int)hpc.option +
         (int)hmc.option + (int)htpVersion.backendApiVersion.major + (int)sg1.numGraphInputs +
         (int)sg2.numUpdateableTensors + (int)sg3.endOpIndex + (int)sg.version +
         (int)sb1.backendId + (int)sb2.backendId + (int)sb3.socModel + (int)sb.version +
         (int)sph.methodType + (int)spe.type + (int)spd1.numProfilingEvents + (int)spd.version +
         (int)siface.backendId + (int)build[0] + (int)pkg[0];
}

#endif /* OPENHTP_TESTS_ALL_HEADERS_BODY_H */
