// A client written the way latency-minded QNN clients are (an LLM runtime's
// QNN backend, ONNX Runtime's QNN provider), built against the installed SDK
// alone: -I$QNN_SDK_ROOT/include/QNN -I$QNN_SDK_ROOT/include, nothing linked
// but libdl. At start-up it does what they do:
//   - dlopen $QNN_SDK_ROOT/lib/x86_64-linux-clang/libQnnHtp.so and
//     libQnnSystem.so, pick the provider whose core API major matches;
//   - ask propertyHasCapability before using a feature;
//   - read the SoC and VTCM size from deviceGetPlatformInfo;
//   - create a device, take the HTP perf infrastructure from
//     deviceGetInfrastructure without checking it (as one client does) and
//     vote "burst": DCVS v3, RPC control latency, RPC polling;
//   - load libcdsprpc.so by name and probe rpcmem_alloc2 (falling back to
//     rpcmem_alloc), then probe how much rpcmem it can get;
//   - build one graph per op online, with the long generated tensor and
//     graph names such runtimes make, inputs in rpcmem registered as ION
//     memory for some ops and plain client buffers for others;
//   - check each result against the formula, free everything, dlclose the
//     libraries and exit (the exit path is where a missing table crashed).
// Every expected value is computed here from the inputs.
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "HTP/QnnHtpDevice.h"
#include "HTP/QnnHtpPerfInfrastructure.h"
#include "QnnInterface.h"
#include "QnnOpDef.h"
#include "QnnProperty.h"
#include "System/QnnSystemInterface.h"
#include "rpcmem.h"  // constants only: the functions come from dlsym

namespace {

int g_failures = 0;

#define EXPECT(cond)                                                                  \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "startup_client: failed: %s (line %d)\n", #cond, __LINE__); \
      ++g_failures;                                                                   \
    }                                                                                 \
  } while (0)
#define REQUIRE(cond)                                                                  \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "startup_client: fatal: %s (line %d)\n", #cond, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

using RpcmemAlloc2 = void* (*)(int, uint32_t, size_t);
using RpcmemAlloc = void* (*)(int, uint32_t, int);
using RpcmemFree = void (*)(void*);
using RpcmemToFd = int (*)(void*);

struct Rpcmem {
  RpcmemAlloc2 alloc2 = nullptr;
  RpcmemAlloc alloc = nullptr;
  RpcmemFree free = nullptr;
  RpcmemToFd to_fd = nullptr;
  void* get(size_t bytes) const {
    return alloc2 != nullptr ? alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, bytes)
                             : alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, static_cast<int>(bytes));
  }
};

void log_callback(const char* fmt, QnnLog_Level_t level, uint64_t, va_list args) {
  if (level > QNN_LOG_LEVEL_WARN) return;
  std::fprintf(stderr, "[qnn] ");
  std::vfprintf(stderr, fmt, args);
  std::fprintf(stderr, "\n");
}

// What such runtimes name things: the op, its type, its shape, its role.
std::string long_name(const std::string& op, const char* role, int index) {
  std::string s = "ggml_qnn_graph_" + op + "_f32_4x2x1x1_tensor_" + role + "_" + std::to_string(index);
  while (s.size() < 180) s += "_" + op;
  return s;
}

struct OpCase {
  const char* type;
  int inputs;                              // 1 or 2
  std::function<float(float, float)> f;    // element-wise formula
  bool matmul;                             // [2,2] x [2,2] (not element-wise)
  bool in_rpcmem;                          // inputs/outputs registered as ION memory
};

}  // namespace

