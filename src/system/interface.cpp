// QnnSystemInterface_getProviders: the one system provider and its 16-entry
// table (system API 1.7).
#include "HTP/QnnHtpCommon.h"
#include "System/QnnSystemInterface.h"
#include "system/api_guard.h"

namespace {

// Every entry is non-NULL: unimplemented ones answer UNSUPPORTED_FEATURE.
// backendId is HTP: this library reads only the HTP backend's context
// binaries (their binary info says backendId 6 too). Clients select system
// providers by systemApiVersion, not by backend.
const QnnSystemInterface_t kSystemProvider = [] {
  QnnSystemInterface_t p = QNN_SYSTEM_INTERFACE_INIT;
  p.backendId = QNN_BACKEND_ID_HTP;
  p.providerName = QNN_SYSTEM_INTERFACE_PROVIDER_NAME;
  p.systemApiVersion = {QNN_SYSTEM_API_VERSION_MAJOR, QNN_SYSTEM_API_VERSION_MINOR, QNN_SYSTEM_API_VERSION_PATCH};
  auto& t = p.QNN_SYSTEM_INTERFACE_VER_NAME;
  t.systemContextCreate = QnnSystemContext_create;
  t.systemContextGetBinaryInfo = QnnSystemContext_getBinaryInfo;
  t.systemContextGetMetaData = QnnSystemContext_getMetadata;
  t.systemContextFree = QnnSystemContext_free;
  t.systemTensorGetMemoryFootprint = QnnSystemTensor_getMemoryFootprint;
  t.systemLogCreate = QnnSystemLog_create;
  t.systemLogSetLogLevel = QnnSystemLog_setLogLevel;
  t.systemLogFree = QnnSystemLog_free;
  t.systemDlcCreateFromFile = QnnSystemDlc_createFromFile;
  t.systemDlcCreateFromBinary = QnnSystemDlc_createFromBinary;
  t.systemDlcComposeGraphs = QnnSystemDlc_composeGraphs;
  t.systemDlcGetOpMappings = QnnSystemDlc_getOpMappings;
  t.systemDlcFree = QnnSystemDlc_free;
  t.systemProfileCreateSerializationTarget = QnnSystemProfile_createSerializationTarget;
  t.systemProfileSerializeEventData = QnnSystemProfile_serializeEventData;
  t.systemProfileFreeSerializationTarget = QnnSystemProfile_freeSerializationTarget;
  return p;
}();

const QnnSystemInterface_t* const kProviders[] = {&kSystemProvider};

}  // namespace

extern "C" QNN_SYSTEM_INTERFACE Qnn_ErrorHandle_t QnnSystemInterface_getProviders(
    const QnnSystemInterface_t*** providerList, uint32_t* numProviders) try {
  if (providerList == nullptr || numProviders == nullptr) return QNN_SYSTEM_INTERFACE_ERROR_INVALID_PARAMETER;
  *providerList = const_cast<const QnnSystemInterface_t**>(kProviders);
  *numProviders = 1;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::system::api_exception("QnnSystemInterface_getProviders");
}
