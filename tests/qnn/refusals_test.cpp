// Every refusal is an error code plus one line that names the call and the
// value (docs/design.md §5), for the arguments an adversarial client passes:
// a handle that names nothing (stale, forged, of another kind), a NULL where
// the call must read or write, a config or tensor field holding a value QNN
// never defined. Each case breaks exactly one rule and checks both halves:
// the code, and the line.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "HTP/QnnHtpGraph.h"
#include "qnn_test_util.h"

using namespace qnntest;

namespace {

class Refusals : public QnnFixture {
 protected:
  // Runs `call`, expects `code` and a line holding every needle.
  void expect_refused(const char* what, const std::function<Qnn_ErrorHandle_t()>& call, Qnn_ErrorHandle_t code,
                      std::initializer_list<std::string> needles) {
    SCOPED_TRACE(what);
    LogCapture::instance().clear();
    EXPECT_EQ(call(), code);
    EXPECT_TRUE(LogCapture::instance().has_line_with(needles)) << "no line with the needles; lines: " << lines();
  }
  static std::string lines() {
    std::string all;
    for (const auto& l : LogCapture::instance().lines()) all += "\n  " + l;
    return all;
  }
};

// A handle that was live once: freeing it leaves a value no table holds.
template <typename Create, typename Free>
void* freed_handle(Create create, Free free_fn) {
  void* h = nullptr;
  if (create(&h) != QNN_SUCCESS) return nullptr;
  free_fn(h);
  return h;
}

}  // namespace

