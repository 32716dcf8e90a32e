// QnnInterface_getProviders: the one HTP provider and its function table.
#include "HTP/QnnHtpCommon.h"
#include "QnnInterface.h"
#include "qnn/api_guard.h"

namespace {

// Every entry is non-NULL: unimplemented ones answer NOT_SUPPORTED.
const QnnInterface_t kHtpProvider = [] {
  QnnInterface_t p = QNN_INTERFACE_INIT;
  p.backendId = QNN_BACKEND_ID_HTP;
  p.providerName = QNN_HTP_INTERFACE_PROVIDER_NAME;
  p.apiVersion = Qnn_ApiVersion_t QNN_HTP_API_VERSION_INIT;
  auto& t = p.QNN_INTERFACE_VER_NAME;
  t.propertyHasCapability = QnnProperty_hasCapability;
  t.backendCreate = QnnBackend_create;
  t.backendSetConfig = QnnBackend_setConfig;
  t.backendGetApiVersion = QnnBackend_getApiVersion;
  t.backendGetBuildId = QnnBackend_getBuildId;
  t.backendRegisterOpPackage = QnnBackend_registerOpPackage;
  t.backendGetSupportedOperations = QnnBackend_getSupportedOperations;
  t.backendValidateOpConfig = QnnBackend_validateOpConfig;
  t.backendFree = QnnBackend_free;
  t.contextCreate = QnnContext_create;
  t.contextSetConfig = QnnContext_setConfig;
  t.contextGetBinarySize = QnnContext_getBinarySize;
  t.contextGetBinary = QnnContext_getBinary;
  t.contextCreateFromBinary = QnnContext_createFromBinary;
  t.contextFree = QnnContext_free;
  t.graphCreate = QnnGraph_create;
  t.graphCreateSubgraph = QnnGraph_createSubgraph;
  t.graphSetConfig = QnnGraph_setConfig;
  t.graphAddNode = QnnGraph_addNode;
  t.graphFinalize = QnnGraph_finalize;
  t.graphRetrieve = QnnGraph_retrieve;
  t.graphExecute = QnnGraph_execute;
  t.graphExecuteAsync = QnnGraph_executeAsync;
  t.tensorCreateContextTensor = QnnTensor_createContextTensor;
  t.tensorCreateGraphTensor = QnnTensor_createGraphTensor;
  t.logCreate = QnnLog_create;
  t.logSetLogLevel = QnnLog_setLogLevel;
  t.logFree = QnnLog_free;
  t.profileCreate = QnnProfile_create;
  t.profileSetConfig = QnnProfile_setConfig;
  t.profileGetEvents = QnnProfile_getEvents;
  t.profileGetSubEvents = QnnProfile_getSubEvents;
  t.profileGetEventData = QnnProfile_getEventData;
  t.profileGetExtendedEventData = QnnProfile_getExtendedEventData;
  t.profileFree = QnnProfile_free;
  t.memRegister = QnnMem_register;
  t.memDeRegister = QnnMem_deRegister;
  t.deviceGetPlatformInfo = QnnDevice_getPlatformInfo;
  t.deviceFreePlatformInfo = QnnDevice_freePlatformInfo;
  t.deviceGetInfrastructure = QnnDevice_getInfrastructure;
  t.deviceCreate = QnnDevice_create;
  t.deviceSetConfig = QnnDevice_setConfig;
  t.deviceGetInfo = QnnDevice_getInfo;
  t.deviceFree = QnnDevice_free;
  t.signalCreate = QnnSignal_create;
  t.signalSetConfig = QnnSignal_setConfig;
  t.signalTrigger = QnnSignal_trigger;
  t.signalFree = QnnSignal_free;
  t.errorGetMessage = QnnError_getMessage;
  t.errorGetVerboseMessage = QnnError_getVerboseMessage;
  t.errorFreeVerboseMessage = QnnError_freeVerboseMessage;
  t.graphPrepareExecutionEnvironment = QnnGraph_prepareExecutionEnvironment;
  t.graphReleaseExecutionEnvironment = QnnGraph_releaseExecutionEnvironment;
  t.graphGetProperty = QnnGraph_getProperty;
  t.contextValidateBinary = QnnContext_validateBinary;
  t.contextCreateFromBinaryWithSignal = QnnContext_createFromBinaryWithSignal;
  t.contextCreateFromBinaryListAsync = QnnContext_createFromBinaryListAsync;
  t.tensorUpdateGraphTensors = QnnTensor_updateGraphTensors;
  t.tensorUpdateContextTensors = QnnTensor_updateContextTensors;
  t.contextGetBinarySectionSize = QnnContext_getBinarySectionSize;
  t.contextGetBinarySection = QnnContext_getBinarySection;
  t.contextApplyBinarySection = QnnContext_applyBinarySection;
  t.backendGetProperty = QnnBackend_getProperty;
  t.contextGetProperty = QnnContext_getProperty;
  t.contextGetIncrementalBinary = QnnContext_getIncrementalBinary;
  t.contextReleaseIncrementalBinary = QnnContext_releaseIncrementalBinary;
  t.contextFinalize = QnnContext_finalize;
  t.globalConfigSet = QnnGlobalConfig_Set;
  t.contextCreateFromBinaryWithCallback = QnnContext_createFromBinaryWithCallback;
  t.contextGetBinarySectionUpdate = QnnContext_getBinarySectionUpdate;
  t.contextFreeBinarySectionUpdate = QnnContext_freeBinarySectionUpdate;
  t.contextAddToDlc = QnnContext_addToDlc;
  t.graphValidate = QnnGraph_validate;
  t.graphFreeValidationResult = QnnGraph_freeValidationResult;
  t.backendRegisterOpPackageFromBinary = QnnBackend_registerOpPackageFromBinary;
  return p;
}();

const QnnInterface_t* const kProviders[] = {&kHtpProvider};

}  // namespace

extern "C" QNN_INTERFACE Qnn_ErrorHandle_t QnnInterface_getProviders(const QnnInterface_t*** providerList,
                                                                    uint32_t* numProviders) try {
  if (providerList == nullptr || numProviders == nullptr) return QNN_INTERFACE_ERROR_INVALID_PARAMETER;
  *providerList = const_cast<const QnnInterface_t**>(kProviders);
  *numProviders = 1;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("QnnInterface_getProviders");
}
