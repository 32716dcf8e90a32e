// The provider and its table, logging, versions, device info, properties,
// error messages, op support and validation, profiling.
#include <dlfcn.h>

#include <cstring>
#include <map>
#include <set>

#include "HTP/QnnHtpCommon.h"
#include "HTP/QnnHtpDevice.h"
#include "QnnProperty.h"
#include "qnn_test_util.h"

using namespace qnntest;

TEST(Provider, IsTheHtpBackendWithAFullTable) {
  const QnnInterface_t** providers = nullptr;
  uint32_t n = 0;
  ASSERT_EQ(QnnInterface_getProviders(&providers, &n), QNN_SUCCESS);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(providers[0]->backendId, 6u);
  EXPECT_STREQ(providers[0]->providerName, "HTP_QTI_AISW");
  // Clients built with any 2.3x headers take a provider with major 2 and
  // minor >= theirs.
  EXPECT_EQ(providers[0]->apiVersion.coreApiVersion.major, 2u);
  EXPECT_GE(providers[0]->apiVersion.coreApiVersion.minor, 39u);
  EXPECT_EQ(providers[0]->apiVersion.backendApiVersion.major, 5u);
  const auto* table = reinterpret_cast<void* const*>(&providers[0]->QNN_INTERFACE_VER_NAME);
  const size_t entries = sizeof(QNN_INTERFACE_VER_TYPE) / sizeof(void*);
  EXPECT_EQ(entries, 75u);
  for (size_t i = 0; i < entries; ++i) EXPECT_NE(table[i], nullptr) << "table entry " << i;
  EXPECT_EQ(QnnInterface_getProviders(nullptr, &n), QNN_INTERFACE_ERROR_INVALID_PARAMETER);
}

TEST(Provider, PlainCSymbolsAreTheTableEntries) {
  EXPECT_EQ(api().memRegister, &QnnMem_register);
  EXPECT_EQ(api().graphExecute, &QnnGraph_execute);
  EXPECT_EQ(api().backendCreate, &QnnBackend_create);
}

