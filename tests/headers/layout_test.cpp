// Layout and value checks for the public QNN-compatible headers.
//
// The static_asserts pin sizes and offsets measured on LP64 (see
// shared/reference/qnn-api-facts.md); the TESTs check enumerator values and
// the defaults produced by the *_INIT macros, plus the HTP shared-buffer
// tutorial's use of the HTP structures.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "HTP/QnnHtpCommon.h"
#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpDevice.h"
#include "HTP/QnnHtpGraph.h"
#include "HTP/QnnHtpMem.h"
#include "HTP/QnnHtpPerfInfrastructure.h"
#include "HTP/QnnHtpProfile.h"
#include "HTP/QnnHtpProperty.h"
#include "HTP/QnnHtpSystemContext.h"
#include "QnnInterface.h"
#include "QnnOpPackage.h"
#include "QnnSdkBuildId.h"
#include "Saver/QnnSaver.h"
#include "Saver/QnnSaverCommon.h"
#include "System/QnnSystemInterface.h"

namespace {

static_assert(sizeof(void*) == 8, "these checks assume an LP64 target");

// ---------------------------------------------------------------- core types
static_assert(sizeof(Qnn_ErrorHandle_t) == 8);
static_assert(sizeof(Qnn_Version_t) == 12);
static_assert(sizeof(Qnn_ApiVersion_t) == 24 && alignof(Qnn_ApiVersion_t) == 4);
static_assert(sizeof(Qnn_DataType_t) == 4);
static_assert(sizeof(Qnn_Scalar_t) == 16);
static_assert(sizeof(Qnn_ScaleOffset_t) == 8);
static_assert(sizeof(Qnn_BwScaleOffset_t) == 12);
static_assert(sizeof(Qnn_AxisScaleOffset_t) == 16);
static_assert(sizeof(Qnn_BwAxisScaleOffset_t) == 32);
static_assert(sizeof(Qnn_BlockEncoding_t) == 16);

static_assert(sizeof(Qnn_QuantizeParams_t) == 40 && alignof(Qnn_QuantizeParams_t) == 8);
static_assert(offsetof(Qnn_QuantizeParams_t, encodingDefinition) == 0);
static_assert(offsetof(Qnn_QuantizeParams_t, quantizationEncoding) == 4);
static_assert(offsetof(Qnn_QuantizeParams_t, scaleOffsetEncoding) == 8);
static_assert(offsetof(Qnn_QuantizeParams_t, arrayOfEncoding) == 8);

static_assert(sizeof(Qnn_ClientBuffer_t) == 16);
static_assert(sizeof(Qnn_SparseParams_t) == 12);

static_assert(sizeof(Qnn_TensorV1_t) == 112);
static_assert(offsetof(Qnn_TensorV1_t, id) == 0);
static_assert(offsetof(Qnn_TensorV1_t, name) == 8);
static_assert(offsetof(Qnn_TensorV1_t, type) == 16);
static_assert(offsetof(Qnn_TensorV1_t, dataFormat) == 20);
static_assert(offsetof(Qnn_TensorV1_t, dataType) == 24);
static_assert(offsetof(Qnn_TensorV1_t, quantizeParams) == 32);
static_assert(offsetof(Qnn_TensorV1_t, rank) == 72);
static_assert(offsetof(Qnn_TensorV1_t, dimensions) == 80);
static_assert(offsetof(Qnn_TensorV1_t, memType) == 88);
static_assert(offsetof(Qnn_TensorV1_t, clientBuf) == 96);
static_assert(offsetof(Qnn_TensorV1_t, memHandle) == 96);

static_assert(sizeof(Qnn_TensorV2_t) == 136);
static_assert(offsetof(Qnn_TensorV2_t, id) == 0);
static_assert(offsetof(Qnn_TensorV2_t, name) == 8);
static_assert(offsetof(Qnn_TensorV2_t, type) == 16);
static_assert(offsetof(Qnn_TensorV2_t, dataFormat) == 20);
static_assert(offsetof(Qnn_TensorV2_t, dataType) == 24);
static_assert(offsetof(Qnn_TensorV2_t, quantizeParams) == 32);
static_assert(offsetof(Qnn_TensorV2_t, rank) == 72);
static_assert(offsetof(Qnn_TensorV2_t, dimensions) == 80);
static_assert(offsetof(Qnn_TensorV2_t, memType) == 88);
static_assert(offsetof(Qnn_TensorV2_t, clientBuf) == 96);
static_assert(offsetof(Qnn_TensorV2_t, memHandle) == 96);
static_assert(offsetof(Qnn_TensorV2_t, retrieveRaw) == 96);
static_assert(offsetof(Qnn_TensorV2_t, isDynamicDimensions) == 112);
static_assert(offsetof(Qnn_TensorV2_t, sparseParams) == 120);
static_assert(offsetof(Qnn_TensorV2_t, isProduced) == 132);

static_assert(sizeof(Qnn_Tensor_t) == 144);
static_assert(offsetof(Qnn_Tensor_t, version) == 0);
static_assert(offsetof(Qnn_Tensor_t, v1) == 8);
static_assert(offsetof(Qnn_Tensor_t, v2) == 8);

static_assert(sizeof(Qnn_Param_t) == 160);
static_assert(offsetof(Qnn_Param_t, paramType) == 0);
static_assert(offsetof(Qnn_Param_t, name) == 8);
static_assert(offsetof(Qnn_Param_t, scalarParam) == 16);
static_assert(offsetof(Qnn_Param_t, tensorParam) == 16);

static_assert(sizeof(Qnn_OpConfigV1_t) == 72);
static_assert(offsetof(Qnn_OpConfigV1_t, name) == 0);
static_assert(offsetof(Qnn_OpConfigV1_t, packageName) == 8);
static_assert(offsetof(Qnn_OpConfigV1_t, typeName) == 16);
static_assert(offsetof(Qnn_OpConfigV1_t, numOfParams) == 24);
static_assert(offsetof(Qnn_OpConfigV1_t, params) == 32);
static_assert(offsetof(Qnn_OpConfigV1_t, numOfInputs) == 40);
static_assert(offsetof(Qnn_OpConfigV1_t, inputTensors) == 48);
static_assert(offsetof(Qnn_OpConfigV1_t, numOfOutputs) == 56);
static_assert(offsetof(Qnn_OpConfigV1_t, outputTensors) == 64);
static_assert(sizeof(Qnn_OpConfig_t) == 80);
static_assert(offsetof(Qnn_OpConfig_t, v1) == 8);

static_assert(sizeof(QnnBackend_OperationName_t) == 24);

// -------------------------------------------------------------------- memory
static_assert(sizeof(Qnn_MemShape_t) == 24);
static_assert(sizeof(Qnn_MemDmaBufInfo_t) == 16);
static_assert(sizeof(Qnn_MemDescriptor_t) == 48);
static_assert(offsetof(Qnn_MemDescriptor_t, memShape) == 0);
static_assert(offsetof(Qnn_MemDescriptor_t, dataType) == 24);
static_assert(offsetof(Qnn_MemDescriptor_t, memType) == 28);
static_assert(offsetof(Qnn_MemDescriptor_t, ionInfo) == 32);
static_assert(offsetof(Qnn_MemDescriptor_t, customInfo) == 32);
static_assert(offsetof(Qnn_MemDescriptor_t, dmaBufInfo) == 32);

static_assert(sizeof(QnnHtpMem_QurtAddress_t) == 4);
static_assert(sizeof(QnnHtpMem_SharedBufferConfig_t) == 16);
static_assert(offsetof(QnnHtpMem_SharedBufferConfig_t, offset) == 8);
static_assert(sizeof(QnnMemHtp_Descriptor_t) == 32);
static_assert(offsetof(QnnMemHtp_Descriptor_t, type) == 0);
static_assert(offsetof(QnnMemHtp_Descriptor_t, size) == 8);
static_assert(offsetof(QnnMemHtp_Descriptor_t, qurtAddress) == 16);
static_assert(offsetof(QnnMemHtp_Descriptor_t, sharedBufferConfig) == 16);
static_assert(offsetof(QnnMemHtp_Descriptor_t, weightsBufferConfig) == 16);
static_assert(offsetof(QnnMemHtp_Descriptor_t, sharedSpillfillBufferConfig) == 16);
static_assert(offsetof(QnnMemHtp_Descriptor_t, spillfillBufferConfig) == 16);
static_assert(offsetof(QnnMemHtp_Descriptor_t, sharedSpillfillBufferQurtAddress) == 16);
static_assert(offsetof(QnnMemHtp_Descriptor_t, sharedVTCMBackupBufferQurtAddress) == 16);
static_assert(std::is_same_v<decltype(QnnMemHtp_Descriptor_t::spillfillBufferConfig),
                             decltype(QnnMemHtp_Descriptor_t::sharedSpillfillBufferConfig)>);
static_assert(std::is_same_v<decltype(QnnMemHtp_Descriptor_t::sharedSpillfillBufferQurtAddress),
                             QnnHtpMem_QurtAddress_t>);
static_assert(std::is_same_v<decltype(QnnMemHtp_Descriptor_t::sharedVTCMBackupBufferQurtAddress),
                             QnnHtpMem_QurtAddress_t>);

// ------------------------------------------------------------------- context
static_assert(sizeof(QnnContext_Config_t) == 16);
static_assert(offsetof(QnnContext_Config_t, customConfig) == 8);
static_assert(offsetof(QnnContext_Config_t, isGraphInitDeferred) == 8);
static_assert(sizeof(QnnContext_Property_t) == 16);
static_assert(sizeof(QnnContext_ParamsV1_t) == 48);
static_assert(offsetof(QnnContext_ParamsV1_t, binaryBufferSize) == 16);
static_assert(offsetof(QnnContext_ParamsV1_t, notifyParam) == 40);
static_assert(std::is_const_v<decltype(QnnContext_ParamsV1_t::binaryBufferSize)>);
static_assert(sizeof(QnnContext_ParamsV2_t) == 56);
static_assert(offsetof(QnnContext_ParamsV2_t, callback) == 48);
static_assert(sizeof(QnnContext_Params_t) == 56);
static_assert(offsetof(QnnContext_Params_t, v1) == 8);
static_assert(offsetof(QnnContext_Params_t, v2) == 8);
static_assert(std::is_pointer_v<decltype(QnnContext_Params_t::v2)>);

static_assert(sizeof(QnnHtpContext_GroupRegistration_t) == 16);
static_assert(sizeof(QnnHtpContext_CustomConfig_t) == 24);
static_assert(offsetof(QnnHtpContext_CustomConfig_t, weightSharingEnabled) == 8);
static_assert(offsetof(QnnHtpContext_CustomConfig_t, groupRegistration) == 8);
static_assert(offsetof(QnnHtpContext_CustomConfig_t, concurrentGroupRegistration) == 8);
static_assert(offsetof(QnnHtpContext_CustomConfig_t, parallelWeightLoading) == 8);
static_assert(sizeof(QnnHtpContext_CustomProperty_t) == 16);
static_assert(offsetof(QnnHtpContext_CustomProperty_t, spillfillBufferSize) == 8);
static_assert(offsetof(QnnHtpContext_CustomProperty_t, vtcmBackupBufferSize) == 8);
static_assert(sizeof(QnnHtpContext_ShareResourcesOptimizationType_t) == 4);

// --------------------------------------------------------------------- graph
static_assert(sizeof(QnnGraph_Config_t) == 16);
static_assert(sizeof(QnnHtpGraph_CustomConfig_t) == 56);
static_assert(sizeof(QnnHtpDevice_CustomConfig_t) == 24 && alignof(QnnHtpDevice_CustomConfig_t) == 8);

// ----------------------------------------------------------------- interface
static_assert(std::is_same_v<QNN_INTERFACE_VER_TYPE, QnnInterface_ImplementationV2_39_t>);
static_assert(sizeof(QNN_INTERFACE_VER_TYPE) == 75 * sizeof(void*));
static_assert(sizeof(QnnInterface_t) == 640);
static_assert(offsetof(QnnInterface_t, backendId) == 0);
static_assert(offsetof(QnnInterface_t, providerName) == 8);
static_assert(offsetof(QnnInterface_t, apiVersion) == 16);
static_assert(offsetof(QnnInterface_t, v2_39) == 40);

// Every table slot at its documented index (offset = 40 + 8 * index).
#define CHECK_SLOT(member, index)                                                  \
  static_assert(offsetof(QnnInterface_t, v2_39) +                                 \
                        offsetof(QnnInterface_ImplementationV2_39_t, member) ==   \
                    40 + 8 * (index),                                             \
                #member " is not at table index " #index)
CHECK_SLOT(propertyHasCapability, 0);
CHECK_SLOT(backendCreate, 1);
CHECK_SLOT(backendSetConfig, 2);
CHECK_SLOT(backendGetApiVersion, 3);
CHECK_SLOT(backendGetBuildId, 4);
CHECK_SLOT(backendRegisterOpPackage, 5);
CHECK_SLOT(backendGetSupportedOperations, 6);
CHECK_SLOT(backendValidateOpConfig, 7);
CHECK_SLOT(backendFree, 8);
CHECK_SLOT(contextCreate, 9);
CHECK_SLOT(contextSetConfig, 10);
CHECK_SLOT(contextGetBinarySize, 11);
CHECK_SLOT(contextGetBinary, 12);
CHECK_SLOT(contextCreateFromBinary, 13);
CHECK_SLOT(contextFree, 14);
CHECK_SLOT(graphCreate, 15);
CHECK_SLOT(graphCreateSubgraph, 16);
CHECK_SLOT(graphSetConfig, 17);
CHECK_SLOT(graphAddNode, 18);
CHECK_SLOT(graphFinalize, 19);
CHECK_SLOT(graphRetrieve, 20);
CHECK_SLOT(graphExecute, 21);
CHECK_SLOT(graphExecuteAsync, 22);
CHECK_SLOT(tensorCreateContextTensor, 23);
CHECK_SLOT(tensorCreateGraphTensor, 24);
CHECK_SLOT(logCreate, 25);
CHECK_SLOT(logSetLogLevel, 26);
CHECK_SLOT(logFree, 27);
CHECK_SLOT(profileCreate, 28);
CHECK_SLOT(profileSetConfig, 29);
CHECK_SLOT(profileGetEvents, 30);
CHECK_SLOT(profileGetSubEvents, 31);
CHECK_SLOT(profileGetEventData, 32);
CHECK_SLOT(profileGetExtendedEventData, 33);
CHECK_SLOT(profileFree, 34);
CHECK_SLOT(memRegister, 35);
CHECK_SLOT(memDeRegister, 36);
CHECK_SLOT(deviceGetPlatformInfo, 37);
CHECK_SLOT(deviceFreePlatformInfo, 38);
CHECK_SLOT(deviceGetInfrastructure, 39);
CHECK_SLOT(deviceCreate, 40);
CHECK_SLOT(deviceSetConfig, 41);
CHECK_SLOT(deviceGetInfo, 42);
CHECK_SLOT(deviceFree, 43);
CHECK_SLOT(signalCreate, 44);
CHECK_SLOT(signalSetConfig, 45);
CHECK_SLOT(signalTrigger, 46);
CHECK_SLOT(signalFree, 47);
CHECK_SLOT(errorGetMessage, 48);
CHECK_SLOT(errorGetVerboseMessage, 49);
CHECK_SLOT(errorFreeVerboseMessage, 50);
CHECK_SLOT(graphPrepareExecutionEnvironment, 51);
CHECK_SLOT(graphReleaseExecutionEnvironment, 52);
CHECK_SLOT(graphGetProperty, 53);
CHECK_SLOT(contextValidateBinary, 54);
CHECK_SLOT(contextCreateFromBinaryWithSignal, 55);
CHECK_SLOT(contextCreateFromBinaryListAsync, 56);
CHECK_SLOT(tensorUpdateGraphTensors, 57);
CHECK_SLOT(tensorUpdateContextTensors, 58);
CHECK_SLOT(contextGetBinarySectionSize, 59);
CHECK_SLOT(contextGetBinarySection, 60);
CHECK_SLOT(contextApplyBinarySection, 61);
CHECK_SLOT(backendGetProperty, 62);
CHECK_SLOT(contextGetProperty, 63);
CHECK_SLOT(contextGetIncrementalBinary, 64);
CHECK_SLOT(contextReleaseIncrementalBinary, 65);
CHECK_SLOT(contextFinalize, 66);
CHECK_SLOT(globalConfigSet, 67);
CHECK_SLOT(contextCreateFromBinaryWithCallback, 68);
CHECK_SLOT(contextGetBinarySectionUpdate, 69);
CHECK_SLOT(contextFreeBinarySectionUpdate, 70);
CHECK_SLOT(contextAddToDlc, 71);
CHECK_SLOT(graphValidate, 72);
CHECK_SLOT(graphFreeValidationResult, 73);
CHECK_SLOT(backendRegisterOpPackageFromBinary, 74);
#undef CHECK_SLOT

// The values the brief calls out explicitly.
static_assert(offsetof(QnnInterface_t, v2_39) +
                  offsetof(QnnInterface_ImplementationV2_39_t, memRegister) == 40 + 280);
static_assert(offsetof(QnnInterface_t, v2_39) +
                  offsetof(QnnInterface_ImplementationV2_39_t, contextFinalize) == 40 + 528);
static_assert(offsetof(QnnInterface_t, v2_39) +
                  offsetof(QnnInterface_ImplementationV2_39_t,
                           backendRegisterOpPackageFromBinary) == 40 + 592);

// Each plain C declaration has exactly the type of its table slot.
#define SAME_FN(fn, slot) \
  static_assert(std::is_same_v<decltype(&fn), decltype(QnnInterface_ImplementationV2_39_t::slot)>, #fn)
SAME_FN(QnnProperty_hasCapability, propertyHasCapability);
SAME_FN(QnnBackend_create, backendCreate);
SAME_FN(QnnBackend_setConfig, backendSetConfig);
SAME_FN(QnnBackend_getApiVersion, backendGetApiVersion);
SAME_FN(QnnBackend_getBuildId, backendGetBuildId);
SAME_FN(QnnBackend_registerOpPackage, backendRegisterOpPackage);
SAME_FN(QnnBackend_getSupportedOperations, backendGetSupportedOperations);
SAME_FN(QnnBackend_validateOpConfig, backendValidateOpConfig);
SAME_FN(QnnBackend_free, backendFree);
SAME_FN(QnnContext_create, contextCreate);
SAME_FN(QnnContext_setConfig, contextSetConfig);
SAME_FN(QnnContext_getBinarySize, contextGetBinarySize);
SAME_FN(QnnContext_getBinary, contextGetBinary);
SAME_FN(QnnContext_createFromBinary, contextCreateFromBinary);
SAME_FN(QnnContext_free, contextFree);
SAME_FN(QnnGraph_create, graphCreate);
SAME_FN(QnnGraph_createSubgraph, graphCreateSubgraph);
SAME_FN(QnnGraph_setConfig, graphSetConfig);
SAME_FN(QnnGraph_addNode, graphAddNode);
SAME_FN(QnnGraph_finalize, graphFinalize);
SAME_FN(QnnGraph_retrieve, graphRetrieve);
SAME_FN(QnnGraph_execute, graphExecute);
SAME_FN(QnnGraph_executeAsync, graphExecuteAsync);
SAME_FN(QnnTensor_createContextTensor, tensorCreateContextTensor);
SAME_FN(QnnTensor_createGraphTensor, tensorCreateGraphTensor);
SAME_FN(QnnLog_create, logCreate);
SAME_FN(QnnLog_setLogLevel, logSetLogLevel);
SAME_FN(QnnLog_free, logFree);
SAME_FN(QnnProfile_create, profileCreate);
SAME_FN(QnnProfile_setConfig, profileSetConfig);
SAME_FN(QnnProfile_getEvents, profileGetEvents);
SAME_FN(QnnProfile_getSubEvents, profileGetSubEvents);
SAME_FN(QnnProfile_getEventData, profileGetEventData);
SAME_FN(QnnProfile_getExtendedEventData, profileGetExtendedEventData);
SAME_FN(QnnProfile_free, profileFree);
SAME_FN(QnnMem_register, memRegister);
SAME_FN(QnnMem_deRegister, memDeRegister);
SAME_FN(QnnDevice_getPlatformInfo, deviceGetPlatformInfo);
SAME_FN(QnnDevice_freePlatformInfo, deviceFreePlatformInfo);
SAME_FN(QnnDevice_getInfrastructure, deviceGetInfrastructure);
SAME_FN(QnnDevice_create, deviceCreate);
SAME_FN(QnnDevice_setConfig, deviceSetConfig);
SAME_FN(QnnDevice_getInfo, deviceGetInfo);
SAME_FN(QnnDevice_free, deviceFree);
SAME_FN(QnnSignal_create, signalCreate);
SAME_FN(QnnSignal_setConfig, signalSetConfig);
SAME_FN(QnnSignal_trigger, signalTrigger);
SAME_FN(QnnSignal_free, signalFree);
SAME_FN(QnnError_getMessage, errorGetMessage);
SAME_FN(QnnError_getVerboseMessage, errorGetVerboseMessage);
SAME_FN(QnnError_freeVerboseMessage, errorFreeVerboseMessage);
SAME_FN(QnnGraph_prepareExecutionEnvironment, graphPrepareExecutionEnvironment);
SAME_FN(QnnGraph_releaseExecutionEnvironment, graphReleaseExecutionEnvironment);
SAME_FN(QnnGraph_getProperty, graphGetProperty);
SAME_FN(QnnContext_validateBinary, contextValidateBinary);
SAME_FN(QnnContext_createFromBinaryWithSignal, contextCreateFromBinaryWithSignal);
SAME_FN(QnnContext_createFromBinaryListAsync, contextCreateFromBinaryListAsync);
SAME_FN(QnnTensor_updateGraphTensors, tensorUpdateGraphTensors);
SAME_FN(QnnTensor_updateContextTensors, tensorUpdateContextTensors);
SAME_FN(QnnContext_getBinarySectionSize, contextGetBinarySectionSize);
SAME_FN(QnnContext_getBinarySection, contextGetBinarySection);
SAME_FN(QnnContext_applyBinarySection, contextApplyBinarySection);
SAME_FN(QnnBackend_getProperty, backendGetProperty);
SAME_FN(QnnContext_getProperty, contextGetProperty);
SAME_FN(QnnContext_getIncrementalBinary, contextGetIncrementalBinary);
SAME_FN(QnnContext_releaseIncrementalBinary, contextReleaseIncrementalBinary);
SAME_FN(QnnContext_finalize, contextFinalize);
SAME_FN(QnnGlobalConfig_Set, globalConfigSet);
SAME_FN(QnnContext_createFromBinaryWithCallback, contextCreateFromBinaryWithCallback);
SAME_FN(QnnContext_getBinarySectionUpdate, contextGetBinarySectionUpdate);
SAME_FN(QnnContext_freeBinarySectionUpdate, contextFreeBinarySectionUpdate);
SAME_FN(QnnContext_addToDlc, contextAddToDlc);
SAME_FN(QnnGraph_validate, graphValidate);
SAME_FN(QnnGraph_freeValidationResult, graphFreeValidationResult);
SAME_FN(QnnBackend_registerOpPackageFromBinary, backendRegisterOpPackageFromBinary);
#undef SAME_FN

// -------------------------------------------------------------- system table
static_assert(std::is_same_v<QNN_SYSTEM_INTERFACE_VER_TYPE, QnnSystemInterface_ImplementationV1_7_t>);
static_assert(sizeof(QnnSystemInterface_ImplementationV1_7_t) == 16 * sizeof(void*));
static_assert(sizeof(QnnSystemInterface_t) == 160);
static_assert(offsetof(QnnSystemInterface_t, providerName) == 8);
static_assert(offsetof(QnnSystemInterface_t, systemApiVersion) == 16);
static_assert(offsetof(QnnSystemInterface_t, v1_7) == 32);
#define CHECK_SYS_SLOT(member, index) \
  static_assert(offsetof(QnnSystemInterface_ImplementationV1_7_t, member) == 8 * (index), #member)
CHECK_SYS_SLOT(systemContextCreate, 0);
CHECK_SYS_SLOT(systemContextGetBinaryInfo, 1);
CHECK_SYS_SLOT(systemContextGetMetaData, 2);
CHECK_SYS_SLOT(systemContextFree, 3);
CHECK_SYS_SLOT(systemTensorGetMemoryFootprint, 4);
CHECK_SYS_SLOT(systemLogCreate, 5);
CHECK_SYS_SLOT(systemLogSetLogLevel, 6);
CHECK_SYS_SLOT(systemLogFree, 7);
CHECK_SYS_SLOT(systemDlcCreateFromFile, 8);
CHECK_SYS_SLOT(systemDlcCreateFromBinary, 9);
CHECK_SYS_SLOT(systemDlcComposeGraphs, 10);
CHECK_SYS_SLOT(systemDlcGetOpMappings, 11);
CHECK_SYS_SLOT(systemDlcFree, 12);
CHECK_SYS_SLOT(systemProfileCreateSerializationTarget, 13);
CHECK_SYS_SLOT(systemProfileSerializeEventData, 14);
CHECK_SYS_SLOT(systemProfileFreeSerializationTarget, 15);
#undef CHECK_SYS_SLOT

#define SAME_SYS_FN(fn, slot)                                                            \
  static_assert(                                                                         \
      std::is_same_v<decltype(&fn), decltype(QnnSystemInterface_ImplementationV1_7_t::slot)>, \
      #fn)
SAME_SYS_FN(QnnSystemContext_create, systemContextCreate);
SAME_SYS_FN(QnnSystemContext_getBinaryInfo, systemContextGetBinaryInfo);
SAME_SYS_FN(QnnSystemContext_getMetadata, systemContextGetMetaData);
SAME_SYS_FN(QnnSystemContext_free, systemContextFree);
SAME_SYS_FN(QnnSystemTensor_getMemoryFootprint, systemTensorGetMemoryFootprint);
SAME_SYS_FN(QnnSystemLog_create, systemLogCreate);
SAME_SYS_FN(QnnSystemLog_setLogLevel, systemLogSetLogLevel);
SAME_SYS_FN(QnnSystemLog_free, systemLogFree);
SAME_SYS_FN(QnnSystemDlc_createFromFile, systemDlcCreateFromFile);
SAME_SYS_FN(QnnSystemDlc_createFromBinary, systemDlcCreateFromBinary);
SAME_SYS_FN(QnnSystemDlc_composeGraphs, systemDlcComposeGraphs);
SAME_SYS_FN(QnnSystemDlc_getOpMappings, systemDlcGetOpMappings);
SAME_SYS_FN(QnnSystemDlc_free, systemDlcFree);
SAME_SYS_FN(QnnSystemProfile_createSerializationTarget, systemProfileCreateSerializationTarget);
SAME_SYS_FN(QnnSystemProfile_serializeEventData, systemProfileSerializeEventData);
SAME_SYS_FN(QnnSystemProfile_freeSerializationTarget, systemProfileFreeSerializationTarget);
#undef SAME_SYS_FN

static_assert(std::is_same_v<decltype(&QnnInterface_getProviders),
                             Qnn_ErrorHandle_t (*)(const QnnInterface_t***, uint32_t*)>);
static_assert(std::is_same_v<decltype(&QnnSystemInterface_getProviders),
                             Qnn_ErrorHandle_t (*)(const QnnSystemInterface_t***, uint32_t*)>);

// ------------------------------------------------------- system binary info
static_assert(sizeof(QnnSystemContext_GraphInfoV1_t) == 40);
static_assert(sizeof(QnnSystemContext_GraphInfoV3_t) == 80);
static_assert(sizeof(QnnSystemContext_GraphInfo_t) == 88);
static_assert(offsetof(QnnSystemContext_GraphInfo_t, graphInfoV1) == 8);
static_assert(sizeof(QnnSystemContext_BinaryInfoV1_t) == 128);
static_assert(offsetof(QnnSystemContext_BinaryInfoV1_t, hwInfoBlob) == 80);
static_assert(offsetof(QnnSystemContext_BinaryInfoV1_t, graphs) == 120);
static_assert(sizeof(QnnSystemContext_BinaryInfoV2_t) == 136);
static_assert(offsetof(QnnSystemContext_BinaryInfoV2_t, platformInfo) == 128);
static_assert(sizeof(QnnSystemContext_BinaryInfo_t) == 144);
static_assert(offsetof(QnnSystemContext_BinaryInfo_t, contextBinaryInfoV1) == 8);
static_assert(offsetof(QnnSystemContext_BinaryInfo_t, contextBinaryInfoV3) == 8);

// ------------------------------------------------ op package / saver types
// Offsets follow the QNN field order (QnnOpPackage.h, Saver/QnnSaver.h as
// vendored in public QNN SDK copies) laid out by hand for LP64.
static_assert(sizeof(QnnOpPackage_Info_t) == 176 && alignof(QnnOpPackage_Info_t) == 8);
static_assert(offsetof(QnnOpPackage_Info_t, packageName) == 0);
static_assert(offsetof(QnnOpPackage_Info_t, operationNames) == 8);
static_assert(offsetof(QnnOpPackage_Info_t, operationInfo) == 16);
static_assert(offsetof(QnnOpPackage_Info_t, numOperations) == 24);
static_assert(offsetof(QnnOpPackage_Info_t, optimizations) == 32);
static_assert(offsetof(QnnOpPackage_Info_t, numOptimizations) == 40);
static_assert(offsetof(QnnOpPackage_Info_t, sdkBuildId) == 48);
static_assert(offsetof(QnnOpPackage_Info_t, sdkApiVersion) == 56);
static_assert(offsetof(QnnOpPackage_Info_t, packageInfo) == 64);
static_assert(offsetof(QnnOpPackage_Info_t, opsetVersion) == 72);
static_assert(offsetof(QnnOpPackage_Info_t, reserved) == 80);
static_assert(QNN_OP_PACKAGE_RESERVED_INFO_SIZE == 12);
static_assert(sizeof(QnnOpPackage_ImplementationV1_4_t) == 9 * 8);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, init) == 0);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, terminate) == 8);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, getInfo) == 16);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, validateOpConfig) == 24);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, createOpImpl) == 32);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, freeOpImpl) == 40);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, logInitialize) == 48);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, logSetLevel) == 56);
static_assert(offsetof(QnnOpPackage_ImplementationV1_4_t, logTerminate) == 64);
static_assert(sizeof(QnnOpPackage_ImplementationV2_0_t) == 7 * 8);
static_assert(offsetof(QnnOpPackage_ImplementationV2_0_t, create) == 0);
static_assert(offsetof(QnnOpPackage_ImplementationV2_0_t, getInfo) == 8);
static_assert(offsetof(QnnOpPackage_ImplementationV2_0_t, validateOpConfig) == 16);
static_assert(offsetof(QnnOpPackage_ImplementationV2_0_t, createOpImpl) == 24);
static_assert(offsetof(QnnOpPackage_ImplementationV2_0_t, freeOpImpl) == 32);
static_assert(offsetof(QnnOpPackage_ImplementationV2_0_t, logSetLevel) == 40);
static_assert(offsetof(QnnOpPackage_ImplementationV2_0_t, free) == 48);
// Qnn_Version_t (12 bytes) then the pointer union, aligned to 8.
static_assert(sizeof(QnnOpPackage_Interface_t) == 88 && alignof(QnnOpPackage_Interface_t) == 8);
static_assert(offsetof(QnnOpPackage_Interface_t, interfaceVersion) == 0);
static_assert(offsetof(QnnOpPackage_Interface_t, v1_4) == 16);
static_assert(offsetof(QnnOpPackage_Interface_t, v2_0) == 16);
static_assert(sizeof(QnnOpPackage_Error_t) == 4);
static_assert(std::is_same<QnnOpPackage_InterfaceProvider_t,
                           Qnn_ErrorHandle_t (*)(QnnOpPackage_Interface_t*)>::value);
