// The provider and its table, logging, versions, device info, properties,
// error messages, op support and validation, profiling.
#include <dlfcn.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

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

// ---- Error messages: one for every code the shipped headers define, and a
// free that takes only what errorGetVerboseMessage handed out. ----

namespace {

// Every value an enumerator of a *_Error_t enum in include/QNN (System, HTP
// and Saver included) takes, with the names it goes by. Read from the headers
// clients compile against, so a code added there is a code this test asks
// errorGetMessage about; nothing here is listed by hand.
struct HeaderCodes {
  std::map<uint64_t, std::set<std::string>> names_by_value;
  std::set<std::string> files;  // headers that contributed a code
  std::vector<std::string> problems;
};

std::string strip_comments(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "/*") == 0) {
      const size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
      out += ' ';
    } else if (s.compare(i, 2, "//") == 0) {
      i = s.find('\n', i);
      if (i == std::string::npos) i = s.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

// The headers write error values as sums of identifiers and integer
// literals, maybe parenthesized ("QNN_MIN_ERROR_SYSTEM + 1000",
// "QNN_MIN_ERROR_GRAPH + 40", "0x7FFFFFFF"); that is all this evaluates.
// Anything else lands in `problems`, so the parser cannot quietly skip a code.
class ExprEval {
 public:
  std::map<std::string, std::string> exprs;  // #define bodies and enumerator initializers

  bool eval(const std::string& name, int64_t* out, std::string* why, int depth = 0) {
    if (auto it = done_.find(name); it != done_.end()) return *out = it->second, true;
    auto it = exprs.find(name);
    if (it == exprs.end()) return *why = "unknown identifier " + name, false;
    if (depth > 32) return *why = "recursion through " + name, false;
    pos_stack_.push_back({it->second, 0});
    const bool ok = sum(out, why, depth) && at_end(why);
    pos_stack_.pop_back();
    if (ok) done_[name] = *out;
    return ok;
  }

 private:
  struct Cursor {
    std::string s;
    size_t i;
  };
  std::map<std::string, int64_t> done_;
  std::vector<Cursor> pos_stack_;

  Cursor& c() { return pos_stack_.back(); }
  void skip_ws() {
    while (c().i < c().s.size() && std::isspace(static_cast<unsigned char>(c().s[c().i]))) ++c().i;
  }
  bool at_end(std::string* why) {
    skip_ws();
    if (c().i == c().s.size()) return true;
    return *why = "cannot read '" + c().s + "'", false;
  }
  bool sum(int64_t* out, std::string* why, int depth) {
    if (!term(out, why, depth)) return false;
    for (;;) {
      skip_ws();
      if (c().i >= c().s.size() || (c().s[c().i] != '+' && c().s[c().i] != '-')) return true;
      const char op = c().s[c().i++];
      int64_t rhs = 0;
      if (!term(&rhs, why, depth)) return false;
      *out = op == '+' ? *out + rhs : *out - rhs;
    }
  }
  bool term(int64_t* out, std::string* why, int depth) {
    skip_ws();
    Cursor& k = c();
    if (k.i >= k.s.size()) return *why = "expression ends early: '" + k.s + "'", false;
    if (k.s[k.i] == '(') {
      ++k.i;
      if (!sum(out, why, depth)) return false;
      skip_ws();
      if (c().i >= c().s.size() || c().s[c().i] != ')') return *why = "unbalanced '" + c().s + "'", false;
      ++c().i;
      return true;
    }
    if (std::isdigit(static_cast<unsigned char>(k.s[k.i]))) {
      size_t used = 0;
      *out = static_cast<int64_t>(std::stoull(k.s.substr(k.i), &used, 0));
      k.i += used;
      while (k.i < k.s.size() && (k.s[k.i] == 'u' || k.s[k.i] == 'U' || k.s[k.i] == 'l' || k.s[k.i] == 'L')) ++k.i;
      return true;
    }
    const size_t start = k.i;
    while (k.i < k.s.size() && (std::isalnum(static_cast<unsigned char>(k.s[k.i])) || k.s[k.i] == '_')) ++k.i;
    if (k.i == start) return *why = "cannot read '" + k.s + "'", false;
    const std::string id = k.s.substr(start, k.i - start);
    return eval(id, out, why, depth + 1);
  }
};

HeaderCodes read_header_error_codes() {
  namespace fs = std::filesystem;
  HeaderCodes r;
  const fs::path root = fs::path(OPENHTP_QNN_OPDEF_HEADER).parent_path();  // include/QNN
  ExprEval ev;
  struct Enumerator {
    std::string name, file;
  };
  std::vector<Enumerator> wanted;
  const std::regex define_re(R"(^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]+))", std::regex::multiline);
  const std::regex enum_re(R"(typedef\s+enum\s*\w*\s*\{([^}]*)\}\s*(\w+)\s*;)");
  const std::regex enumerator_re(R"(^\s*(\w+)\s*(?:=\s*([\s\S]+?))?\s*$)");
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".h") continue;
    std::ifstream f(entry.path());
    const std::string text = strip_comments(std::string(std::istreambuf_iterator<char>(f), {}));
    const std::string file = fs::relative(entry.path(), root).string();
    for (std::sregex_iterator m(text.begin(), text.end(), define_re), e; m != e; ++m) ev.exprs[(*m)[1]] = (*m)[2];
    for (std::sregex_iterator m(text.begin(), text.end(), enum_re), e; m != e; ++m) {
      const std::string type = (*m)[2];
      const bool is_error_enum = type.size() > 8 && type.compare(type.size() - 8, 8, "_Error_t") == 0;
      std::string prev;  // an enumerator without '=' is the one before plus 1
      std::stringstream body((*m)[1].str());
      for (std::string item; std::getline(body, item, ',');) {
        std::smatch em;
        if (item.find_first_not_of(" \t\r\n") == std::string::npos) continue;
        if (!std::regex_match(item, em, enumerator_re)) {
          r.problems.push_back(file + ": cannot read enumerator '" + item + "'");
          continue;
        }
        const std::string name = em[1];
        ev.exprs[name] = em[2].matched ? em[2].str() : (prev.empty() ? std::string("0") : "(" + prev + ") + 1");
        prev = name;
        if (is_error_enum) wanted.push_back({name, file});
      }
    }
  }
  // Range markers (*_MIN_ERROR, *_MAXERROR, ...) and the 32-bit sentinel
  // are not codes a call returns.
  const std::regex marker_re(R"(.*(MIN|MAX)_?ERROR)");
  for (const auto& w : wanted) {
    if (std::regex_match(w.name, marker_re)) continue;
    int64_t v = 0;
    std::string why;
    if (!ev.eval(w.name, &v, &why)) {
      r.problems.push_back(w.file + ": " + w.name + ": " + why);
      continue;
    }
    if (v == 0x7FFFFFFF) continue;
    r.names_by_value[static_cast<uint64_t>(v)].insert(w.name);
    r.files.insert(w.file);
  }
  return r;
}

