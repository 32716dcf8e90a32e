// Log, backend, device, property and error entry points.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "HTP/QnnHtpCommon.h"
#include "HTP/QnnHtpDevice.h"
#include "QnnBackend.h"
#include "QnnContext.h"
#include "QnnDevice.h"
#include "QnnError.h"
#include "QnnLog.h"
#include "QnnProperty.h"
#include "QnnSdkBuildId.h"
#include "qnn/api_guard.h"
#include "qnn/domain.h"
#include "htp/device_spec.h"
#include "qnn/live_handle.h"
#include "qnn/logger.h"
#include "qnn/objects.h"
#include "qnn/op_config.h"

using namespace openhtp::qnn;

extern "C" {

// ---- log --------------------------------------------------------------------

QNN_API Qnn_ErrorHandle_t QnnLog_create(QnnLog_Callback_t callback, QnnLog_Level_t maxLogLevel,
                                        Qnn_LogHandle_t* logger) try {
  return log_create(callback, maxLogLevel, logger);
} catch (...) {
  return api_exception("logCreate");
}

QNN_API Qnn_ErrorHandle_t QnnLog_setLogLevel(Qnn_LogHandle_t logger, QnnLog_Level_t maxLogLevel) try {
  return log_set_level(logger, maxLogLevel);
} catch (...) {
  return api_exception("logSetLogLevel");
}

QNN_API Qnn_ErrorHandle_t QnnLog_free(Qnn_LogHandle_t logger) try {
  return log_free(logger);
} catch (...) {
  return api_exception("logFree");
}

// ---- backend ----------------------------------------------------------------

QNN_API Qnn_ErrorHandle_t QnnBackend_getApiVersion(Qnn_ApiVersion_t* pVersion) try {
  if (pVersion == nullptr) return QNN_BACKEND_ERROR_INVALID_ARGUMENT;
  *pVersion = Qnn_ApiVersion_t QNN_HTP_API_VERSION_INIT;
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("backendGetApiVersion");
}

QNN_API Qnn_ErrorHandle_t QnnBackend_getBuildId(const char** id) try {
  if (id == nullptr) return QNN_BACKEND_ERROR_INVALID_ARGUMENT;
  *id = QNN_SDK_BUILD_ID;
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("backendGetBuildId");
}

namespace {

// Every backend config entry's own rule, as backendCreate and backendSetConfig
// take them: a known option, a platform string that is a string of at most
// the 1024 characters QnnBackend.h allows, a custom config that points
// somewhere, an error-reporting level QNN defines.
Qnn_ErrorHandle_t check_backend_configs(const char* api, const QnnBackend_Config_t* const* config) {
  constexpr size_t kMaxPlatformOption = 1024;
  for (const QnnBackend_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    switch ((*c)->option) {
      case QNN_BACKEND_CONFIG_OPTION_PLATFORM:
        if ((*c)->platformOption == nullptr) {
          QNN_LOG_ERROR("%s: PLATFORM config's string is NULL", api);
          return QNN_BACKEND_ERROR_INVALID_CONFIG;
        }
        if (strnlen((*c)->platformOption, kMaxPlatformOption + 1) > kMaxPlatformOption) {
          QNN_LOG_ERROR("%s: PLATFORM config's string is longer than %zu characters", api, kMaxPlatformOption);
          return QNN_BACKEND_ERROR_INVALID_CONFIG;
        }
        break;
      case QNN_BACKEND_CONFIG_OPTION_CUSTOM:
        if ((*c)->customConfig == nullptr) {
          QNN_LOG_ERROR("%s: CUSTOM config points to NULL", api);
          return QNN_BACKEND_ERROR_INVALID_CONFIG;
        }
        break;
      case QNN_BACKEND_CONFIG_OPTION_ERROR_REPORTING:
        if ((*c)->errorConfig.reportingLevel != QNN_ERROR_REPORTING_LEVEL_BRIEF &&
            (*c)->errorConfig.reportingLevel != QNN_ERROR_REPORTING_LEVEL_DETAILED) {
          QNN_LOG_ERROR("%s: ERROR_REPORTING level %d is not BRIEF (0) or DETAILED (1)", api,
                        static_cast<int>((*c)->errorConfig.reportingLevel));
          return QNN_BACKEND_ERROR_INVALID_CONFIG;
        }
        break;
      default:
        QNN_LOG_ERROR("%s: config option %d is unknown", api, static_cast<int>((*c)->option));
        return QNN_BACKEND_ERROR_INVALID_CONFIG;
    }
  }
  return QNN_SUCCESS;
}

}  // namespace

QNN_API Qnn_ErrorHandle_t QnnBackend_create(Qnn_LogHandle_t logger, const QnnBackend_Config_t** config,
                                            Qnn_BackendHandle_t* backend) try {
  if (backend == nullptr) return null_argument("backendCreate", "backend", QNN_BACKEND_ERROR_INVALID_ARGUMENT);
  if (logger != nullptr && !log_handle_valid(logger)) {
    QNN_LOG_ERROR("backendCreate: log handle %p is not a live QnnLog handle", logger);
    return QNN_BACKEND_ERROR_INVALID_HANDLE;
  }
  // The backend-extension file: platform option "backend_extensions=<path>",
  // else the OPENHTP_BACKEND_EXTENSIONS environment variable.
  std::string extensions_path;
  if (const char* env = getenv("OPENHTP_BACKEND_EXTENSIONS"); env != nullptr) extensions_path = env;
  if (Qnn_ErrorHandle_t e = check_backend_configs("backendCreate", config); e != QNN_SUCCESS) return e;
  for (const QnnBackend_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    if ((*c)->option == QNN_BACKEND_CONFIG_OPTION_PLATFORM) {
      const std::string opt = (*c)->platformOption;
      const std::string key = "backend_extensions=";
      if (opt.compare(0, key.size(), key) == 0) extensions_path = opt.substr(key.size());
    }
  }
  Qnn_ErrorHandle_t err = QNN_SUCCESS;
  auto b = std::make_shared<Backend>();
  if (!extensions_path.empty()) {
    auto ext = std::make_shared<BackendExtensions>();
    std::string why;
    if (!load_backend_extensions(extensions_path, ext.get(), &why)) {
      QNN_LOG_ERROR("backendCreate: %s", why.c_str());
      return QNN_BACKEND_ERROR_INVALID_CONFIG;
    }
    b->extensions = std::move(ext);
  }
  b->logger = logger;
  b->domain = process_domain();
  b->stub = HtpStub::get(b->domain, &err);
  if (!b->stub) return err;
  *backend = ObjectTable::instance().add(ObjectKind::kBackend, b);
  if (b->domain == Domain::kNonRpc) {
    QNN_LOG_INFO("HTP backend created: Non-RPC domain (QNN runs natively on the DSP; HTP runtime in this process, "
                 "buffers by QURT address)");
  } else {
    QNN_LOG_INFO("HTP backend created: FastRPC domain (%s)",
                 b->stub->in_process() ? "HTP runtime in this process: OPENHTP_HTP_TRANSPORT=inproc"
                                       : "HTP runtime in the DSP process");
  }
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("backendCreate");
}

QNN_API Qnn_ErrorHandle_t QnnBackend_setConfig(Qnn_BackendHandle_t backend, const QnnBackend_Config_t** config) try {
  if (!live_handle("backendSetConfig", ObjectKind::kBackend, backend)) return QNN_BACKEND_ERROR_INVALID_HANDLE;
  // Checked as at create; a valid one changes nothing (the extension file
  // is read once, at create, and error reporting is always detailed).
  return check_backend_configs("backendSetConfig", config);
} catch (...) {
  return api_exception("backendSetConfig");
}

// Freeing a backend frees what was made from it: a context the client did
// not free first (a shutdown path that frees only the backend) would
// otherwise keep its graphs, registrations and DSP-side state for the life
// of the process, reachable through handles nobody can use meaningfully.
// Each goes as contextFree would take it (an execute in flight finishes;
// later calls on its handles get INVALID_HANDLE), and the count is said.
QNN_API Qnn_ErrorHandle_t QnnBackend_free(Qnn_BackendHandle_t backend) try {
  auto obj = ObjectTable::instance().remove(ObjectKind::kBackend, backend);
  if (!obj) {
    report_dead_handle("backendFree", ObjectKind::kBackend, backend);
    return QNN_BACKEND_ERROR_INVALID_HANDLE;
  }
  const auto* b = static_cast<const Backend*>(obj.get());
  size_t freed = 0;
  for (void* h : ObjectTable::instance().handles(ObjectKind::kContext)) {
    auto ctx = find_object<Context>(ObjectKind::kContext, h);
    if (ctx && ctx->backend.get() == b && QnnContext_free(h, nullptr) == QNN_SUCCESS) ++freed;
  }
  if (freed > 0) QNN_LOG_WARN("backendFree: freed %zu context(s) made from it that were still live", freed);
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("backendFree");
}

QNN_API Qnn_ErrorHandle_t QnnBackend_getSupportedOperations(Qnn_BackendHandle_t backend, uint32_t* numOperations,
                                                            const QnnBackend_OperationName_t** operations) try {
  if (!live_handle("backendGetSupportedOperations", ObjectKind::kBackend, backend)) {
    return QNN_BACKEND_ERROR_INVALID_HANDLE;
  }
  if (numOperations == nullptr || operations == nullptr) {
    return null_argument("backendGetSupportedOperations", numOperations == nullptr ? "numOperations" : "operations",
                         QNN_BACKEND_ERROR_INVALID_ARGUMENT);
  }
  // Built once from the kernel registry, so the list cannot drift from what
  // graphAddNode accepts. Strings point into the registry's static names.
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>;
    for (const auto& def : openhtp::ops::all_ops()) v->emplace_back(def.type_name);
    return v;
  }();
  static const std::vector<QnnBackend_OperationName_t>* list = [] {
    auto* v = new std::vector<QnnBackend_OperationName_t>;
    for (const auto& n : *names) v->push_back({"qti.aisw", n.c_str(), "HTP"});
    return v;
  }();
  *numOperations = static_cast<uint32_t>(list->size());
  *operations = list->data();
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("backendGetSupportedOperations");
}