static_assert(std::is_same<QnnOpPackage_GetInfoFn_t,
                           Qnn_ErrorHandle_t (*)(const QnnOpPackage_Info_t**)>::value);
static_assert(std::is_same<QnnOpPackage_CreateOpImplHandleFn_t,
                           Qnn_ErrorHandle_t (*)(Qnn_OpPackageHandle_t,
                                                 QnnOpPackage_GraphInfrastructure_t,
                                                 QnnOpPackage_Node_t,
                                                 QnnOpPackage_OpImpl_t*)>::value);
static_assert(std::is_same<Qnn_OpPackageHandle_t, Qnn_Handle_t>::value);

static_assert(sizeof(QnnSaver_FileConfig_t) == 16);
static_assert(offsetof(QnnSaver_FileConfig_t, dataFileName) == 8);
static_assert(sizeof(QnnSaver_Config_t) == 24 && alignof(QnnSaver_Config_t) == 8);
static_assert(offsetof(QnnSaver_Config_t, option) == 0);
static_assert(offsetof(QnnSaver_Config_t, outputDirectory) == 8);
static_assert(offsetof(QnnSaver_Config_t, appendTimestamp) == 8);
static_assert(offsetof(QnnSaver_Config_t, backendId) == 8);
static_assert(offsetof(QnnSaver_Config_t, fileConfig) == 8);
static_assert(sizeof(QnnSaver_Error_t) == 4 && sizeof(QnnSaver_ConfigOption_t) == 4);