// XNNPACK, loaded with the skel into a client's own process (the in-process
// door, the Non-RPC domain), binds its pthreadpool calls to the first
// definition in the process's global scope. libQnnHtp carries a copy of
// openhtp's pool code (not the skel's, whose pools XNNPACK is given): were
// it to export that, XNNPACK would call the wrong copy and its kernels would
// run on one thread (session 19 found the bench's in-process door doing so).
TEST(Provider, LibQnnHtpExportsNoThreadPool) {
  void* self = dlopen("libQnnHtp.so", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(self, nullptr) << dlerror();
  EXPECT_NE(dlsym(self, "QnnInterface_getProviders"), nullptr);  // the lookup itself works
  for (const char* name : {"pthreadpool_create", "pthreadpool_parallelize_1d", "pthreadpool_parallelize_1d_tile_1d",
                           "pthreadpool_get_threads_count"}) {
    EXPECT_EQ(dlsym(self, name), nullptr) << name;
  }
  dlclose(self);
}

TEST(Provider, UnimplementedEntriesSayNotSupported) {
  EXPECT_EQ(api().contextReleaseIncrementalBinary(nullptr, nullptr, 0), QNN_COMMON_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(api().graphCreateSubgraph(nullptr, "s", nullptr), QNN_COMMON_ERROR_NOT_SUPPORTED);
}

namespace {
std::vector<std::pair<int, std::string>> g_levels;
void level_cb(const char* fmt, QnnLog_Level_t level, uint64_t, va_list args) {
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, args);
  g_levels.emplace_back(static_cast<int>(level), buf);
}
}  // namespace

TEST(Log, MessagesReachTheCallbackFilteredByLevel) {
  Qnn_LogHandle_t log = nullptr;
  ASSERT_EQ(api().logCreate(level_cb, QNN_LOG_LEVEL_ERROR, &log), QNN_SUCCESS);
  Qnn_BackendHandle_t backend = nullptr;
  g_levels.clear();
  ASSERT_EQ(api().backendCreate(log, nullptr, &backend), QNN_SUCCESS);  // logs at INFO
  for (auto& [lvl, msg] : g_levels) EXPECT_EQ(lvl, QNN_LOG_LEVEL_ERROR) << msg;
  ASSERT_EQ(api().logSetLogLevel(log, QNN_LOG_LEVEL_INFO), QNN_SUCCESS);
  Qnn_BackendHandle_t b2 = nullptr;
  ASSERT_EQ(api().backendCreate(log, nullptr, &b2), QNN_SUCCESS);
  bool saw_info = false;
  for (auto& [lvl, msg] : g_levels) saw_info |= lvl == QNN_LOG_LEVEL_INFO && msg.find("backend created") != std::string::npos;
  EXPECT_TRUE(saw_info);
  EXPECT_EQ(api().logSetLogLevel(log, static_cast<QnnLog_Level_t>(99)), QNN_LOG_ERROR_INVALID_ARGUMENT);
  api().backendFree(b2);
  api().backendFree(backend);
  EXPECT_EQ(api().logFree(log), QNN_SUCCESS);
  EXPECT_EQ(api().logFree(log), QNN_LOG_ERROR_INVALID_HANDLE);
}

TEST(Backend, VersionBuildIdAndStaleHandles) {
  Qnn_ApiVersion_t v{};
  ASSERT_EQ(api().backendGetApiVersion(&v), QNN_SUCCESS);
  EXPECT_EQ(v.backendApiVersion.major, static_cast<uint32_t>(QNN_HTP_API_VERSION_MAJOR));
  const char* id = nullptr;
  ASSERT_EQ(api().backendGetBuildId(&id), QNN_SUCCESS);
  EXPECT_NE(std::strstr(id, "openhtp"), nullptr);
  Qnn_BackendHandle_t b = nullptr;
  ASSERT_EQ(api().backendCreate(nullptr, nullptr, &b), QNN_SUCCESS);
  EXPECT_EQ(api().backendFree(b), QNN_SUCCESS);
  EXPECT_EQ(api().backendFree(b), QNN_BACKEND_ERROR_INVALID_HANDLE);
  Qnn_ContextHandle_t ctx = nullptr;
  EXPECT_EQ(api().contextCreate(b, nullptr, nullptr, &ctx), QNN_CONTEXT_ERROR_INVALID_HANDLE);
}

TEST(Device, PlatformInfoDescribesOneHtp) {
  const QnnDevice_PlatformInfo_t* info = nullptr;
  ASSERT_EQ(api().deviceGetPlatformInfo(nullptr, &info), QNN_SUCCESS);
  ASSERT_EQ(info->v1.numHwDevices, 1u);
  auto* ext = reinterpret_cast<const QnnHtpDevice_DeviceInfoExtension_t*>(info->v1.hwDevices[0].v1.deviceInfoExtension);
  EXPECT_EQ(ext->devType, QNN_HTP_DEVICE_TYPE_ON_CHIP);
  EXPECT_EQ(ext->onChipDevice.vtcmSize, 8u);
  EXPECT_EQ(api().deviceFreePlatformInfo(nullptr, info), QNN_SUCCESS);
  Qnn_DeviceHandle_t dev = nullptr;
  ASSERT_EQ(api().deviceCreate(nullptr, nullptr, &dev), QNN_SUCCESS);
  EXPECT_EQ(api().deviceFree(dev), QNN_SUCCESS);
  EXPECT_EQ(api().deviceFree(dev), QNN_DEVICE_ERROR_INVALID_HANDLE);
}

TEST_F(QnnFixture, RegisteringAnOpPackageIsRefusedWithAReason) {
  LogCapture::instance().clear();
  EXPECT_EQ(api().backendRegisterOpPackage(backend_, "libMyOps.so", "MyOpsInterfaceProvider", "CPU"),
            QNN_BACKEND_ERROR_OP_PACKAGE_REGISTRATION_FAILED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"libMyOps.so", "custom op packages are not supported"}));
  EXPECT_EQ(api().backendRegisterOpPackage(nullptr, "libMyOps.so", "p", nullptr), QNN_BACKEND_ERROR_INVALID_HANDLE);
  EXPECT_EQ(api().backendRegisterOpPackage(backend_, nullptr, "p", nullptr), QNN_BACKEND_ERROR_INVALID_ARGUMENT);
}