TEST_F(Refusals, DeadHandlesAreNamedWithTheirCall) {
  auto* forged = reinterpret_cast<void*>(uintptr_t{0xdead0000});
  void* dead_profile = freed_handle(
      [&](void** h) { return api().profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, reinterpret_cast<Qnn_ProfileHandle_t*>(h)); },
      [](void* h) { api().profileFree(static_cast<Qnn_ProfileHandle_t>(h)); });
  void* dead_signal = freed_handle(
      [&](void** h) { return api().signalCreate(backend_, nullptr, reinterpret_cast<Qnn_SignalHandle_t*>(h)); },
      [](void* h) { api().signalFree(static_cast<Qnn_SignalHandle_t>(h)); });
  void* dead_device = freed_handle(
      [](void** h) { return api().deviceCreate(nullptr, nullptr, reinterpret_cast<Qnn_DeviceHandle_t*>(h)); },
      [](void* h) { api().deviceFree(static_cast<Qnn_DeviceHandle_t>(h)); });
  ASSERT_NE(dead_profile, nullptr);
  ASSERT_NE(dead_signal, nullptr);
  ASSERT_NE(dead_device, nullptr);
  const QnnBackend_OperationName_t* ops = nullptr;
  uint32_t n_ops = 0;
  Qnn_ContextBinarySize_t size = 0;
  const QnnProfile_EventId_t* events = nullptr;
  uint32_t n_events = 0;
  const QnnDevice_PlatformInfo_t* info = nullptr;
  QnnContext_Property_t* no_props[] = {nullptr};
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  Qnn_GraphHandle_t g = nullptr;
  std::vector<uint8_t> buf(64);
  struct Case {
    const char* api;
    std::function<Qnn_ErrorHandle_t()> call;
    Qnn_ErrorHandle_t code;
    const char* kind;
    void* handle;
  };
  const Case cases[] = {
      {"backendSetConfig", [&] { return api().backendSetConfig(forged, nullptr); }, QNN_BACKEND_ERROR_INVALID_HANDLE,
       "backend", forged},
      {"backendGetSupportedOperations", [&] { return api().backendGetSupportedOperations(forged, &n_ops, &ops); },
       QNN_BACKEND_ERROR_INVALID_HANDLE, "backend", forged},
      {"backendValidateOpConfig", [&] { return api().backendValidateOpConfig(nullptr, op); },
       QNN_BACKEND_ERROR_INVALID_HANDLE, "backend", nullptr},
      {"deviceGetInfo", [&] { return api().deviceGetInfo(dead_device, &info); }, QNN_DEVICE_ERROR_INVALID_HANDLE,
       "device", dead_device},
      {"deviceSetConfig", [&] { return api().deviceSetConfig(dead_device, nullptr); }, QNN_DEVICE_ERROR_INVALID_HANDLE,
       "device", dead_device},
      {"deviceFree", [&] { return api().deviceFree(dead_device); }, QNN_DEVICE_ERROR_INVALID_HANDLE, "device",
       dead_device},
      {"contextGetBinarySize", [&] { return api().contextGetBinarySize(forged, &size); },
       QNN_CONTEXT_ERROR_INVALID_HANDLE, "context", forged},
      {"contextGetBinary", [&] { return api().contextGetBinary(forged, buf.data(), buf.size(), &size); },
       QNN_CONTEXT_ERROR_INVALID_HANDLE, "context", forged},
      {"contextValidateBinary",
       [&] { return api().contextValidateBinary(forged, nullptr, nullptr, buf.data(), buf.size()); },
       QNN_CONTEXT_ERROR_INVALID_HANDLE, "backend", forged},
      {"contextFinalize", [&] { return api().contextFinalize(forged, nullptr); }, QNN_CONTEXT_ERROR_INVALID_HANDLE,
       "context", forged},
      {"contextGetProperty", [&] { return api().contextGetProperty(forged, no_props); },
       QNN_CONTEXT_ERROR_INVALID_HANDLE, "context", forged},
      {"graphSetConfig", [&] { return api().graphSetConfig(forged, nullptr); }, QNN_GRAPH_ERROR_INVALID_HANDLE,
       "graph", forged},
      {"graphRetrieve", [&] { return api().graphRetrieve(forged, "g", &g); }, QNN_GRAPH_ERROR_INVALID_CONTEXT,
       "context", forged},
      {"profileSetConfig", [&] { return api().profileSetConfig(dead_profile, nullptr); },
       QNN_PROFILE_ERROR_INVALID_HANDLE, "profile", dead_profile},
      {"profileGetEvents", [&] { return api().profileGetEvents(dead_profile, &events, &n_events); },
       QNN_PROFILE_ERROR_INVALID_HANDLE, "profile", dead_profile},
      {"profileFree", [&] { return api().profileFree(dead_profile); }, QNN_PROFILE_ERROR_INVALID_HANDLE, "profile",
       dead_profile},
      {"profileCreate", [&] { return api().profileCreate(forged, QNN_PROFILE_LEVEL_BASIC, nullptr); },
       QNN_PROFILE_ERROR_INVALID_HANDLE, "backend", forged},
      {"signalSetConfig", [&] { return api().signalSetConfig(dead_signal, nullptr); }, QNN_SIGNAL_ERROR_INVALID_HANDLE,
       "signal", dead_signal},
      {"signalTrigger", [&] { return api().signalTrigger(dead_signal); }, QNN_SIGNAL_ERROR_INVALID_HANDLE, "signal",
       dead_signal},
      {"signalFree", [&] { return api().signalFree(dead_signal); }, QNN_SIGNAL_ERROR_INVALID_HANDLE, "signal",
       dead_signal},
  };
  for (const Case& c : cases) {
    char handle[32];
    std::snprintf(handle, sizeof handle, "%p", c.handle);
    expect_refused(c.api, c.call, c.code,
                   {std::string(c.api) + ":", handle, std::string("is not a live ") + c.kind + " handle"});
  }
  // Log handles, and profile events by id.
  expect_refused("logSetLogLevel", [&] { return api().logSetLogLevel(forged, QNN_LOG_LEVEL_ERROR); },
                 QNN_LOG_ERROR_INVALID_HANDLE, {"logSetLogLevel:", "is not a live log handle"});
  expect_refused("logFree", [&] { return api().logFree(forged); }, QNN_LOG_ERROR_INVALID_HANDLE,
                 {"logFree:", "is not a live log handle"});
  QnnProfile_EventData_t data{};
  expect_refused("profileGetEventData", [&] { return api().profileGetEventData(0xFFFFFFFFFFull, &data); },
                 QNN_PROFILE_ERROR_INVALID_HANDLE, {"profileGetEventData:", "event id 1099511627775 is not a live event"});
}