// ------------------------------------------------------------- profile types
static_assert(sizeof(QnnProfile_EventId_t) == 8);
static_assert(sizeof(QnnProfile_EventData_t) == 24);
static_assert(offsetof(QnnProfile_EventData_t, value) == 8);

}  // namespace

// ====================================================================== TESTs

TEST(QnnVersions, CoreHtpSystem) {
  EXPECT_EQ(QNN_API_VERSION_MAJOR, 2);
  EXPECT_EQ(QNN_API_VERSION_MINOR, 39);
  EXPECT_EQ(QNN_API_VERSION_PATCH, 0);
  EXPECT_EQ(QNN_HTP_API_VERSION_MAJOR, 5);
  EXPECT_EQ(QNN_HTP_API_VERSION_MINOR, 50);
  EXPECT_EQ(QNN_HTP_API_VERSION_PATCH, 0);
  EXPECT_EQ(QNN_SYSTEM_API_VERSION_MAJOR, 1);
  EXPECT_EQ(QNN_SYSTEM_API_VERSION_MINOR, 7);
  EXPECT_EQ(QNN_SYSTEM_API_VERSION_PATCH, 0);
  EXPECT_EQ(QNN_BACKEND_ID_HTP, 6);
  EXPECT_STREQ(QNN_HTP_INTERFACE_PROVIDER_NAME, "HTP_QTI_AISW");
  EXPECT_STREQ(QNN_SYSTEM_INTERFACE_PROVIDER_NAME, "SYSTEM_QTI_AISW");
  EXPECT_STRNE(QNN_SDK_BUILD_ID, "");

  Qnn_ApiVersion_t htp = QNN_HTP_API_VERSION_INIT;
  EXPECT_EQ(htp.coreApiVersion.major, 2u);
  EXPECT_EQ(htp.coreApiVersion.minor, 39u);
  EXPECT_EQ(htp.backendApiVersion.major, 5u);
  EXPECT_EQ(htp.backendApiVersion.minor, 50u);
}