int main() {
  const char* root = std::getenv("QNN_SDK_ROOT");
  REQUIRE(root != nullptr && *root != '\0');
  const std::string lib_dir = std::string(root) + "/lib/x86_64-linux-clang/";

  // --- the libraries, by the SDK's paths
  void* htp = dlopen((lib_dir + "libQnnHtp.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (htp == nullptr) std::fprintf(stderr, "startup_client: %s\n", dlerror());
  REQUIRE(htp != nullptr);
  void* sys = dlopen((lib_dir + "libQnnSystem.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(sys != nullptr);

  using GetProviders = Qnn_ErrorHandle_t (*)(const QnnInterface_t***, uint32_t*);
  auto get_providers = reinterpret_cast<GetProviders>(dlsym(htp, "QnnInterface_getProviders"));
  REQUIRE(get_providers != nullptr);
  const QnnInterface_t** providers = nullptr;
  uint32_t num_providers = 0;
  REQUIRE(get_providers(&providers, &num_providers) == QNN_SUCCESS);
  const QnnInterface_t* provider = nullptr;
  for (uint32_t i = 0; i < num_providers; ++i) {
    if (providers[i]->apiVersion.coreApiVersion.major == QNN_API_VERSION_MAJOR &&
        providers[i]->apiVersion.coreApiVersion.minor >= QNN_API_VERSION_MINOR) {
      provider = providers[i];
    }
  }
  REQUIRE(provider != nullptr);
  const QNN_INTERFACE_VER_TYPE& qnn = provider->QNN_INTERFACE_VER_NAME;
  std::printf("startup_client: provider %s, core API %u.%u.%u\n", provider->providerName,
              provider->apiVersion.coreApiVersion.major, provider->apiVersion.coreApiVersion.minor,
              provider->apiVersion.coreApiVersion.patch);

  using GetSystemProviders = Qnn_ErrorHandle_t (*)(const QnnSystemInterface_t***, uint32_t*);
  auto get_system = reinterpret_cast<GetSystemProviders>(dlsym(sys, "QnnSystemInterface_getProviders"));
  REQUIRE(get_system != nullptr);
  const QnnSystemInterface_t** system_providers = nullptr;
  uint32_t num_system = 0;
  EXPECT(get_system(&system_providers, &num_system) == QNN_SUCCESS && num_system >= 1);

  Qnn_LogHandle_t log = nullptr;
  REQUIRE(qnn.logCreate(log_callback, QNN_LOG_LEVEL_WARN, &log) == QNN_SUCCESS);
  Qnn_BackendHandle_t backend = nullptr;
  REQUIRE(qnn.backendCreate(log, nullptr, &backend) == QNN_SUCCESS);

  // --- capabilities, asked before use (each one used below)
  EXPECT(qnn.propertyHasCapability(QNN_PROPERTY_GROUP_DEVICE) == QNN_PROPERTY_SUPPORTED);
  EXPECT(qnn.propertyHasCapability(QNN_PROPERTY_CONTEXT_SUPPORT_CACHING) == QNN_PROPERTY_SUPPORTED);
  // No custom op packages on this backend: a client asks and does not try.
  EXPECT(qnn.propertyHasCapability(QNN_PROPERTY_BACKEND_SUPPORT_OP_PACKAGE) == QNN_PROPERTY_NOT_SUPPORTED);

  // --- the SoC, as runtimes print it at start-up
  const QnnDevice_PlatformInfo_t* platform = nullptr;
  REQUIRE(qnn.deviceGetPlatformInfo(log, &platform) == QNN_SUCCESS && platform != nullptr);
  REQUIRE(platform->v1.numHwDevices >= 1);
  const auto* ext =
      reinterpret_cast<const QnnHtpDevice_DeviceInfoExtension_t*>(platform->v1.hwDevices[0].v1.deviceInfoExtension);
  REQUIRE(ext != nullptr);
  EXPECT(ext->devType == QNN_HTP_DEVICE_TYPE_ON_CHIP);
  EXPECT(ext->onChipDevice.socModel != 0 && ext->onChipDevice.vtcmSize > 0 && ext->onChipDevice.arch != 0);
  std::printf("startup_client: soc model %u, arch v%d, vtcm %zu MB\n", ext->onChipDevice.socModel,
              static_cast<int>(ext->onChipDevice.arch), ext->onChipDevice.vtcmSize);
  EXPECT(qnn.deviceFreePlatformInfo(log, platform) == QNN_SUCCESS);

  // --- device and the burst vote (the table dereferenced unchecked, as one client does)
  Qnn_DeviceHandle_t device = nullptr;
  REQUIRE(qnn.deviceCreate(log, nullptr, &device) == QNN_SUCCESS);
  QnnDevice_Infrastructure_t infra = nullptr;
  EXPECT(qnn.deviceGetInfrastructure(&infra) == QNN_SUCCESS);
  QnnHtpDevice_PerfInfrastructure_t perf = reinterpret_cast<QnnHtpDevice_Infrastructure_t*>(infra)->perfInfra;
  uint32_t power_id = 0;
  EXPECT(perf.createPowerConfigId(0, 0, &power_id) == QNN_SUCCESS);
  QnnHtpPerfInfrastructure_PowerConfig_t dcvs = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  dcvs.option = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3;
  dcvs.dcvsV3Config.contextId = power_id;
  dcvs.dcvsV3Config.setDcvsEnable = 1;
  dcvs.dcvsV3Config.dcvsEnable = 0;
  dcvs.dcvsV3Config.powerMode = QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_PERFORMANCE_MODE;
  dcvs.dcvsV3Config.setSleepLatency = 1;
  dcvs.dcvsV3Config.sleepLatency = 40;
  dcvs.dcvsV3Config.setSleepDisable = 1;
  dcvs.dcvsV3Config.sleepDisable = 1;
  dcvs.dcvsV3Config.setBusParams = 1;
  dcvs.dcvsV3Config.busVoltageCornerMin = DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER;
  dcvs.dcvsV3Config.busVoltageCornerTarget = DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER;
  dcvs.dcvsV3Config.busVoltageCornerMax = DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER;
  dcvs.dcvsV3Config.setCoreParams = 1;
  dcvs.dcvsV3Config.coreVoltageCornerMin = DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER;
  dcvs.dcvsV3Config.coreVoltageCornerTarget = DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER;
  dcvs.dcvsV3Config.coreVoltageCornerMax = DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER;
  QnnHtpPerfInfrastructure_PowerConfig_t latency = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  latency.option = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY;
  latency.rpcControlLatencyConfig = 100;
  QnnHtpPerfInfrastructure_PowerConfig_t polling = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  polling.option = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME;
  polling.rpcPollingTimeConfig = 9999;
  const QnnHtpPerfInfrastructure_PowerConfig_t* votes[] = {&dcvs, &latency, &polling, nullptr};
  EXPECT(perf.setPowerConfig(power_id, votes) == QNN_SUCCESS);

  // --- rpcmem: by name, after the backend (one rpcmem per process)
  void* rpc = dlopen("libcdsprpc.so", RTLD_NOW | RTLD_LOCAL);
  if (rpc == nullptr) std::fprintf(stderr, "startup_client: %s\n", dlerror());
  REQUIRE(rpc != nullptr);
  Rpcmem mem;
  mem.alloc2 = reinterpret_cast<RpcmemAlloc2>(dlsym(rpc, "rpcmem_alloc2"));
  mem.alloc = reinterpret_cast<RpcmemAlloc>(dlsym(rpc, "rpcmem_alloc"));
  mem.free = reinterpret_cast<RpcmemFree>(dlsym(rpc, "rpcmem_free"));
  mem.to_fd = reinterpret_cast<RpcmemToFd>(dlsym(rpc, "rpcmem_to_fd"));
  REQUIRE((mem.alloc2 != nullptr || mem.alloc != nullptr) && mem.free != nullptr && mem.to_fd != nullptr);
  EXPECT(mem.alloc2 != nullptr);  // openhtp has the size_t form
  // The capacity probe: grow until refused or 512 MiB, free each at once.
  size_t probed_mb = 0;
  for (size_t mb = 64; mb <= 512; mb += 64) {
    void* p = mem.get(mb << 20);
    if (p == nullptr) break;
    EXPECT(mem.to_fd(p) >= 0);
    mem.free(p);
    probed_mb = mb;
  }
  EXPECT(probed_mb >= 64);
  std::printf("startup_client: rpcmem probe got %zu MiB\n", probed_mb);

  // --- one graph per op, online
  Qnn_ContextHandle_t context = nullptr;
  REQUIRE(qnn.contextCreate(backend, device, nullptr, &context) == QNN_SUCCESS);
  const std::vector<OpCase> ops = {
      {QNN_OP_ELEMENT_WISE_ADD, 2, [](float a, float b) { return a + b; }, false, true},
      {QNN_OP_ELEMENT_WISE_SUBTRACT, 2, [](float a, float b) { return a - b; }, false, false},
      {QNN_OP_ELEMENT_WISE_MULTIPLY, 2, [](float a, float b) { return a * b; }, false, true},
      {QNN_OP_ELEMENT_WISE_DIVIDE, 2, [](float a, float b) { return a / b; }, false, false},
      {QNN_OP_ELEMENT_WISE_LOG, 1, [](float a, float) { return std::log(a); }, false, false},
      {QNN_OP_ELEMENT_WISE_SQUARE_ROOT, 1, [](float a, float) { return std::sqrt(a); }, false, true},
      {QNN_OP_RELU, 1, [](float a, float) { return a > 0 ? a : 0.0f; }, false, false},
      {QNN_OP_MAT_MUL, 2, nullptr, true, true},
  };
  const float a_values[8] = {0.5f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.5f, 8.0f};
  const float b_values[8] = {2.0f, 0.25f, -1.0f, 4.0f, 0.5f, 2.0f, -3.0f, 1.0f};
  for (const OpCase& op : ops) {
    const std::string op_name = op.type;
    const std::string graph_name = long_name(op_name, "graph", 0);
    Qnn_GraphHandle_t graph = nullptr;
    if (qnn.graphCreate(context, graph_name.c_str(), nullptr, &graph) != QNN_SUCCESS) {
      EXPECT(!"graphCreate");
      continue;
    }
    uint32_t dims4[4] = {4, 2, 1, 1};
    uint32_t dims2[2] = {2, 2};
    uint32_t* dims = op.matmul ? dims2 : dims4;
    const uint32_t rank = op.matmul ? 2 : 4;
    const size_t count = op.matmul ? 4 : 8;
    std::vector<std::string> names = {long_name(op_name, "src0", 0), long_name(op_name, "src1", 1),
                                      long_name(op_name, "dst", 0)};
    Qnn_Tensor_t tensors[3];
    for (int i = 0; i < 3; ++i) {
      tensors[i] = QNN_TENSOR_INIT;
      tensors[i].v1.name = names[i].c_str();
      tensors[i].v1.type = i == 2 ? QNN_TENSOR_TYPE_APP_READ : QNN_TENSOR_TYPE_APP_WRITE;
      tensors[i].v1.dataType = QNN_DATATYPE_FLOAT_32;
      tensors[i].v1.rank = rank;
      tensors[i].v1.dimensions = dims;
    }
    const int n_in = op.inputs;
    bool built = true;
    for (int i = 0; i < n_in; ++i) built &= qnn.tensorCreateGraphTensor(graph, &tensors[i]) == QNN_SUCCESS;
    built &= qnn.tensorCreateGraphTensor(graph, &tensors[2]) == QNN_SUCCESS;
    Qnn_Tensor_t node_inputs[2] = {tensors[0], tensors[1]};
    Qnn_OpConfig_t config = QNN_OPCONFIG_INIT;
    const std::string node_name = long_name(op_name, "node", 0);
    config.v1.name = node_name.c_str();
    config.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    config.v1.typeName = op.type;
    config.v1.numOfInputs = static_cast<uint32_t>(n_in);
    config.v1.inputTensors = node_inputs;
    config.v1.numOfOutputs = 1;
    config.v1.outputTensors = &tensors[2];
    built = built && qnn.backendValidateOpConfig(backend, config) == QNN_SUCCESS;
    built = built && qnn.graphAddNode(graph, config) == QNN_SUCCESS;
    built = built && qnn.graphFinalize(graph, nullptr, nullptr) == QNN_SUCCESS;
    if (!built) {
      std::fprintf(stderr, "startup_client: %s: the graph did not build\n", op.type);
      ++g_failures;
      continue;
    }

    // The values, then per tensor an rpcmem buffer registered as ION memory
    // or the plain client memory itself.
    std::vector<float> plain(3 * count);
    float* base = plain.data();
    Qnn_MemHandle_t handles[3] = {nullptr, nullptr, nullptr};
    float* parts[3] = {nullptr, nullptr, nullptr};  // the rpcmem buffer of each tensor
    for (size_t i = 0; i < count; ++i) {
      base[i] = a_values[i];
      base[count + i] = b_values[i];
      base[2 * count + i] = -12345.0f;  // must be overwritten
    }
    Qnn_Tensor_t inputs[2] = {tensors[0], tensors[1]};
    Qnn_Tensor_t output = tensors[2];
    Qnn_Tensor_t* bound[3] = {&inputs[0], &inputs[1], &output};
    for (int i = 0; i < 3; ++i) {
      if (i == 1 && n_in == 1) continue;
      if (op.in_rpcmem) {
        // Each tensor its own fd: ION descriptors carry no offset.
        parts[i] = static_cast<float*>(mem.get(count * sizeof(float)));
        REQUIRE(parts[i] != nullptr);
        std::memcpy(parts[i], base + i * count, count * sizeof(float));
        Qnn_MemDescriptor_t desc = QNN_MEM_DESCRIPTOR_INIT;
        desc.memShape.numDim = rank;
        desc.memShape.dimSize = dims;
        desc.dataType = QNN_DATATYPE_FLOAT_32;
        desc.memType = QNN_MEM_TYPE_ION;
        desc.ionInfo.fd = mem.to_fd(parts[i]);
        EXPECT(qnn.memRegister(context, &desc, 1, &handles[i]) == QNN_SUCCESS);
        bound[i]->v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
        bound[i]->v1.memHandle = handles[i];
      } else {
        bound[i]->v1.memType = QNN_TENSORMEMTYPE_RAW;
        bound[i]->v1.clientBuf.data = base + i * count;
        bound[i]->v1.clientBuf.dataSize = static_cast<uint32_t>(count * sizeof(float));
      }
    }
    EXPECT(qnn.graphExecute(graph, inputs, static_cast<uint32_t>(n_in), &output, 1, nullptr, nullptr) ==
           QNN_SUCCESS);
    const float* result = op.in_rpcmem ? parts[2] : base + 2 * count;
    for (size_t i = 0; i < count; ++i) {
      float want;
      if (op.matmul) {
        const size_t r = i / 2, c = i % 2;
        want = a_values[r * 2] * b_values[c] + a_values[r * 2 + 1] * b_values[2 + c];
      } else {
        want = op.f(a_values[i], b_values[i]);
      }
      if (std::fabs(result[i] - want) > 1e-5f * std::max(1.0f, std::fabs(want))) {
        std::fprintf(stderr, "startup_client: %s[%zu] = %g, want %g\n", op.type, i, result[i], want);
        ++g_failures;
      }
    }
    for (int i = 0; i < 3; ++i) {
      if (handles[i] != nullptr) EXPECT(qnn.memDeRegister(&handles[i], 1) == QNN_SUCCESS);
      if (parts[i] != nullptr) mem.free(parts[i]);
    }
  }
  std::printf("startup_client: %zu one-op graphs built online and checked\n", ops.size());

  // --- teardown, in the order such clients use, then dlclose and exit
  EXPECT(qnn.contextFree(context, nullptr) == QNN_SUCCESS);
  EXPECT(perf.destroyPowerConfigId(power_id) == QNN_SUCCESS);
  EXPECT(qnn.deviceFree(device) == QNN_SUCCESS);
  EXPECT(qnn.backendFree(backend) == QNN_SUCCESS);
  EXPECT(qnn.logFree(log) == QNN_SUCCESS);
  dlclose(rpc);
  dlclose(sys);
  dlclose(htp);
  if (g_failures != 0) {
    std::fprintf(stderr, "startup_client: %d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("startup_client: ok\n");
  return 0;
}