TEST_F(Refusals, NullArgumentsAreNamed) {
  expect_refused("backendCreate", [&] { return api().backendCreate(log_, nullptr, nullptr); },
                 QNN_BACKEND_ERROR_INVALID_ARGUMENT, {"backendCreate: backend is NULL"});
  expect_refused("deviceCreate", [&] { return api().deviceCreate(nullptr, nullptr, nullptr); },
                 QNN_DEVICE_ERROR_INVALID_ARGUMENT, {"deviceCreate: device is NULL"});
  expect_refused("profileCreate", [&] { return api().profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, nullptr); },
                 QNN_PROFILE_ERROR_INVALID_ARGUMENT, {"profileCreate: profile is NULL"});
  expect_refused("signalCreate", [&] { return api().signalCreate(backend_, nullptr, nullptr); },
                 QNN_SIGNAL_ERROR_INVALID_ARGUMENT, {"signalCreate: signal is NULL"});
  Qnn_GraphHandle_t g = nullptr;
  expect_refused("graphRetrieve", [&] { return api().graphRetrieve(context_, nullptr, &g); },
                 QNN_GRAPH_ERROR_INVALID_ARGUMENT, {"graphRetrieve: graphName is NULL"});
  build_add_relu(4);
  Qnn_ContextBinarySize_t written = 0;
  expect_refused("contextGetBinary", [&] { return api().contextGetBinary(context_, nullptr, 1024, &written); },
                 QNN_CONTEXT_ERROR_INVALID_ARGUMENT, {"contextGetBinary: binaryBuffer is NULL"});
  expect_refused("contextGetBinarySize", [&] { return api().contextGetBinarySize(context_, nullptr); },
                 QNN_CONTEXT_ERROR_INVALID_ARGUMENT, {"contextGetBinarySize: binaryBufferSize is NULL"});
  Qnn_GraphHandle_t fresh = nullptr;
  ASSERT_EQ(api().graphCreate(context_, "fresh", nullptr, &fresh), QNN_SUCCESS);
  expect_refused("tensorCreateGraphTensor", [&] { return api().tensorCreateGraphTensor(fresh, nullptr); },
                 QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM, {"create tensor: tensor is NULL"});
}

TEST_F(Refusals, BackendConfigsHoldQnnValues) {
  Qnn_BackendHandle_t b = nullptr;
  QnnBackend_Config_t cfg = QNN_BACKEND_CONFIG_INIT;
  const QnnBackend_Config_t* list[] = {&cfg, nullptr};
  const std::string too_long(1025, 'x');
  struct Case {
    const char* what;
    std::function<void()> set;
    const char* needle;
  };
  const Case cases[] = {
      {"PLATFORM NULL", [&] { cfg.option = QNN_BACKEND_CONFIG_OPTION_PLATFORM; cfg.platformOption = nullptr; },
       "PLATFORM config's string is NULL"},
      {"PLATFORM 1025 characters",
       [&] { cfg.option = QNN_BACKEND_CONFIG_OPTION_PLATFORM; cfg.platformOption = too_long.c_str(); },
       "longer than 1024 characters"},
      {"CUSTOM NULL", [&] { cfg.option = QNN_BACKEND_CONFIG_OPTION_CUSTOM; cfg.customConfig = nullptr; },
       "CUSTOM config points to NULL"},
      {"ERROR_REPORTING 99",
       [&] {
         cfg.option = QNN_BACKEND_CONFIG_OPTION_ERROR_REPORTING;
         cfg.errorConfig = {static_cast<Qnn_ErrorReportingLevel_t>(99), 0};
       },
       "ERROR_REPORTING level 99"},
      {"option 77", [&] { cfg.option = static_cast<QnnBackend_ConfigOption_t>(77); }, "config option 77 is unknown"},
  };
  for (const Case& c : cases) {
    c.set();
    expect_refused(c.what, [&] { return api().backendCreate(log_, list, &b); }, QNN_BACKEND_ERROR_INVALID_CONFIG,
                   {"backendCreate:", c.needle});
    expect_refused(c.what, [&] { return api().backendSetConfig(backend_, list); }, QNN_BACKEND_ERROR_INVALID_CONFIG,
                   {"backendSetConfig:", c.needle});
  }
  // The same options with QNN values are taken.
  cfg.option = QNN_BACKEND_CONFIG_OPTION_ERROR_REPORTING;
  cfg.errorConfig = {QNN_ERROR_REPORTING_LEVEL_DETAILED, 0};
  EXPECT_EQ(api().backendSetConfig(backend_, list), QNN_SUCCESS);
  const std::string longest(1024, 'x');
  cfg.option = QNN_BACKEND_CONFIG_OPTION_PLATFORM;
  cfg.platformOption = longest.c_str();
  ASSERT_EQ(api().backendCreate(log_, list, &b), QNN_SUCCESS);
  EXPECT_EQ(api().backendFree(b), QNN_SUCCESS);
}