class ErrorMessages : public ::testing::Test {
 protected:
  void SetUp() override {
    LogCapture::instance().clear();
    ASSERT_EQ(api().logCreate(LogCapture::callback, QNN_LOG_LEVEL_ERROR, &log_), QNN_SUCCESS);
  }
  void TearDown() override {
    if (log_ != nullptr) api().logFree(log_);
  }
  static size_t lines_with(const std::string& a, const std::string& b) {
    size_t n = 0;
    for (const auto& l : LogCapture::instance().lines()) n += l.find(a) != std::string::npos && l.find(b) != std::string::npos;
    return n;
  }
  static std::string pointer_text(const void* p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", p);
    return buf;
  }
  Qnn_LogHandle_t log_ = nullptr;
};

}  // namespace

TEST(ErrorMessagesHeaders, TheParserFindsTheCodesOfEveryHeaderFamily) {
  // Guards the test below: a parser that found nothing would pass it.
  const HeaderCodes h = read_header_error_codes();
  for (const auto& p : h.problems) ADD_FAILURE() << p;
  for (const char* file : {"QnnCommon.h", "QnnGraph.h", "QnnContext.h", "QnnError.h", "System/QnnSystemContext.h",
                           "System/QnnSystemProfile.h", "HTP/QnnHtpPerfInfrastructure.h", "Saver/QnnSaver.h"})
    EXPECT_EQ(h.files.count(file), 1u) << file << " contributed no error code";
  // Spot values computed through a chain of #defines and enumerators.
  EXPECT_EQ(h.names_by_value.count(QNN_GRAPH_ERROR_CYCLE_DETECTED), 1u);
  ASSERT_EQ(h.names_by_value.count(30010), 1u);
  EXPECT_EQ(h.names_by_value.at(30010).count("QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY"), 1u);
  ASSERT_EQ(h.names_by_value.count(1000), 1u);
  EXPECT_EQ(h.names_by_value.at(1000).count("QNN_TENSOR_ERROR_UNSUPPORTED_FEATURE"), 1u);
  EXPECT_EQ(h.names_by_value.count(QNN_MIN_ERROR_INTERFACE), 0u) << "a range marker was taken for a code";
  EXPECT_EQ(h.names_by_value.count(0x7FFFFFFF), 0u) << "the enum-width sentinel was taken for a code";
  EXPECT_GE(h.names_by_value.size(), 110u);  // 119 distinct values when written
}