TEST(QnnErrors, Codes) {
  EXPECT_EQ(QNN_SUCCESS, 0);
  EXPECT_EQ(QNN_GET_ERROR_CODE(0xABCD0000000003EAull), 0x03EAull);
  EXPECT_EQ(QNN_COMMON_ERROR_NOT_SUPPORTED, 1000);
  EXPECT_EQ(QNN_COMMON_ERROR_MEM_ALLOC, 1002);
  EXPECT_EQ(QNN_COMMON_ERROR_INVALID_ARGUMENT, 1004);
  EXPECT_EQ(QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED, 1005);
  EXPECT_EQ(QNN_COMMON_ERROR_SYSTEM_COMMUNICATION, 1007);
  EXPECT_EQ(QNN_COMMON_ERROR_SYSTEM_COMMUNICATION_FATAL, 1011);
  EXPECT_EQ(QNN_COMMON_ERROR_GENERAL, 1100);
  EXPECT_EQ(QNN_PROPERTY_ERROR_UNKNOWN_KEY, 2000);
  EXPECT_EQ(QNN_BACKEND_ERROR_CANNOT_INITIALIZE, 4000);
  EXPECT_EQ(QNN_BACKEND_ERROR_INVALID_CONFIG, 4012);
  EXPECT_EQ(QNN_CONTEXT_ERROR_INVALID_ARGUMENT, 5000);
  EXPECT_EQ(QNN_CONTEXT_ERROR_INVALID_HANDLE, 5002);
  EXPECT_EQ(QNN_CONTEXT_ERROR_BINARY_VERSION, 5004);
  EXPECT_EQ(QNN_CONTEXT_ERROR_CREATE_FROM_BINARY, 5005);
  EXPECT_EQ(QNN_CONTEXT_ERROR_BINARY_SUBOPTIMAL, 5011);
  EXPECT_EQ(QNN_CONTEXT_ERROR_INCREMENT_INVALID_BUFFER, 5014);
  EXPECT_EQ(QNN_GRAPH_ERROR_INVALID_ARGUMENT, 6000);
  EXPECT_EQ(QNN_GRAPH_ERROR_CREATE_FAILED, 6020);
  EXPECT_EQ(QNN_GRAPH_ERROR_SIGNAL_IN_USE, 6030);
  EXPECT_EQ(QNN_GRAPH_ERROR_INVALID_CONTEXT, 6039);
  EXPECT_EQ(QNN_GRAPH_ERROR_CYCLE_DETECTED, 6040);
  EXPECT_EQ(QNN_TENSOR_ERROR_INVALID_HANDLE, 7001);
  EXPECT_EQ(QNN_TENSOR_ERROR_INCOMPATIBLE_TENSOR_UPDATE, 7007);
  EXPECT_EQ(QNN_MEM_ERROR_INVALID_ARGUMENT, 8000);
  EXPECT_EQ(QNN_MEM_ERROR_INVALID_HANDLE, 8001);
  EXPECT_EQ(QNN_MEM_ERROR_ALREADY_REGISTERED, 8002);
  EXPECT_EQ(QNN_MEM_ERROR_MAPPING, 8003);
  EXPECT_EQ(QNN_MEM_ERROR_INVALID_SHAPE, 8004);
  EXPECT_EQ(QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE, 8005);
  EXPECT_EQ(QNN_SIGNAL_ERROR_TIMEOUT, 9004);
  EXPECT_EQ(QNN_ERROR_INVALID_ERROR_HANDLE, 10001);
  EXPECT_EQ(QNN_LOG_ERROR_INITIALIZATION, 11002);
  EXPECT_EQ(QNN_PROFILE_ERROR_INVALID_HANDLE, 12000);
  EXPECT_EQ(QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT, 13001);
  EXPECT_EQ(QNN_DEVICE_ERROR_INVALID_HANDLE, 14000);
  EXPECT_EQ(QNN_DEVICE_ERROR_ASSOCIATED_TO_CONTEXT, 14003);
  EXPECT_EQ(QNN_GLOBAL_CONFIG_ERROR_INVALID_CONFIG, 15000);
  EXPECT_EQ(QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE, 30000);
  EXPECT_EQ(QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT, 30001);
  EXPECT_EQ(QNN_SYSTEM_CONTEXT_ERROR_OPERATION_FAILED, 30002);
  EXPECT_EQ(QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY, 30010);
  EXPECT_EQ(QNN_INTERFACE_ERROR_NOT_SUPPORTED, 1000);
  EXPECT_EQ(QNN_INTERFACE_ERROR_INVALID_PARAMETER, 1004);
  EXPECT_EQ(QNN_MIN_ERROR_INTERFACE, 60000);
}