QNN_API Qnn_ErrorHandle_t QnnBackend_validateOpConfig(Qnn_BackendHandle_t backend, Qnn_OpConfig_t opConfig) try {
  if (!live_handle("backendValidateOpConfig", ObjectKind::kBackend, backend)) return QNN_BACKEND_ERROR_INVALID_HANDLE;
  std::string why;
  if (!check_op_identity(opConfig, &why)) {
    QNN_LOG_ERROR("validateOpConfig: %s", why.c_str());
    return opConfig.version == QNN_OPCONFIG_VERSION_1 && opConfig.v1.packageName != nullptr &&
                   std::strcmp(opConfig.v1.packageName, "qti.aisw") != 0
               ? QNN_BACKEND_ERROR_OP_PACKAGE_NOT_FOUND
               : QNN_BACKEND_ERROR_INVALID_ARGUMENT;
  }
  const Qnn_OpConfigV1_t& v = opConfig.v1;
  std::vector<openhtp::ops::Param> params;
  std::vector<openhtp::ops::TensorDesc> ins(v.numOfInputs), outs(v.numOfOutputs);
  bool ok = convert_params(v, &params, &why);
  for (uint32_t i = 0; ok && i < v.numOfInputs; ++i) ok = describe_tensor(v.inputTensors[i], &ins[i], &why);
  for (uint32_t i = 0; ok && i < v.numOfOutputs; ++i) ok = describe_tensor(v.outputTensors[i], &outs[i], &why);
  if (!ok) {
    QNN_LOG_ERROR("validateOpConfig: %s", why.c_str());
    return QNN_BACKEND_ERROR_INVALID_ARGUMENT;
  }
  openhtp::ops::NodeDesc node{v.name ? v.name : "", v.typeName, ins, outs, params};
  return validate_node(node, QNN_BACKEND_ERROR_INVALID_ARGUMENT, QNN_BACKEND_ERROR_NOT_SUPPORTED);
} catch (...) {
  return api_exception("backendValidateOpConfig");
}