TEST(Property, MemoryTypesAreSupported) {
  EXPECT_EQ(api().propertyHasCapability(QNN_PROPERTY_MEMORY_SUPPORT_MEM_TYPE_ION), QNN_PROPERTY_SUPPORTED);
  EXPECT_EQ(api().propertyHasCapability(QNN_PROPERTY_MEMORY_SUPPORT_MEM_TYPE_CUSTOM), QNN_PROPERTY_SUPPORTED);
  EXPECT_EQ(api().propertyHasCapability(QNN_PROPERTY_MEMORY_SUPPORT_MEM_TYPE_DMA_BUF), QNN_PROPERTY_SUPPORTED);
  EXPECT_EQ(api().propertyHasCapability(QNN_PROPERTY_CONTEXT_SUPPORT_BINARY_UPDATES), QNN_PROPERTY_NOT_SUPPORTED);
  EXPECT_EQ(api().propertyHasCapability(0x7fffff00u), QNN_PROPERTY_ERROR_UNKNOWN_KEY);
}

TEST(Error, MessagesNameTheCodeAndVerboseAddsTheRule) {
  const char* msg = nullptr;
  ASSERT_EQ(api().errorGetMessage(QNN_MEM_ERROR_ALREADY_REGISTERED, &msg), QNN_SUCCESS);
  EXPECT_NE(std::strstr(msg, "ALREADY_REGISTERED"), nullptr);
  // High bits are backend-private; the code is the low 16.
  ASSERT_EQ(api().errorGetMessage(QNN_MEM_ERROR_ALREADY_REGISTERED | (1ull << 40), &msg), QNN_SUCCESS);
  EXPECT_EQ(api().errorGetMessage(54321, &msg), QNN_ERROR_INVALID_ERROR_HANDLE);
  Qnn_MemHandle_t bogus = reinterpret_cast<Qnn_MemHandle_t>(0x99);
  ASSERT_EQ(api().memDeRegister(&bogus, 1), QNN_MEM_ERROR_INVALID_HANDLE);
  const char* verbose = nullptr;
  ASSERT_EQ(api().errorGetVerboseMessage(QNN_MEM_ERROR_INVALID_HANDLE, &verbose), QNN_SUCCESS);
  EXPECT_NE(std::strstr(verbose, "memDeRegister"), nullptr) << verbose;
  EXPECT_EQ(api().errorFreeVerboseMessage(verbose), QNN_SUCCESS);
}

class Ops : public QnnFixture {};

TEST_F(Ops, SupportedOperationsMatchWhatAddNodeAccepts) {
  uint32_t n = 0;
  const QnnBackend_OperationName_t* ops = nullptr;
  ASSERT_EQ(api().backendGetSupportedOperations(backend_, &n, &ops), QNN_SUCCESS);
  std::set<std::string> names;
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_STREQ(ops[i].packageName, "qti.aisw");
    names.insert(ops[i].name);
  }
  for (const char* want : {QNN_OP_ELEMENT_WISE_ADD, QNN_OP_ELEMENT_WISE_MULTIPLY, QNN_OP_RELU, QNN_OP_FULLY_CONNECTED,
                           QNN_OP_MAT_MUL, QNN_OP_CONV_2D, QNN_OP_POOL_MAX_2D, QNN_OP_RESHAPE, QNN_OP_SOFTMAX}) {
    EXPECT_EQ(names.count(want), 1u) << want;
  }
}