TEST(QnnEnums, DataTypes) {
  EXPECT_EQ(QNN_DATATYPE_INT_8, 0x0008);
  EXPECT_EQ(QNN_DATATYPE_INT_32, 0x0032);
  EXPECT_EQ(QNN_DATATYPE_UINT_8, 0x0108);
  EXPECT_EQ(QNN_DATATYPE_FLOAT_16, 0x0216);
  EXPECT_EQ(QNN_DATATYPE_BFLOAT_16, 0x0226);
  EXPECT_EQ(QNN_DATATYPE_FLOAT_32, 0x0232);
  EXPECT_EQ(QNN_DATATYPE_SFIXED_POINT_8, 0x0308);
  EXPECT_EQ(QNN_DATATYPE_SFIXED_POINT_32, 0x0332);
  EXPECT_EQ(QNN_DATATYPE_UFIXED_POINT_8, 0x0408);
  EXPECT_EQ(QNN_DATATYPE_UFIXED_POINT_16, 0x0416);
  EXPECT_EQ(QNN_DATATYPE_BOOL_8, 0x0508);
  EXPECT_EQ(QNN_DATATYPE_STRING, 0x0608);
  EXPECT_EQ(QNN_DATATYPE_INT_4, 0x0004);
  EXPECT_EQ(QNN_DATATYPE_UFIXED_POINT_2, 0x0402);
  EXPECT_EQ(QNN_DATATYPE_UNDEFINED, 0x7FFFFFFF);
  EXPECT_EQ(QNN_TENSOR_TYPE_APP_WRITE, 0);
  EXPECT_EQ(QNN_TENSOR_TYPE_STATIC, 4);
  EXPECT_EQ(QNN_TENSOR_TYPE_OPTIONAL_APP_READWRITE, 13);
  EXPECT_EQ(QNN_TENSORMEMTYPE_RAW, 0);
  EXPECT_EQ(QNN_TENSORMEMTYPE_MEMHANDLE, 1);
  EXPECT_EQ(QNN_TENSORMEMTYPE_RETRIEVE_RAW, 2);
  EXPECT_EQ(QNN_PARAMTYPE_UNDEFINED, 0x7FFFFFFF);
  EXPECT_EQ(QNN_QUANTIZATION_ENCODING_BW_FLOAT_BLOCK, 11);
  EXPECT_EQ(QNN_QUANTIZATION_ENCODING_ARRAY_OF, 13);
  EXPECT_EQ(QNN_PRIORITY_NORMAL, 100);
  EXPECT_EQ(QNN_PRIORITY_HIGH, 200);
  EXPECT_EQ(QNN_PRIORITY_HIGHEST, 500);
  EXPECT_EQ(QNN_SOC_MODEL_SM8650, 57);
  EXPECT_EQ(QNN_SOC_MODEL_SM8850, 87);
  EXPECT_EQ(QNN_TENSOR_DATA_FORMAT_FLAT_BUFFER, 0);
  EXPECT_EQ(QNN_TENSOR_DATA_FORMAT_BATCH_ALIGNED_256, 37);
}

TEST(QnnEnums, MemTypes) {
  EXPECT_EQ(QNN_MEM_INVALID_FD, -1);
  EXPECT_EQ(QNN_MEM_TYPE_ION, 1);
  EXPECT_EQ(QNN_MEM_TYPE_CUSTOM, 2);
  EXPECT_EQ(QNN_MEM_TYPE_DMA_BUF, 3);
  EXPECT_EQ(QNN_MEM_TYPE_UNDEFINED, 0x7FFFFFFF);
  EXPECT_EQ(QNN_HTP_MEM_QURT, 0);
  EXPECT_EQ(QNN_HTP_MEM_SHARED_BUFFER, 1);
  EXPECT_EQ(QNN_HTP_MEM_WEIGHTS_BUFFER, 2);
  EXPECT_EQ(QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, 3);
  EXPECT_EQ(QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER, 4);
  EXPECT_EQ(QNN_HTP_MEM_UNDEFINED, 0x7FFFFFFF);
  EXPECT_EQ(QNN_PROPERTY_MEMORY_SUPPORT_MEM_TYPE_ION, 1 + 1100 + 1);
  EXPECT_EQ(QNN_PROPERTY_MEMORY_SUPPORT_MEM_TYPE_CUSTOM, 1 + 1100 + 2);
  EXPECT_EQ(QNN_PROPERTY_CONTEXT_SUPPORT_DEFERRED_GRAPH_INIT, 1 + 200 + 16);
}

TEST(QnnEnums, ContextConfig) {
  EXPECT_EQ(QNN_CONTEXT_CONFIG_OPTION_CUSTOM, 0);
  EXPECT_EQ(QNN_CONTEXT_CONFIG_OPTION_PRIORITY, 1);
  EXPECT_EQ(QNN_CONTEXT_CONFIG_ENABLE_GRAPHS, 5);
  EXPECT_EQ(QNN_CONTEXT_CONFIG_PERSISTENT_BINARY, 7);
  EXPECT_EQ(QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT, 9);
  EXPECT_EQ(QNN_CONTEXT_CONFIG_GRAPH_RETENTION_ORDER, 10);
  EXPECT_EQ(QNN_CONTEXT_CONFIG_UNDEFINED, 0x7FFFFFFF);
  EXPECT_EQ(QNN_CONTEXT_PROPERTY_OPTION_CUSTOM, 0);
  EXPECT_EQ(QNN_CONTEXT_SECTION_UPDATABLE_QUANT_PARAMS, 3);
  EXPECT_EQ(QNN_CONTEXT_CALLBACK_DMA_BUFFER, 2);
  EXPECT_EQ(QNN_GRAPH_CONFIG_OPTION_PRIORITY, 3);
  EXPECT_EQ(QNN_GRAPH_CONFIG_OPTION_ENABLE_BINARY_SECTION_WEIGHTS_UPDATES, 7);
}

TEST(QnnEnums, HtpContextOptions) {
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED, 1);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_MULTI_CONTEXTS, 2);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_FILE_READ_MEMORY_BUDGET, 3);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_SHARE_RESOURCES, 5);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_SHARE_RESOURCES_OPTIMIZATION_TYPE, 10);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_USE_EXTENDED_UDMA, 11);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING, 12);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_LORA_WEIGHT_SHARING_ENABLED, 13);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_LORA_WEIGHT_SHARING_RAM_PRELOAD_ENABLED, 16);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_CONCURRENT_DESERIALIZATION_EXTRA_SIZE, 19);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_GRAPH_SPLITTING_CONFIGS, 22);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_LORA_PRELOAD_BUFFER_GROUPS, 23);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_PARALLEL_WEIGHT_LOADING, 25);
  EXPECT_EQ(QNN_HTP_CONTEXT_CONFIG_OPTION_UNKNOWN, 0x7fffffff);
  EXPECT_EQ(SEQUENTIAL_WITH_VA_OPTIMIZATION, 0);
  EXPECT_EQ(SEQUENTIAL_WITHOUT_VA_OPTIMIZATION, 1);
  EXPECT_EQ(CONCURRENT_OPTIMIZATION, 2);

  EXPECT_EQ(QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT, 1);
  EXPECT_EQ(QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE, 2);
  EXPECT_EQ(QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE, 3);
  EXPECT_EQ(QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE, 6);
  EXPECT_EQ(QNN_HTP_CONTEXT_GET_PROP_RESERVED_7, 7);
  EXPECT_EQ(QNN_HTP_CONTEXT_GET_PROP_UNDEFINED, 0x7fffffff);
}