// ---- property ---------------------------------------------------------------

// Custom op packages are a device feature openhtp does not emulate: its ops
// are the qti.aisw set (docs/ops.md). Say so, not a bare NOT_SUPPORTED, so
// that a client's log explains why its package did not load.
QNN_API Qnn_ErrorHandle_t QnnBackend_registerOpPackage(Qnn_BackendHandle_t backend, const char* packagePath,
                                                       const char* interfaceProvider, const char* target) try {
  if (!ObjectTable::instance().find(ObjectKind::kBackend, backend)) {
    QNN_LOG_ERROR("backendRegisterOpPackage: %p is not a live backend handle", backend);
    return QNN_BACKEND_ERROR_INVALID_HANDLE;
  }
  if (packagePath == nullptr || interfaceProvider == nullptr) {
    QNN_LOG_ERROR("backendRegisterOpPackage: needs a package path and an interface provider");
    return QNN_BACKEND_ERROR_INVALID_ARGUMENT;
  }
  QNN_LOG_ERROR("backendRegisterOpPackage: '%s' (provider %s, target %s): custom op packages are not supported by "
                "openhtp's HTP backend; its ops are the qti.aisw set (docs/ops.md)",
                packagePath, interfaceProvider, target != nullptr ? target : "(none)");
  return QNN_BACKEND_ERROR_OP_PACKAGE_REGISTRATION_FAILED;
} catch (...) {
  return api_exception("backendRegisterOpPackage");
}