TEST_F(Refusals, HtpGraphConfigsHoldValuesADeviceTakes) {
  struct Case {
    const char* what;
    QnnHtpGraph_ConfigOption_t option;
    std::function<void(QnnHtpGraph_CustomConfig_t&)> set;
    Qnn_ErrorHandle_t code;
    const char* needle;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Case cases[] = {
      {"OPTIMIZATION type 999", QNN_HTP_GRAPH_CONFIG_OPTION_OPTIMIZATION,
       [](auto& h) { h.optimizationOption = {static_cast<QnnHtpGraph_OptimizationType_t>(999), 1.0f}; },
       QNN_GRAPH_ERROR_INVALID_ARGUMENT, "OPTIMIZATION has type 999"},
      {"OPTIMIZATION NaN", QNN_HTP_GRAPH_CONFIG_OPTION_OPTIMIZATION,
       [&](auto& h) { h.optimizationOption = {QNN_HTP_GRAPH_OPTIMIZATION_TYPE_FINALIZE_OPTIMIZATION_FLAG, nan}; },
       QNN_GRAPH_ERROR_INVALID_ARGUMENT, "expected a finite number"},
      {"PRECISION 99", QNN_HTP_GRAPH_CONFIG_OPTION_PRECISION,
       [](auto& h) { h.precision = static_cast<Qnn_Precision_t>(99); }, QNN_GRAPH_ERROR_INVALID_ARGUMENT,
       "PRECISION is 99"},
      {"NUM_CORES 0", QNN_HTP_GRAPH_CONFIG_OPTION_NUM_CORES, [](auto& h) { h.numCores = 0; },
       QNN_GRAPH_ERROR_INVALID_ARGUMENT, "NUM_CORES is 0"},
      {"NUM_CORES 2", QNN_HTP_GRAPH_CONFIG_OPTION_NUM_CORES, [](auto& h) { h.numCores = 2; },
       QNN_GRAPH_ERROR_INVALID_ARGUMENT, "NUM_CORES is 2, this device has 1"},
      {"FINALIZE_CONFIG NULL key", QNN_HTP_GRAPH_CONFIG_OPTION_FINALIZE_CONFIG,
       [](auto& h) { h.finalizeConfig.key = nullptr; }, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "FINALIZE_CONFIG has a NULL key"},
      {"PARALLEL_GRAPH_EXECUTION 77", QNN_HTP_GRAPH_CONFIG_OPTION_PARALLEL_GRAPH_EXECUTION_CONFIG,
       [](auto& h) { h.parallelGraphExecutionConfig.concurrency = static_cast<QnnHtpGraph_ConcurrencyOption_t>(77); },
       QNN_GRAPH_ERROR_INVALID_ARGUMENT, "concurrency 77"},
      {"HMX_BOUNDING NaN", QNN_HTP_GRAPH_CONFIG_OPTION_HMX_BOUNDING,
       [&](auto& h) { h.hmxBoundingInfo = {nan, 1.0f}; }, QNN_GRAPH_ERROR_INVALID_ARGUMENT,
       "HMX_BOUNDING has a target that is not a finite number"},
      {"option 12345", static_cast<QnnHtpGraph_ConfigOption_t>(12345), [](auto&) {},
       QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE, "HTP option 12345"},
      {"RESERVED", QNN_HTP_GRAPH_CONFIG_OPTION_RESERVED, [](auto&) {}, QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE,
       "which QnnHtpGraph.h does not define"},
  };
  int k = 0;
  for (const Case& c : cases) {
    HtpGraphConfig cfg(c.option);
    c.set(cfg.htp);
    Qnn_GraphHandle_t g = nullptr;
    const std::string name = "g" + std::to_string(k++);
    expect_refused(c.what, [&] { return api().graphCreate(context_, name.c_str(), cfg.list(), &g); }, c.code,
                   {"graph config", c.needle});
  }
  // The values a device takes are taken, and a VTCM request above the
  // device's is granted the device's (a warning, not an error).
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphCreate(context_, "ok", nullptr, &g), QNN_SUCCESS);
  HtpGraphConfig precision(QNN_HTP_GRAPH_CONFIG_OPTION_PRECISION);
  precision.htp.precision = QNN_PRECISION_FLOAT16;
  EXPECT_EQ(api().graphSetConfig(g, precision.list()), QNN_SUCCESS);
  HtpGraphConfig opt(QNN_HTP_GRAPH_CONFIG_OPTION_OPTIMIZATION);
  opt.htp.optimizationOption = {QNN_HTP_GRAPH_OPTIMIZATION_TYPE_FINALIZE_OPTIMIZATION_FLAG, 3.0f};
  EXPECT_EQ(api().graphSetConfig(g, opt.list()), QNN_SUCCESS);
  HtpGraphConfig vtcm(QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_MB);
  vtcm.htp.vtcmSizeInMB = 1000;
  EXPECT_EQ(api().graphSetConfig(g, vtcm.list()), QNN_SUCCESS);
  HtpGraphConfig cores(QNN_HTP_GRAPH_CONFIG_OPTION_NUM_CORES);
  cores.htp.numCores = 1;
  EXPECT_EQ(api().graphSetConfig(g, cores.list()), QNN_SUCCESS);
}