TEST(QnnEnums, HtpDeviceGraphPerf) {
  EXPECT_EQ(QNN_HTP_DEVICE_CONFIG_OPTION_SOC, 0);
  EXPECT_EQ(QNN_HTP_DEVICE_CONFIG_OPTION_ARCH, 1);
  EXPECT_EQ(QNN_HTP_DEVICE_CONFIG_OPTION_APP_UID, 6);
  EXPECT_EQ(QNN_HTP_DEVICE_CONFIG_OPTION_HTP_EXTENSION, 0x7fff0000);
  EXPECT_EQ(QNN_HTP_DEVICE_ARCH_V75, 75);
  EXPECT_EQ(QNN_HTP_DEVICE_ARCH_V89, 89);
  EXPECT_EQ(QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE, 3);
  EXPECT_EQ(QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS, 6);
  EXPECT_EQ(QNN_HTP_GRAPH_CONFIG_OPTION_MONOLITHIC_LSTM, 17);
  EXPECT_EQ(QNN_HTP_GRAPH_CONFIG_OPTION_RESERVED, 0x7fff0000);
  EXPECT_EQ(QNN_HTP_GRAPH_OPTIMIZATION_TYPE_FINALIZE_OPTIMIZATION_FLAG, 3);
  EXPECT_EQ(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3, 1);
  EXPECT_EQ(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 3);
  EXPECT_EQ(DCVS_VOLTAGE_VCORNER_TURBO, 0x80);
  EXPECT_EQ(DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER, 0xA0);
  EXPECT_EQ(QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_PERFORMANCE_MODE, 0x10);
  EXPECT_EQ(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_MAX_RPC_POLLING_TIME, 9999);
}

TEST(QnnEnums, ProfileAndLog) {
  EXPECT_EQ(QNN_PROFILE_LEVEL_BASIC, 1);
  EXPECT_EQ(QNN_PROFILE_LEVEL_DETAILED, 2);
  EXPECT_EQ(QNN_PROFILE_LEVEL_BACKEND, 1000);
  EXPECT_EQ(QNN_PROFILE_EVENTTYPE_INIT, 100);
  EXPECT_EQ(QNN_PROFILE_EVENTTYPE_FINALIZE, 300);
  EXPECT_EQ(QNN_PROFILE_EVENTTYPE_EXECUTE, 400);
  EXPECT_EQ(QNN_PROFILE_EVENTTYPE_NODE, 404);
  EXPECT_EQ(QNN_PROFILE_EVENTTYPE_EXECUTE_DEVICE, 407);
  EXPECT_EQ(QNN_PROFILE_EVENTTYPE_DEINIT, 500);
  EXPECT_EQ(QNN_PROFILE_EVENTTYPE_TRACE, 600);
  EXPECT_EQ(QNN_PROFILE_EVENTTYPE_BACKEND, 1000);
  EXPECT_EQ(QNN_PROFILE_EVENTUNIT_MICROSEC, 1);
  EXPECT_EQ(QNN_PROFILE_EVENTUNIT_BYTES, 2);
  EXPECT_EQ(QNN_PROFILE_EVENTUNIT_CYCLES, 3);
  EXPECT_EQ(QNN_PROFILE_EVENTUNIT_COUNT, 4);
  EXPECT_EQ(QNN_PROFILE_EVENTUNIT_OBJECT, 5);
  EXPECT_EQ(QNN_PROFILE_EVENTUNIT_NONE, 6);
  EXPECT_EQ(QNN_PROFILE_CONFIG_OPTION_ENABLE_OPTRACE, 2);
  EXPECT_EQ(QNN_HTP_PROFILE_EVENTTYPE_GRAPH_EXECUTE_ACCEL_TIME_CYCLE, 3003);
  EXPECT_EQ(QNN_HTP_PROFILE_LEVEL_LINTING, 7001);
  EXPECT_EQ(QNN_LOG_LEVEL_ERROR, 1);
  EXPECT_EQ(QNN_LOG_LEVEL_DEBUG, 5);
}

TEST(QnnOpDef, Names) {
  EXPECT_STREQ(QNN_OP_PACKAGE_NAME_QTI_AISW, "qti.aisw");
  EXPECT_STREQ(QNN_OP_CONV_2D, "Conv2d");
  EXPECT_STREQ(QNN_OP_CONV_2D_PARAM_STRIDE, "stride");
  EXPECT_STREQ(QNN_OP_CONV_2D_PARAM_PAD_AMOUNT, "pad_amount");
  EXPECT_STREQ(QNN_OP_DEPTH_WISE_CONV_2D, "DepthWiseConv2d");
  EXPECT_STREQ(QNN_OP_FULLY_CONNECTED, "FullyConnected");
  EXPECT_STREQ(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN1, "transpose_in1");
  EXPECT_STREQ(QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION, "operation");
  EXPECT_EQ(QNN_OP_ELEMENT_WISE_BINARY_OPERATION_XOR, 19);
  EXPECT_EQ(QNN_OP_ELEMENT_WISE_UNARY_OPERATION_SQRT, 15);
  EXPECT_EQ(QNN_OP_ELEMENT_WISE_NEURON_OPERATION_TANH, 8);
  EXPECT_STREQ(QNN_OP_ARGMAX, "Argmax");
  EXPECT_STREQ(QNN_OP_RMS_NORM_PARAM_EPSILON, "epsilon");
  EXPECT_STREQ(QNN_OP_STRIDED_SLICE_PARAM_NEW_AXES_MASK, "new_axes_mask");
  EXPECT_STREQ(QNN_OP_POOL_AVG_2D_PARAM_COUNT_PAD_FOR_EDGES, "count_pad_for_edges");
  EXPECT_EQ(QNN_OP_PAD_SCHEME_EDGE, 3);
  EXPECT_EQ(QNN_OP_RESIZE_NEAREST_MODE_CEIL, 3);
  EXPECT_STREQ(QNN_OP_TOP_K, "TopK");
}

TEST(QnnInitMacros, TensorDefaults) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  EXPECT_EQ(t.version, QNN_TENSOR_VERSION_1);
  EXPECT_EQ(t.v1.id, 0u);
  EXPECT_EQ(t.v1.name, nullptr);
  EXPECT_EQ(t.v1.type, QNN_TENSOR_TYPE_UNDEFINED);
  EXPECT_EQ(t.v1.dataFormat, static_cast<Qnn_TensorDataFormat_t>(QNN_TENSOR_DATA_FORMAT_FLAT_BUFFER));
  EXPECT_EQ(t.v1.dataType, QNN_DATATYPE_UNDEFINED);
  EXPECT_EQ(t.v1.quantizeParams.encodingDefinition, QNN_DEFINITION_UNDEFINED);
  EXPECT_EQ(t.v1.quantizeParams.quantizationEncoding, QNN_QUANTIZATION_ENCODING_UNDEFINED);
  EXPECT_EQ(t.v1.rank, 0u);
  EXPECT_EQ(t.v1.dimensions, nullptr);
  EXPECT_EQ(t.v1.memType, QNN_TENSORMEMTYPE_UNDEFINED);
  EXPECT_EQ(t.v1.clientBuf.data, nullptr);
  EXPECT_EQ(t.v1.clientBuf.dataSize, 0u);

  Qnn_TensorV2_t v2 = QNN_TENSOR_V2_INIT;
  EXPECT_EQ(v2.memType, QNN_TENSORMEMTYPE_UNDEFINED);
  EXPECT_EQ(v2.isDynamicDimensions, nullptr);
  EXPECT_EQ(v2.sparseParams.type, QNN_SPARSE_LAYOUT_UNDEFINED);
  EXPECT_EQ(v2.sparseParams.hybridCoo.numSpecifiedElements, 0u);
  EXPECT_EQ(v2.isProduced, 0u);
}

TEST(QnnInitMacros, ParamsOpsScalars) {
  Qnn_Scalar_t s = QNN_SCALAR_INIT;
  EXPECT_EQ(s.dataType, QNN_DATATYPE_UNDEFINED);
  EXPECT_EQ(s.floatValue, 0.0f);

  Qnn_QuantizeParams_t q = QNN_QUANTIZE_PARAMS_INIT;
  EXPECT_EQ(q.encodingDefinition, QNN_DEFINITION_UNDEFINED);
  EXPECT_EQ(q.scaleOffsetEncoding.scale, 0.0f);
  EXPECT_EQ(q.scaleOffsetEncoding.offset, 0);

  Qnn_Param_t p = QNN_PARAM_INIT;
  EXPECT_EQ(p.paramType, QNN_PARAMTYPE_UNDEFINED);
  EXPECT_EQ(p.name, nullptr);
  EXPECT_EQ(p.scalarParam.dataType, QNN_DATATYPE_UNDEFINED);

  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  EXPECT_EQ(op.version, QNN_OPCONFIG_VERSION_1);
  EXPECT_EQ(op.v1.typeName, nullptr);
  EXPECT_EQ(op.v1.numOfOutputs, 0u);

  Qnn_ClientBuffer_t cb = QNN_CLIENT_BUFFER_INIT;
  EXPECT_EQ(cb.data, nullptr);
  EXPECT_EQ(cb.dataSize, 0u);

  Qnn_ApiVersion_t v = QNN_API_VERSION_INIT;
  EXPECT_EQ(v.coreApiVersion.major, 2u);
  EXPECT_EQ(v.coreApiVersion.minor, 39u);
  EXPECT_EQ(v.backendApiVersion.major, 0u);
}