// ---- device -----------------------------------------------------------------

namespace {
// One emulated on-chip HTP: V73-class, 8 MiB of VTCM, one core.
QnnHtpDevice_DeviceInfoExtension_t g_dev_ext = [] {
  QnnHtpDevice_DeviceInfoExtension_t e{};
  e.devType = QNN_HTP_DEVICE_TYPE_ON_CHIP;
  e.onChipDevice.vtcmSize = static_cast<uint32_t>(openhtp::htp::kDevice.vtcm_mib());
  e.onChipDevice.socModel = openhtp::htp::kDevice.soc_model;
  e.onChipDevice.signedPdSupport = false;
  e.onChipDevice.dlbcSupport = false;
  e.onChipDevice.arch = QNN_HTP_DEVICE_ARCH_V73;
  return e;
}();
QnnDevice_CoreInfo_t g_core = [] {
  QnnDevice_CoreInfo_t c{};
  c.version = QNN_DEVICE_CORE_INFO_VERSION_1;
  c.v1.coreId = 0;
  c.v1.coreType = 0;
  c.v1.coreInfoExtension = nullptr;
  return c;
}();
QnnDevice_HardwareDeviceInfo_t g_hw = [] {
  QnnDevice_HardwareDeviceInfo_t h{};
  h.version = QNN_DEVICE_HARDWARE_DEVICE_INFO_VERSION_1;
  h.v1.deviceId = 0;
  h.v1.deviceType = 0;
  h.v1.numCores = openhtp::htp::kDevice.num_cores;
  h.v1.cores = &g_core;
  h.v1.deviceInfoExtension = reinterpret_cast<QnnDevice_DeviceInfoExtension_t>(&g_dev_ext);
  return h;
}();
QnnDevice_PlatformInfo_t g_platform = [] {
  QnnDevice_PlatformInfo_t p{};
  p.version = QNN_DEVICE_PLATFORM_INFO_VERSION_1;
  p.v1.numHwDevices = 1;
  p.v1.hwDevices = &g_hw;
  return p;
}();
}  // namespace