TEST_F(Ops, ValidateOpConfigChecksShapesAndNamesTheProblem) {
  std::vector<uint32_t> d4{4}, d5{5};
  Qnn_Tensor_t in[] = {make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, d4), make_tensor("y", QNN_TENSOR_TYPE_APP_WRITE, d4)};
  Qnn_Tensor_t out = make_tensor("z", QNN_TENSOR_TYPE_APP_READ, d4);
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = "add0";
  op.v1.packageName = "qti.aisw";
  op.v1.typeName = QNN_OP_ELEMENT_WISE_ADD;
  op.v1.numOfInputs = 2;
  op.v1.inputTensors = in;
  op.v1.numOfOutputs = 1;
  op.v1.outputTensors = &out;
  EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_SUCCESS);
  out.v1.dimensions = d5.data();
  EXPECT_NE(api().backendValidateOpConfig(backend_, op), QNN_SUCCESS);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"add0"}));
  out.v1.dimensions = d4.data();
  op.v1.typeName = "NoSuchOp";
  EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_BACKEND_ERROR_NOT_SUPPORTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"NoSuchOp", "not supported"}));
  op.v1.typeName = QNN_OP_ELEMENT_WISE_ADD;
  op.v1.packageName = "com.example";
  EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_BACKEND_ERROR_OP_PACKAGE_NOT_FOUND);
}

// DETAILED profiling: one NODE event per graph step, named by the node, with
// that execute's own time (not a running total), nested in the execute next
// to "accelerator execute", whose time covers them. BASIC has none.
TEST_F(Ops, DetailedProfileHasOneNodeEventPerStepPerExecute) {
  const uint32_t n = 1u << 20;  // long enough that each node takes microseconds
  build_add_relu(n);
  std::vector<float> a(n, 1.0f), b(n, -2.0f), out(n);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a.data(), n * 4};
  in[1].v1.clientBuf = {b.data(), n * 4};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  for (QnnProfile_Level_t level : {QNN_PROFILE_LEVEL_BASIC, QNN_PROFILE_LEVEL_DETAILED}) {
    SCOPED_TRACE(level);
    Qnn_ProfileHandle_t prof = nullptr;
    ASSERT_EQ(api().profileCreate(backend_, level, &prof), QNN_SUCCESS);
    for (int run = 0; run < 2; ++run) ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, prof, nullptr), QNN_SUCCESS);
    EXPECT_FLOAT_EQ(out[0], 0.0f);  // relu(1 - 2)
    const QnnProfile_EventId_t* events = nullptr;
    uint32_t num = 0;
    ASSERT_EQ(api().profileGetEvents(prof, &events, &num), QNN_SUCCESS);
    ASSERT_EQ(num, 2u);
    for (uint32_t e = 0; e < num; ++e) {
      const QnnProfile_EventId_t* subs = nullptr;
      uint32_t nsub = 0;
      ASSERT_EQ(api().profileGetSubEvents(events[e], &subs, &nsub), QNN_SUCCESS);
      std::vector<std::string> nodes, order;
      uint64_t node_us = 0, device_us = 0;
      std::map<std::string, uint64_t> us;
      for (uint32_t i = 0; i < nsub; ++i) {
        QnnProfile_EventData_t d{};
        ASSERT_EQ(api().profileGetEventData(subs[i], &d), QNN_SUCCESS);
        if (d.unit == QNN_PROFILE_EVENTUNIT_MICROSEC) {
          us[d.identifier] = d.value;
          order.emplace_back(d.identifier);
        }
        if (d.type == QNN_PROFILE_EVENTTYPE_EXECUTE_DEVICE) device_us = d.value;
        if (d.type != QNN_PROFILE_EVENTTYPE_NODE) continue;
        EXPECT_EQ(d.unit, static_cast<QnnProfile_EventUnit_t>(QNN_PROFILE_EVENTUNIT_MICROSEC));
        nodes.emplace_back(d.identifier);
        node_us += d.value;
        // Per HVX thread: the CPU time each kernel thread spent on the node,
        // never more than the node's own time (one thread, one clock).
        const std::string node_name = d.identifier;
        const uint64_t node_value = d.value;
        const QnnProfile_EventId_t* per_thread = nullptr;
        uint32_t nthreads = 0;
        ASSERT_EQ(api().profileGetSubEvents(subs[i], &per_thread, &nthreads), QNN_SUCCESS);
        std::set<std::string> seen;
        for (uint32_t t = 0; t < nthreads; ++t) {
          QnnProfile_EventData_t td{};
          ASSERT_EQ(api().profileGetEventData(per_thread[t], &td), QNN_SUCCESS);
          EXPECT_EQ(std::string(td.identifier).rfind("HVX thread ", 0), 0u) << td.identifier;
          EXPECT_TRUE(seen.insert(td.identifier).second) << td.identifier << " twice under " << node_name;
          EXPECT_LE(td.value, node_value + 2) << td.identifier << " of " << node_name;
        }
        if (level == QNN_PROFILE_LEVEL_DETAILED) {
          EXPECT_GE(nthreads, 1u) << node_name << ": a millisecond node runs on at least one thread";
        }
      }
      // The copies through the transport, timed, around the accelerator (8 MiB
      // in, 4 MiB out over FastRPC; nothing is copied in-process).
      ASSERT_GE(order.size(), 3u);
      EXPECT_EQ(std::vector<std::string>(order.begin(), order.begin() + 3),
                (std::vector<std::string>{"copy in time", "accelerator execute", "copy out time"}));
      if (in_process_transport()) {
        EXPECT_EQ(us["copy in time"], 0u);
        EXPECT_EQ(us["copy out time"], 0u);
      } else {
        EXPECT_GT(us["copy in time"], 0u);
        EXPECT_GT(us["copy out time"], 0u);
      }
      if (level == QNN_PROFILE_LEVEL_BASIC) {
        EXPECT_TRUE(nodes.empty());
        continue;
      }
      EXPECT_EQ(nodes, (std::vector<std::string>{"add", "relu"}));
      EXPECT_GT(node_us, 0u);
      EXPECT_LE(node_us, device_us + 2) << "execute " << e << ": the nodes are inside the accelerator's time";
    }
    EXPECT_EQ(api().profileFree(prof), QNN_SUCCESS);
  }
}