TEST_F(Refusals, ProfilingConfigsAndHandlesMustNameSomething) {
  Qnn_ProfileHandle_t dead = nullptr;
  ASSERT_EQ(api().profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, &dead), QNN_SUCCESS);
  ASSERT_EQ(api().profileFree(dead), QNN_SUCCESS);
  QnnGraph_Config_t cfg = QNN_GRAPH_CONFIG_INIT;
  const QnnGraph_Config_t* list[] = {&cfg, nullptr};
  Qnn_GraphHandle_t g = nullptr;
  cfg.option = QNN_GRAPH_CONFIG_OPTION_PROFILE_HANDLE;
  cfg.profileHandle = dead;
  expect_refused("PROFILE_HANDLE", [&] { return api().graphCreate(context_, "p", list, &g); },
                 QNN_GRAPH_ERROR_INVALID_ARGUMENT, {"graph config PROFILE_HANDLE:", "is not a live profile handle"});
  cfg.option = QNN_GRAPH_CONFIG_OPTION_SET_PROFILING_STATE;
  cfg.profilingState = static_cast<QnnGraph_ProfilingState_t>(9);
  expect_refused("SET_PROFILING_STATE", [&] { return api().graphCreate(context_, "p", list, &g); },
                 QNN_GRAPH_ERROR_INVALID_ARGUMENT, {"SET_PROFILING_STATE is 9"});
  QnnProfile_Config_t pc{};
  pc.option = static_cast<QnnProfile_ConfigOption_t>(99);
  const QnnProfile_Config_t* plist[] = {&pc, nullptr};
  Qnn_ProfileHandle_t live = nullptr;
  ASSERT_EQ(api().profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, &live), QNN_SUCCESS);
  expect_refused("profileSetConfig 99", [&] { return api().profileSetConfig(live, plist); },
                 QNN_PROFILE_ERROR_UNSUPPORTED, {"profileSetConfig: config option 99"});
  api().profileFree(live);

  // A dead profile handle on an execute or a finalize is refused before
  // any work, not dropped after it.
  const uint32_t n = 4;
  build_add_relu(n);
  std::vector<float> a(n, 1), b(n, 2), out(n, 0);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a.data(), n * 4};
  in[1].v1.clientBuf = {b.data(), n * 4};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  expect_refused("graphExecute", [&] { return api().graphExecute(graph_, in, 2, &o, 1, dead, nullptr); },
                 QNN_GRAPH_ERROR_SET_PROFILE, {"graphExecute:", "is not a live profile handle"});
  EXPECT_EQ(out[0], 0.0f) << "the refused execute ran";
  Qnn_GraphHandle_t unfinalized = nullptr;
  ASSERT_EQ(api().graphCreate(context_, "unfinalized", nullptr, &unfinalized), QNN_SUCCESS);
  expect_refused("graphFinalize", [&] { return api().graphFinalize(unfinalized, dead, nullptr); },
                 QNN_GRAPH_ERROR_SET_PROFILE, {"graphFinalize:", "is not a live profile handle"});
}