QNN_API Qnn_ErrorHandle_t QnnDevice_getPlatformInfo(Qnn_LogHandle_t logger, const QnnDevice_PlatformInfo_t** platformInfo) try {
  (void)logger;
  if (platformInfo == nullptr) return null_argument("deviceGetPlatformInfo", "platformInfo", QNN_DEVICE_ERROR_INVALID_ARGUMENT);
  *platformInfo = &g_platform;
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("deviceGetPlatformInfo");
}

QNN_API Qnn_ErrorHandle_t QnnDevice_freePlatformInfo(Qnn_LogHandle_t logger, const QnnDevice_PlatformInfo_t* platformInfo) try {
  (void)logger;
  if (platformInfo == &g_platform) return QNN_SUCCESS;
  QNN_LOG_ERROR("deviceFreePlatformInfo: %p is not the platform info deviceGetPlatformInfo gave", platformInfo);
  return QNN_DEVICE_ERROR_INVALID_ARGUMENT;
} catch (...) {
  return api_exception("deviceFreePlatformInfo");
}

QNN_API Qnn_ErrorHandle_t QnnDevice_getInfo(Qnn_DeviceHandle_t device, const QnnDevice_PlatformInfo_t** platformInfo) try {
  if (!live_handle("deviceGetInfo", ObjectKind::kDevice, device)) return QNN_DEVICE_ERROR_INVALID_HANDLE;
  if (platformInfo == nullptr) return null_argument("deviceGetInfo", "platformInfo", QNN_DEVICE_ERROR_INVALID_ARGUMENT);
  *platformInfo = &g_platform;
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("deviceGetInfo");
}

QNN_API Qnn_ErrorHandle_t QnnDevice_create(Qnn_LogHandle_t logger, const QnnDevice_Config_t** config,
                                           Qnn_DeviceHandle_t* device) try {
  (void)logger;
  if (device == nullptr) return null_argument("deviceCreate", "device", QNN_DEVICE_ERROR_INVALID_ARGUMENT);
  auto d = std::make_shared<Device>();
  // SOC/ARCH configs describe a real chip (the emulator has one shape); the
  // secure-PD switch is recorded because it rules out external buffers.
  for (const QnnDevice_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    if ((*c)->option != QNN_DEVICE_CONFIG_OPTION_CUSTOM || (*c)->customConfig == nullptr) continue;
    const auto* htp = reinterpret_cast<const QnnHtpDevice_CustomConfig_t*>((*c)->customConfig);
    if (htp->option == QNN_HTP_DEVICE_CONFIG_OPTION_SECUREPD && htp->useSecureProcessDomain.useSecureProcessDomain) {
      d->secure_pd = true;
    }
  }
  *device = ObjectTable::instance().add(ObjectKind::kDevice, d);
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("deviceCreate");
}

QNN_API Qnn_ErrorHandle_t QnnDevice_setConfig(Qnn_DeviceHandle_t device, const QnnDevice_Config_t** config) try {
  (void)config;
  return live_handle("deviceSetConfig", ObjectKind::kDevice, device) ? QNN_SUCCESS : QNN_DEVICE_ERROR_INVALID_HANDLE;
} catch (...) {
  return api_exception("deviceSetConfig");
}

QNN_API Qnn_ErrorHandle_t QnnDevice_free(Qnn_DeviceHandle_t device) try {
  if (ObjectTable::instance().remove(ObjectKind::kDevice, device)) return QNN_SUCCESS;
  report_dead_handle("deviceFree", ObjectKind::kDevice, device);
  return QNN_DEVICE_ERROR_INVALID_HANDLE;
} catch (...) {
  return api_exception("deviceFree");
}

}  // extern "C"