TEST_F(Ops, ProfileReportsExecuteAndCopyAccounting) {
  const uint32_t n = 100;
  build_add_relu(n);
  Qnn_ProfileHandle_t prof = nullptr;
  ASSERT_EQ(api().profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, &prof), QNN_SUCCESS);
  std::vector<float> a(n, 1.0f), b(n, 2.0f), out(n);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a.data(), n * 4};
  in[1].v1.clientBuf = {b.data(), n * 4};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, prof, nullptr), QNN_SUCCESS);
  EXPECT_FLOAT_EQ(out[n - 1], 3.0f);
  const QnnProfile_EventId_t* events = nullptr;
  uint32_t num = 0;
  ASSERT_EQ(api().profileGetEvents(prof, &events, &num), QNN_SUCCESS);
  ASSERT_EQ(num, 1u);
  QnnProfile_EventData_t data{};
  ASSERT_EQ(api().profileGetEventData(events[0], &data), QNN_SUCCESS);
  EXPECT_EQ(data.type, static_cast<QnnProfile_EventType_t>(QNN_PROFILE_EVENTTYPE_EXECUTE));
  const QnnProfile_EventId_t* subs = nullptr;
  uint32_t nsub = 0;
  ASSERT_EQ(api().profileGetSubEvents(events[0], &subs, &nsub), QNN_SUCCESS);
  std::map<std::string, uint64_t> bytes;
  for (uint32_t i = 0; i < nsub; ++i) {
    ASSERT_EQ(api().profileGetEventData(subs[i], &data), QNN_SUCCESS);
    if (data.unit == QNN_PROFILE_EVENTUNIT_BYTES) bytes[data.identifier] = data.value;
  }
  const bool inproc = in_process_transport();  // in-process nothing is copied
  EXPECT_EQ(bytes["bytes copied in"], inproc ? 0u : 2u * n * 4);
  EXPECT_EQ(bytes["bytes copied out"], inproc ? 0u : 1u * n * 4);
  EXPECT_EQ(bytes["bytes by reference"], inproc ? 3u * n * 4 : 0u);
  EXPECT_EQ(api().profileFree(prof), QNN_SUCCESS);
  EXPECT_EQ(api().profileGetEvents(prof, &events, &num), QNN_PROFILE_ERROR_INVALID_HANDLE);
}