// Tensor fields: a value QNN never defined is INVALID_TENSOR_PARAM (7004),
// QNN's own value this backend does not take UNSUPPORTED_TENSOR_PARAM
// (7005), and a size that cannot be is named for why it cannot.
TEST_F(Refusals, TensorFieldsHoldQnnValues) {
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphCreate(context_, "t", nullptr, &g), QNN_SUCCESS);
  std::vector<uint32_t> dims{2, 3};
  int k = 0;
  auto create = [&](const std::function<void(Qnn_Tensor_t&)>& set) {
    const std::string name = "t" + std::to_string(k++);
    Qnn_Tensor_t t = make_tensor(name.c_str(), QNN_TENSOR_TYPE_NATIVE, dims);
    set(t);
    return api().tensorCreateGraphTensor(g, &t);
  };
  expect_refused("type 77", [&] { return create([](auto& t) { t.v1.type = static_cast<Qnn_TensorType_t>(77); }); },
                 QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM, {"tensor type 77 is not a QNN tensor type"});
  expect_refused("type UPDATEABLE_STATIC",
                 [&] { return create([](auto& t) { t.v1.type = QNN_TENSOR_TYPE_UPDATEABLE_STATIC; }); },
                 QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM, {"tensor type 6 is not supported"});
  expect_refused("memType 55",
                 [&] { return create([](auto& t) { t.v1.memType = static_cast<Qnn_TensorMemType_t>(55); }); },
                 QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM, {"memType 55 is not a QNN tensor memory type"});
  expect_refused("encodingDefinition 77", [&] {
    return create([](auto& t) {
      t.v1.dataType = QNN_DATATYPE_UFIXED_POINT_8;
      t.v1.quantizeParams.encodingDefinition = static_cast<Qnn_Definition_t>(77);
    });
  }, QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM, {"encodingDefinition 77"});
  auto with_encoding = [&](int encoding) {
    return create([encoding](auto& t) {
      t.v1.dataType = QNN_DATATYPE_UFIXED_POINT_8;
      t.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
      t.v1.quantizeParams.quantizationEncoding = static_cast<Qnn_QuantizationEncoding_t>(encoding);
    });
  };
  expect_refused("encoding 999", [&] { return with_encoding(999); }, QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM,
                 {"quantization encoding 999"});
  expect_refused("encoding VECTOR", [&] { return with_encoding(QNN_QUANTIZATION_ENCODING_VECTOR); },
                 QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM, {"quantization encoding 6 is not supported"});
  std::vector<uint32_t> huge{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  expect_refused("overflowing dims", [&] {
    return create([&](auto& t) {
      t.v1.rank = 3;
      t.v1.dimensions = huge.data();
    });
  }, QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM, {"dims [4294967295, 4294967295, 4294967295]", "the byte count overflows"});
  expect_refused("NULL dims", [&] { return create([](auto& t) { t.v1.dimensions = nullptr; }); },
                 QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM, {"dims NULL", "dimensions is NULL"});
  // QNN_TENSOR_INIT's UNDEFINED memType is a QNN value: taken.
  EXPECT_EQ(create([](auto& t) { t.v1.memType = QNN_TENSORMEMTYPE_UNDEFINED; }), QNN_SUCCESS);
}

// Freeing a backend frees the contexts made from it that the client left
// live (their graphs and registrations with them), so a shutdown path that
// frees only the backend leaks nothing; their handles are then refused like
// any freed handle. Contexts of another backend are untouched.
TEST_F(Refusals, FreeingABackendFreesItsLiveContexts) {
  Qnn_BackendHandle_t other = nullptr;
  ASSERT_EQ(api().backendCreate(log_, nullptr, &other), QNN_SUCCESS);
  Qnn_ContextHandle_t orphan = nullptr;
  ASSERT_EQ(api().contextCreate(other, nullptr, nullptr, &orphan), QNN_SUCCESS);
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphCreate(orphan, "g", nullptr, &g), QNN_SUCCESS);
  std::vector<uint32_t> dims{1, 4};
  Qnn_Tensor_t a, y;
  ASSERT_EQ(build_relu(g, dims, &a, &y), QNN_SUCCESS);
  build_add_relu(4);  // a graph of the fixture's backend, which must keep working

  ASSERT_EQ(api().backendFree(other), QNN_SUCCESS);
  std::vector<float> x(4, -1.0f), out(4, 5.0f);
  a.v1.clientBuf = {x.data(), 16};
  y.v1.clientBuf = {out.data(), 16};
  expect_refused("execute on the freed backend's graph",
                 [&] { return api().graphExecute(g, &a, 1, &y, 1, nullptr, nullptr); }, QNN_GRAPH_ERROR_INVALID_HANDLE,
                 {"is not a live graph handle"});
  expect_refused("contextFree after backendFree", [&] { return api().contextFree(orphan, nullptr); },
                 QNN_CONTEXT_ERROR_INVALID_HANDLE, {"contextFree:", "is not a live context handle"});
  EXPECT_EQ(out[0], 5.0f);

  std::vector<float> p(4, 1.0f), q(4, 2.0f), r(4, 0.0f);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {p.data(), 16};
  in[1].v1.clientBuf = {q.data(), 16};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {r.data(), 16};
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_EQ(r[3], 3.0f);
}