TEST(QnnInitMacros, MemAndConfigs) {
  Qnn_MemDescriptor_t md = QNN_MEM_DESCRIPTOR_INIT;
  EXPECT_EQ(md.memShape.numDim, 0u);
  EXPECT_EQ(md.memShape.dimSize, nullptr);
  EXPECT_EQ(md.memShape.shapeConfig, nullptr);
  EXPECT_EQ(md.dataType, QNN_DATATYPE_UNDEFINED);
  EXPECT_EQ(md.memType, QNN_MEM_TYPE_UNDEFINED);
  EXPECT_EQ(md.ionInfo.fd, -1);

  QnnContext_Config_t cc = QNN_CONTEXT_CONFIG_INIT;
  EXPECT_EQ(cc.option, QNN_CONTEXT_CONFIG_UNDEFINED);
  EXPECT_EQ(cc.customConfig, nullptr);
  QnnContext_Property_t cp = QNN_CONTEXT_PROPERTY_INIT;
  EXPECT_EQ(cp.option, QNN_CONTEXT_PROPERTY_OPTION_UNDEFINED);
  EXPECT_EQ(cp.customProperty, nullptr);
  QnnGraph_Config_t gc = QNN_GRAPH_CONFIG_INIT;
  EXPECT_EQ(gc.option, QNN_GRAPH_CONFIG_OPTION_UNDEFINED);
  QnnBackend_Config_t bc = QNN_BACKEND_CONFIG_INIT;
  EXPECT_EQ(bc.option, QNN_BACKEND_CONFIG_OPTION_UNDEFINED);
  QnnDevice_Config_t dc = QNN_DEVICE_CONFIG_INIT;
  EXPECT_EQ(dc.option, QNN_DEVICE_CONFIG_OPTION_UNDEFINED);

  QnnHtpContext_CustomConfig_t hcc = QNN_HTP_CONTEXT_CUSTOM_CONFIG_INIT;
  EXPECT_EQ(hcc.option, QNN_HTP_CONTEXT_CONFIG_OPTION_UNKNOWN);
  EXPECT_FALSE(hcc.weightSharingEnabled);
  QnnHtpContext_CustomProperty_t hcp = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  EXPECT_EQ(hcp.option, QNN_HTP_CONTEXT_GET_PROP_UNDEFINED);
  EXPECT_EQ(hcp.spillfillBufferSize, 0u);

  QnnSystemContext_BinaryInfo_t bi = QNN_SYSTEM_CONTEXT_BINARYINFO_INIT;
  EXPECT_EQ(bi.version, QNN_SYSTEM_CONTEXT_BINARY_INFO_UNDEFINED);
  EXPECT_EQ(bi.contextBinaryInfoV1.graphs, nullptr);
}

TEST(QnnInitMacros, InterfaceTables) {
  QnnInterface_t iface = QNN_INTERFACE_INIT;
  EXPECT_EQ(iface.backendId, static_cast<uint32_t>(QNN_BACKEND_ID_NULL));
  EXPECT_EQ(iface.providerName, nullptr);
  EXPECT_EQ(iface.apiVersion.coreApiVersion.major, 2u);
  EXPECT_EQ(iface.apiVersion.coreApiVersion.minor, 39u);
  EXPECT_EQ(iface.QNN_INTERFACE_VER_NAME.propertyHasCapability, nullptr);
  EXPECT_EQ(iface.v2_39.memRegister, nullptr);
  EXPECT_EQ(iface.v2_39.backendRegisterOpPackageFromBinary, nullptr);

  QnnSystemInterface_t sys = QNN_SYSTEM_INTERFACE_INIT;
  EXPECT_EQ(sys.systemApiVersion.major, 0u);
  EXPECT_EQ(sys.QNN_SYSTEM_INTERFACE_VER_NAME.systemContextCreate, nullptr);
  EXPECT_EQ(sys.v1_7.systemProfileFreeSerializationTarget, nullptr);
}

// The HTP shared-buffer tutorial's structure usage, written out with the
// member names and types it relies on.
TEST(HtpTutorial, SharedBufferAndExternalBuffers) {
  // Multi-tensor shared buffer.
  int memFd = 42;
  uint64_t offset = 4096;
  Qnn_MemDescriptor_t memDescriptor = QNN_MEM_DESCRIPTOR_INIT;
  memDescriptor.memShape = {1, nullptr, nullptr};
  memDescriptor.dataType = QNN_DATATYPE_UFIXED_POINT_8;
  memDescriptor.memType = QNN_MEM_TYPE_CUSTOM;
  QnnMemHtp_Descriptor_t htpMemDescriptor;
  htpMemDescriptor.type = QNN_HTP_MEM_SHARED_BUFFER;
  htpMemDescriptor.size = 1u << 20;
  QnnHtpMem_SharedBufferConfig_t htpSharedBuffConfig = {memFd, offset};
  htpMemDescriptor.sharedBufferConfig = htpSharedBuffConfig;
  memDescriptor.customInfo = &htpMemDescriptor;
  EXPECT_EQ(static_cast<QnnMemHtp_Descriptor_t*>(memDescriptor.customInfo)->sharedBufferConfig.fd, 42);

  // FastRPC external weights / spill-fill.
  QnnContext_Config_t contextConfig = QNN_CONTEXT_CONFIG_INIT;
  contextConfig.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  contextConfig.isGraphInitDeferred = 1;
  const QnnContext_Config_t* pContextConfig[] = {&contextConfig, NULL};
  EXPECT_EQ(pContextConfig[0]->isGraphInitDeferred, 1);

  QnnContext_Property_t contextProperty = QNN_CONTEXT_PROPERTY_INIT;
  contextProperty.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  QnnContext_Property_t* contextProperties[] = {&contextProperty, nullptr};
  QnnHtpContext_CustomProperty_t weightsCustomProperty = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  weightsCustomProperty.option = QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE;
  weightsCustomProperty.weightsBufferSize = static_cast<uint64_t>(-1);
  contextProperty.customProperty = &weightsCustomProperty;
  QnnHtpContext_CustomProperty_t spillfillCustomProperty = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  spillfillCustomProperty.option = QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE;
  spillfillCustomProperty.spillfillBufferSize = static_cast<uint64_t>(-1);
  QnnHtpContext_CustomProperty_t alignmentCustomProperty = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  alignmentCustomProperty.option = QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT;
  alignmentCustomProperty.bufferStartAlignment = static_cast<uint64_t>(-1);
  EXPECT_EQ(contextProperties[0]->customProperty, &weightsCustomProperty);
  EXPECT_EQ(spillfillCustomProperty.spillfillBufferSize, UINT64_MAX);
  EXPECT_EQ(alignmentCustomProperty.bufferStartAlignment, UINT64_MAX);

  QnnMemHtp_Descriptor_t weightsHtpMemDescriptor;
  weightsHtpMemDescriptor.type = QNN_HTP_MEM_WEIGHTS_BUFFER;
  weightsHtpMemDescriptor.size = 8192;
  QnnHtpMem_SharedBufferConfig_t weightsSharedBuffConfig = {7, 0};
  weightsHtpMemDescriptor.weightsBufferConfig = weightsSharedBuffConfig;
  EXPECT_EQ(weightsHtpMemDescriptor.weightsBufferConfig.fd, 7);

  QnnMemHtp_Descriptor_t spillfillHtpMemDescriptor;
  spillfillHtpMemDescriptor.type = QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER;
  spillfillHtpMemDescriptor.size = 4096;
  QnnHtpMem_SharedBufferConfig_t spillfillSharedBuffConfig = {9, 64};
  spillfillHtpMemDescriptor.spillfillBufferConfig = spillfillSharedBuffConfig;
  // The tutorial's spelling and the header's spelling name the same storage.
  EXPECT_EQ(&spillfillHtpMemDescriptor.spillfillBufferConfig,
            &spillfillHtpMemDescriptor.sharedSpillfillBufferConfig);
  EXPECT_EQ(spillfillHtpMemDescriptor.sharedSpillfillBufferConfig.fd, 9);
  EXPECT_EQ(spillfillHtpMemDescriptor.sharedSpillfillBufferConfig.offset, 64u);
  spillfillHtpMemDescriptor.sharedSpillfillBufferConfig.fd = 11;
  EXPECT_EQ(spillfillHtpMemDescriptor.spillfillBufferConfig.fd, 11);

  // Non-RPC concurrent sharing of spill-fill and VTCM backup buffers.
  QnnHtpContext_GroupRegistration_t concurrentGroupRegistrationCfg1;
  concurrentGroupRegistrationCfg1.firstGroupHandle = 0;
  concurrentGroupRegistrationCfg1.maxSpillFillBuffer = 0;
  QnnHtpContext_CustomConfig_t htpCustomConfig1;
  htpCustomConfig1.option = QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING;
  htpCustomConfig1.concurrentGroupRegistration = concurrentGroupRegistrationCfg1;
  QnnContext_Config_t contextCustomConfig1;
  contextCustomConfig1.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
  contextCustomConfig1.customConfig = &htpCustomConfig1;
  QnnContext_Config_t contextExtBufferCustomConfig;
  contextExtBufferCustomConfig.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  contextExtBufferCustomConfig.isGraphInitDeferred = true;
  const QnnContext_Config_t* contextConfig1[] = {&contextCustomConfig1,
                                                 &contextExtBufferCustomConfig, nullptr};
  EXPECT_EQ(static_cast<QnnHtpContext_CustomConfig_t*>(contextConfig1[0]->customConfig)->option,
            QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING);
  EXPECT_EQ(htpCustomConfig1.concurrentGroupRegistration.firstGroupHandle, nullptr);

  QnnContext_Property_t spillfillProperty = {};
  spillfillProperty.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  QnnHtpContext_CustomProperty_t spillfillCustomProp = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  spillfillCustomProp.option = QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE;
  spillfillCustomProp.spillfillBufferSize = 0;
  spillfillProperty.customProperty = &spillfillCustomProp;
  QnnContext_Property_t vtcmProperty = {};
  vtcmProperty.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  QnnHtpContext_CustomProperty_t vtcmCustomProp = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  vtcmCustomProp.option = QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE;
  vtcmCustomProp.vtcmBackupBufferSize = 0;
  vtcmProperty.customProperty = &vtcmCustomProp;
  QnnContext_Property_t* properties[] = {&spillfillProperty, &vtcmProperty, nullptr};
  EXPECT_EQ(properties[1]->customProperty, &vtcmCustomProp);

  QnnHtpMem_QurtAddress_t spillFillQurtVA = 0x1000u;
  QnnHtpMem_QurtAddress_t vtcmBackupQurtVA = 0x2000u;
  QnnMemHtp_Descriptor_t spillFillHtpDescriptor;
  spillFillHtpDescriptor.type = QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER;
  spillFillHtpDescriptor.size = 1024;
  spillFillHtpDescriptor.sharedSpillfillBufferQurtAddress = spillFillQurtVA;
  QnnMemHtp_Descriptor_t vtcmBackupHtpDescriptor;
  vtcmBackupHtpDescriptor.type = QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER;
  vtcmBackupHtpDescriptor.size = 2048;
  vtcmBackupHtpDescriptor.sharedVTCMBackupBufferQurtAddress = vtcmBackupQurtVA;

  uint32_t dims = 1;
  const uint32_t rank = 1;
  const Qnn_MemShape_t qnnMemShapeInput = {rank, &dims, nullptr};
  Qnn_MemDescriptor_t spillFillMemDescriptor;
  spillFillMemDescriptor.memShape = qnnMemShapeInput;
  spillFillMemDescriptor.dataType = QNN_DATATYPE_UINT_8;
  spillFillMemDescriptor.memType = QNN_MEM_TYPE_CUSTOM;
  spillFillMemDescriptor.customInfo = &spillFillHtpDescriptor;
  Qnn_MemDescriptor_t vtcmBackupMemDescriptor;
  vtcmBackupMemDescriptor.memShape = qnnMemShapeInput;
  vtcmBackupMemDescriptor.dataType = QNN_DATATYPE_UINT_8;
  vtcmBackupMemDescriptor.memType = QNN_MEM_TYPE_CUSTOM;
  vtcmBackupMemDescriptor.customInfo = &vtcmBackupHtpDescriptor;
  Qnn_MemDescriptor_t memDescriptors[2] = {spillFillMemDescriptor, vtcmBackupMemDescriptor};
  Qnn_MemHandle_t memHandles1[2] = {nullptr, nullptr};
  (void)memHandles1;

  auto* d0 = static_cast<QnnMemHtp_Descriptor_t*>(memDescriptors[0].customInfo);
  auto* d1 = static_cast<QnnMemHtp_Descriptor_t*>(memDescriptors[1].customInfo);
  EXPECT_EQ(d0->sharedSpillfillBufferQurtAddress, 0x1000u);
  EXPECT_EQ(d1->sharedVTCMBackupBufferQurtAddress, 0x2000u);
  EXPECT_EQ(d0->qurtAddress, 0x1000u);  // all DSP-address members overlay
}