TEST_F(ErrorMessages, EveryCodeTheHeadersDefineHasAMessageThatNamesIt) {
  const HeaderCodes h = read_header_error_codes();
  ASSERT_TRUE(h.problems.empty()) << h.problems.front();
  ASSERT_FALSE(h.names_by_value.empty());
  for (const auto& [value, names] : h.names_by_value) {
    const char* msg = nullptr;
    ASSERT_EQ(api().errorGetMessage(value, &msg), QNN_SUCCESS) << "no message for " << value << " (" << *names.begin() << ")";
    ASSERT_NE(msg, nullptr);
    // The text starts with one of the header's names for that value, so a
    // line filed under the wrong value shows here too.
    const std::string text = msg;
    const std::string lead = text.substr(0, text.find(':'));
    EXPECT_TRUE(names.count(lead) == 1 || (value == QNN_SUCCESS && lead == "QNN_SUCCESS"))
        << value << ": '" << text << "' names none of " << testing::PrintToString(names);
    EXPECT_GT(text.size(), lead.size() + 2) << value << " has a name and no description";
    // The verbose text starts with the plain one; it must come back and be
    // freed for every code too.
    const char* verbose = nullptr;
    ASSERT_EQ(api().errorGetVerboseMessage(value, &verbose), QNN_SUCCESS) << value;
    EXPECT_EQ(std::string(verbose).rfind(text, 0), 0u) << verbose;
    EXPECT_EQ(api().errorFreeVerboseMessage(verbose), QNN_SUCCESS) << value;
  }
  // A value between codes is still refused, with a line naming it.
  ASSERT_EQ(h.names_by_value.count(QNN_MIN_ERROR_COMMON + 1), 0u);
  const char* msg = nullptr;
  LogCapture::instance().clear();
  EXPECT_EQ(api().errorGetMessage(QNN_MIN_ERROR_COMMON + 1, &msg), QNN_ERROR_INVALID_ERROR_HANDLE);
  EXPECT_EQ(lines_with("errorGetMessage", "1001"), 1u);
  EXPECT_EQ(api().errorGetMessage(QNN_SUCCESS, nullptr), QNN_ERROR_INVALID_ARGUMENT);
}

TEST_F(ErrorMessages, FreeTakesOnlyAnOutstandingVerboseMessage) {
  const char* verbose = nullptr;
  ASSERT_EQ(api().errorGetVerboseMessage(QNN_GRAPH_ERROR_INVALID_HANDLE, &verbose), QNN_SUCCESS);
  // Not the start of a message: refused, and the message stays valid.
  LogCapture::instance().clear();
  EXPECT_EQ(api().errorFreeVerboseMessage(verbose + 1), QNN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lines_with("errorFreeVerboseMessage", pointer_text(verbose + 1)), 1u);
  EXPECT_EQ(std::string(verbose).rfind("QNN_GRAPH_ERROR_INVALID_HANDLE", 0), 0u);
  EXPECT_EQ(api().errorFreeVerboseMessage(verbose), QNN_SUCCESS);
  // Freed twice: the second is refused, not handed to free().
  LogCapture::instance().clear();
  EXPECT_EQ(api().errorFreeVerboseMessage(verbose), QNN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lines_with("errorFreeVerboseMessage", pointer_text(verbose)), 1u);
  EXPECT_EQ(LogCapture::instance().lines().size(), 1u);
  // errorGetMessage's static text and a literal are not the caller's to free.
  const char* plain = nullptr;
  ASSERT_EQ(api().errorGetMessage(QNN_GRAPH_ERROR_INVALID_HANDLE, &plain), QNN_SUCCESS);
  EXPECT_EQ(api().errorFreeVerboseMessage(plain), QNN_ERROR_INVALID_ARGUMENT);
  static const char kLiteral[] = "not from the backend";
  EXPECT_EQ(api().errorFreeVerboseMessage(kLiteral), QNN_ERROR_INVALID_ARGUMENT);
  LogCapture::instance().clear();
  EXPECT_EQ(api().errorFreeVerboseMessage(nullptr), QNN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lines_with("errorFreeVerboseMessage", "NULL"), 1u);
  // Still usable afterwards.
  ASSERT_EQ(api().errorGetVerboseMessage(QNN_GRAPH_ERROR_INVALID_HANDLE, &verbose), QNN_SUCCESS);
  EXPECT_EQ(api().errorFreeVerboseMessage(verbose), QNN_SUCCESS);
}

TEST_F(ErrorMessages, ThreadsGetAndFreeTheirOwnVerboseMessages) {
  // Each thread frees exactly what it got, once; the record of outstanding
  // messages is shared, so this is where a missing lock shows (as lost or
  // doubled entries, a crash, or under TSan the race itself). Threads start
  // together and hold up to 64 messages so the record grows and rehashes
  // while the others use it.
  constexpr int kThreads = 8, kRounds = 40000, kBatch = 64;
  std::atomic<int> wrong{0}, ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();
      std::vector<const char*> held;
      for (int i = 0; i < kRounds; ++i) {
        const char* v = nullptr;
        if (api().errorGetVerboseMessage(QNN_MEM_ERROR_INVALID_HANDLE, &v) != QNN_SUCCESS) ++wrong;
        held.push_back(v);
        if (held.size() == kBatch) {  // freed newest first: not the order they came in
          for (auto it = held.rbegin(); it != held.rend(); ++it)
            if (api().errorFreeVerboseMessage(*it) != QNN_SUCCESS) ++wrong;
          held.clear();
        }
      }
      for (const char* v : held)
        if (api().errorFreeVerboseMessage(v) != QNN_SUCCESS) ++wrong;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}