TEST(HtpDevice, InfrastructureCast) {
  // Clients cast the opaque infrastructure pointer to the HTP struct.
  QnnHtpDevice_Infrastructure_t infra;
  infra.infraType = QNN_HTP_DEVICE_INFRASTRUCTURE_TYPE_PERF;
  infra.perfInfra = QNN_HTP_DEVICE_PERF_INFRASTRUCTURE_INIT;
  QnnDevice_Infrastructure_t opaque = &infra;
  auto* back = static_cast<QnnHtpDevice_Infrastructure_t*>(opaque);
  EXPECT_EQ(back->infraType, QNN_HTP_DEVICE_INFRASTRUCTURE_TYPE_PERF);
  EXPECT_EQ(back->perfInfra.setPowerConfig, nullptr);

  QnnHtpPerfInfrastructure_PowerConfig_t pc = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  EXPECT_EQ(pc.option, QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_UNKNOWN);
  EXPECT_EQ(pc.dcvsV3Config.contextId, 0u);
}

TEST(QnnOpPackage, ErrorsAndInit) {
  EXPECT_EQ(QNN_OP_PACKAGE_MIN_ERROR, 3000);
  EXPECT_EQ(QNN_OP_PACKAGE_MAX_ERROR, 3999);
  EXPECT_EQ(QNN_OP_PACKAGE_NO_ERROR, 0);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_UNSUPPORTED_FEATURE, 1000);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_LIBRARY_ALREADY_INITIALIZED, 3000);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_LIBRARY_NOT_INITIALIZED, 3001);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_INVALID_HANDLE, 3002);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_INVALID_INFRASTRUCTURE, 3100);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_INVALID_INFO, 3101);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_VALIDATION_FAILURE, 3110);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_INVALID_ARGUMENT, 3200);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_GENERAL, 1100);
  EXPECT_EQ(QNN_OP_PACKAGE_ERROR_UNDEFINED, 0x7FFFFFFF);

  QnnOpPackage_Interface_t iface = QNN_OP_PACKAGE_INTERFACE_INIT;
  EXPECT_EQ(iface.interfaceVersion.major, 1u);
  EXPECT_EQ(iface.interfaceVersion.minor, 4u);
  EXPECT_EQ(iface.interfaceVersion.patch, 0u);
  EXPECT_EQ(iface.v1_4.init, nullptr);
  EXPECT_EQ(iface.v1_4.logTerminate, nullptr);
  Qnn_Version_t v2 = QNN_OP_PACKAGE_API_VERSION_2_0_0;
  EXPECT_EQ(v2.major, 2u);
  EXPECT_EQ(v2.minor, 0u);

  QnnOpPackage_Info_t info = QNN_OP_PACKAGE_INFO_INIT;
  EXPECT_EQ(info.packageName, nullptr);
  EXPECT_EQ(info.numOperations, 0u);
  for (size_t r : info.reserved) EXPECT_EQ(r, 0u);
}

TEST(QnnSaver, ValuesAndInit) {
  EXPECT_EQ(QNN_BACKEND_ID_SAVER, 2);
  EXPECT_STREQ(QNN_SAVER_INTERFACE_PROVIDER_NAME, "SAVER_QTI_AISW");
  EXPECT_EQ(QNN_SAVER_MIN_ERROR, 4950);
  EXPECT_EQ(QNN_SAVER_ERROR_DUMMY_RETVALUE, 4950);
  EXPECT_EQ(QNN_SAVER_ERROR_ALREADY_INSTANTIATED, 4951);
  EXPECT_EQ(QNN_SAVER_MAX_ERROR, 4998);
  EXPECT_EQ(QNN_SAVER_CONFIG_OPTION_OUTPUT_DIRECTORY, 0);
  EXPECT_EQ(QNN_SAVER_CONFIG_OPTION_APPEND_TIMESTAMP, 1);
  EXPECT_EQ(QNN_SAVER_CONFIG_OPTION_BACKEND_ID, 2);
  EXPECT_EQ(QNN_SAVER_CONFIG_OPTION_FILE_CONFIG, 3);
  EXPECT_EQ(QNN_SAVER_CONFIG_OPTION_UNDEFINED, 0x7FFFFFFF);

  QnnSaver_Config_t cfg = QNN_SAVER_CONFIG_INIT;
  EXPECT_EQ(cfg.option, QNN_SAVER_CONFIG_OPTION_UNDEFINED);
  EXPECT_EQ(cfg.outputDirectory, nullptr);

  Qnn_ApiVersion_t v = QNN_SAVER_API_VERSION_INIT;
  EXPECT_EQ(v.coreApiVersion.major, 2u);
  EXPECT_EQ(v.coreApiVersion.minor, 39u);
  EXPECT_EQ(v.backendApiVersion.major, 1u);
  EXPECT_EQ(v.backendApiVersion.minor, 0u);
  EXPECT_EQ(v.backendApiVersion.patch, 0u);
}

TEST(QnnHtpProperty, CustomKeys) {
  EXPECT_EQ(QNN_PROPERTY_GROUP_CUSTOM, 2001);
  EXPECT_EQ(QNN_PROPERTY_CUSTOM_HTP_UNSIGNED_PD_SUPPORT, 2002);
}
