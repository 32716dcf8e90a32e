// The HTP perf infrastructure (QnnDevice_getInfrastructure): the table, the
// power config ids, every vote's validation, and the one vote with a real
// effect here, RPC polling (the FastRPC reply-wait spin budget).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "AEEStdErr.h"
#include "HTP/QnnHtpDevice.h"
#include "openhtp/fastrpc_ext.h"
#include "openhtp/qnn_ext.h"
#include "qnn_test_util.h"

namespace {

using namespace qnntest;

constexpr uint32_t kPollingBit = 1u << QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME;

// The machine default of the spin budget (src/ipc/futex_word.h): 30 us, none
// on a single CPU.
int64_t default_spin_ns() { return std::thread::hardware_concurrency() > 1 ? 30'000 : 0; }

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

// What ORT's QNN EP votes for "burst": DCVS off, performance mode, 40 us sleep
// latency, every corner at MAX.
QnnHtpPerfInfrastructure_PowerConfig_t burst_dcvs(uint32_t id) {
  QnnHtpPerfInfrastructure_PowerConfig_t c = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  c.option = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3;
  QnnHtpPerfInfrastructure_DcvsV3_t& d = c.dcvsV3Config;
  d.contextId = id;
  d.setDcvsEnable = 1;
  d.dcvsEnable = 0;
  d.powerMode = QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_PERFORMANCE_MODE;
  d.setSleepLatency = 1;
  d.sleepLatency = 40;
  d.setSleepDisable = 1;
  d.sleepDisable = 1;
  d.setBusParams = 1;
  d.busVoltageCornerMin = d.busVoltageCornerTarget = d.busVoltageCornerMax = DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER;
  d.setCoreParams = 1;
  d.coreVoltageCornerMin = d.coreVoltageCornerTarget = d.coreVoltageCornerMax = DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER;
  return c;
}

QnnHtpPerfInfrastructure_PowerConfig_t scalar(QnnHtpPerfInfrastructure_PowerConfigOption_t option, uint32_t v) {
  QnnHtpPerfInfrastructure_PowerConfig_t c = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  c.option = option;
  switch (option) {
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY: c.rpcControlLatencyConfig = v; break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME: c.rpcPollingTimeConfig = v; break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_TIMEOUT_INTERVAL_US: c.hmxTimeoutIntervalUsConfig = v; break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_ADAPTIVE_POLLING_TIME: c.adaptivePollingTimeConfig = v; break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DDR_PERF_MODE: c.ddrPerfModeConfig = v; break;
    default: break;
  }
  return c;
}

QnnHtpPerfInfrastructure_PowerConfig_t hmx_v2() {
  QnnHtpPerfInfrastructure_PowerConfig_t c = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  c.option = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_V2;
  c.hmxV2Config.hmxPickDefault = 0;
  c.hmxV2Config.hmxVoltageCornerMin = DCVS_EXP_VCORNER_SVS;
  c.hmxV2Config.hmxVoltageCornerTarget = DCVS_EXP_VCORNER_NOM;
  c.hmxV2Config.hmxVoltageCornerMax = DCVS_EXP_VCORNER_TUR;
  c.hmxV2Config.hmxPerfMode = QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH;
  return c;
}

class PerfInfra : public QnnFixture {
 protected:
  void SetUp() override {
    QnnFixture::SetUp();
    ASSERT_EQ(api().deviceCreate(log_, nullptr, &device_), QNN_SUCCESS);
    QnnDevice_Infrastructure_t infra = nullptr;
    ASSERT_EQ(api().deviceGetInfrastructure(&infra), QNN_SUCCESS);
    ASSERT_NE(infra, nullptr);
    perf_ = &reinterpret_cast<QnnHtpDevice_Infrastructure_t*>(infra)->perfInfra;
  }
  void TearDown() override {
    // The votes are process wide: every id a test made goes, so that the
    // next test starts from the default spin budget.
    for (uint32_t id : ids_) perf_->destroyPowerConfigId(id);
    if (device_ != nullptr) api().deviceFree(device_);
    QnnFixture::TearDown();
  }
  uint32_t make_id() {
    uint32_t id = 0;
    EXPECT_EQ(perf_->createPowerConfigId(0, 0, &id), QNN_SUCCESS);
    ids_.push_back(id);
    return id;
  }
  void forget(uint32_t id) { std::erase(ids_, id); }
  Qnn_ErrorHandle_t set(uint32_t id, std::vector<QnnHtpPerfInfrastructure_PowerConfig_t> cfgs) {
    std::vector<const QnnHtpPerfInfrastructure_PowerConfig_t*> list;
    for (const auto& c : cfgs) list.push_back(&c);
    list.push_back(nullptr);
    return perf_->setPowerConfig(id, list.data());
  }
  OpenHtp_PerfVotes_t votes(uint32_t id = 0) {
    OpenHtp_PerfVotes_t v{};
    EXPECT_EQ(OpenHtp_getPerfVotes(id, &v), QNN_SUCCESS);
    return v;
  }
  // graph_ computes relu(a + b) correctly (through the FastRPC channel whose
  // spin budget the polling vote sets, or in process).
  void expect_graph_runs() {
    const uint32_t n = static_cast<uint32_t>(dims_[1]);
    std::vector<float> a(n), b(n), out(n, -1.0f), want(n);
    for (uint32_t i = 0; i < n; ++i) {
      a[i] = -2.0f + 0.01f * static_cast<float>(i);
      b[i] = 0.5f;
      want[i] = std::fmax(a[i] + b[i], 0.0f);
    }
    Qnn_Tensor_t in[] = {a_, b_};
    in[0].v1.clientBuf = {a.data(), n * 4};
    in[1].v1.clientBuf = {b.data(), n * 4};
    Qnn_Tensor_t o = out_;
    o.v1.clientBuf = {out.data(), n * 4};
    ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
    EXPECT_EQ(out, want);
  }
  // One error line mentions every needle.
  void expect_line(std::initializer_list<std::string> needles) {
    EXPECT_TRUE(LogCapture::instance().has_line_with(needles)) << [&] {
      std::string s = "wanted a line with:";
      for (const auto& n : needles) s += " [" + n + "]";
      s += "\ngot:";
      for (const auto& l : LogCapture::instance().lines()) s += "\n  " + l;
      return s;
    }();
  }

  Qnn_DeviceHandle_t device_ = nullptr;
  const QnnHtpDevice_PerfInfrastructure_t* perf_ = nullptr;
  std::vector<uint32_t> ids_;
};

TEST_F(PerfInfra, TableIsAPerfInfrastructureThatStaysTheSameAndIsCallable) {
  QnnDevice_Infrastructure_t a = nullptr, b = nullptr;
  ASSERT_EQ(api().deviceGetInfrastructure(&a), QNN_SUCCESS);
  ASSERT_EQ(QnnDevice_getInfrastructure(&b), QNN_SUCCESS);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, b);  // one process-lifetime table: clients keep the pointer
  const auto* htp = reinterpret_cast<const QnnHtpDevice_Infrastructure_t*>(a);
  EXPECT_EQ(htp->infraType, QNN_HTP_DEVICE_INFRASTRUCTURE_TYPE_PERF);
  ASSERT_NE(htp->perfInfra.createPowerConfigId, nullptr);
  ASSERT_NE(htp->perfInfra.destroyPowerConfigId, nullptr);
  ASSERT_NE(htp->perfInfra.setPowerConfig, nullptr);
  ASSERT_NE(htp->perfInfra.setMemoryConfig, nullptr);
  uint32_t id = 0;
  ASSERT_EQ(htp->perfInfra.createPowerConfigId(0, 0, &id), QNN_SUCCESS);
  EXPECT_NE(id, 0u);
  const QnnHtpPerfInfrastructure_PowerConfig_t* empty[] = {nullptr};
  EXPECT_EQ(htp->perfInfra.setPowerConfig(id, empty), QNN_SUCCESS);
  QnnHtpPerfInfrastructure_MemoryConfig_t grow = QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIG_INIT;
  grow.option = QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIGOPTION_GROW_SIZE;
  grow.memGrowSizeConfig = 32u << 20;
  const QnnHtpPerfInfrastructure_MemoryConfig_t* mem[] = {&grow, nullptr};
  EXPECT_EQ(htp->perfInfra.setMemoryConfig(0, 0, mem), QNN_SUCCESS);
  EXPECT_EQ(votes().memGrowSizeBytes, 32u << 20);
  EXPECT_EQ(htp->perfInfra.destroyPowerConfigId(id), QNN_SUCCESS);
  EXPECT_TRUE(LogCapture::instance().lines().empty());
}

TEST_F(PerfInfra, NullOutputPointerOfGetInfrastructureIsRefused) {
  EXPECT_EQ(api().deviceGetInfrastructure(nullptr), QNN_DEVICE_ERROR_INVALID_ARGUMENT);
  expect_line({"deviceGetInfrastructure", "deviceInfra", "NULL"});
}

TEST_F(PerfInfra, TypicalClientSequenceSucceedsAndIsRecorded) {
  // ORT / llama.cpp: create an id, vote burst + RPC control latency 100 +
  // RPC polling 9999 in one list, then destroy the id when done.
  uint32_t id = 0;
  ASSERT_EQ(perf_->createPowerConfigId(0, 0, &id), QNN_SUCCESS);
  ASSERT_EQ(set(id, {burst_dcvs(id),
                     scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY, 100),
                     scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 9999)}),
            QNN_SUCCESS);
  for (uint32_t q : {id, 0u}) {  // the id's own record and the votes in force
    const OpenHtp_PerfVotes_t v = votes(q);
    EXPECT_EQ(v.dcvsPowerMode, static_cast<uint32_t>(QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_PERFORMANCE_MODE));
    EXPECT_EQ(v.dcvsEnable, 0u);
    EXPECT_EQ(v.sleepLatencyUs, 40u);
    EXPECT_EQ(v.sleepDisable, 1u);
    EXPECT_EQ(v.busVoltageCornerTarget, static_cast<uint32_t>(DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER));
    EXPECT_EQ(v.coreVoltageCornerMin, static_cast<uint32_t>(DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER));
    EXPECT_EQ(v.rpcControlLatencyUs, 100u);
    EXPECT_EQ(v.rpcPollingTimeUs, 9999u);
    EXPECT_EQ(v.callSpinNs, 9'999'000);
    EXPECT_EQ(v.numPowerConfigIds, 1u);
    EXPECT_EQ(v.votedOptions, (1u << QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3) |
                                  (1u << QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY) |
                                  kPollingBit);
  }
  ASSERT_EQ(perf_->destroyPowerConfigId(id), QNN_SUCCESS);
  const OpenHtp_PerfVotes_t after = votes();
  EXPECT_EQ(after.numPowerConfigIds, 0u);
  EXPECT_EQ(after.votedOptions, 0u);  // an id's votes end with it
  EXPECT_EQ(after.callSpinNs, default_spin_ns());
  EXPECT_TRUE(LogCapture::instance().lines().empty());
}

TEST_F(PerfInfra, IdsAreFreshAndNeverReused) {
  const uint32_t a = make_id(), b = make_id();
  EXPECT_NE(a, b);
  ASSERT_EQ(perf_->destroyPowerConfigId(a), QNN_SUCCESS);
  forget(a);
  const uint32_t c = make_id();
  EXPECT_NE(c, a);
  EXPECT_NE(c, b);
  EXPECT_EQ(votes().numPowerConfigIds, 2u);
}

TEST_F(PerfInfra, UnknownOrDestroyedIdIsRefusedAndNamed) {
  const uint32_t id = make_id();
  ASSERT_EQ(perf_->destroyPowerConfigId(id), QNN_SUCCESS);
  forget(id);
  LogCapture::instance().clear();
  EXPECT_EQ(set(id, {scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY, 100)}),
            QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"setPowerConfig", "power config id " + std::to_string(id) + " ", "unknown or destroyed"});
  EXPECT_EQ(perf_->destroyPowerConfigId(id), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"destroyPowerConfigId", "power config id " + std::to_string(id) + " ", "unknown or destroyed"});
  EXPECT_EQ(perf_->destroyPowerConfigId(4'000'000'000u), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"destroyPowerConfigId", "power config id 4000000000", "unknown"});
  OpenHtp_PerfVotes_t v{};
  EXPECT_EQ(OpenHtp_getPerfVotes(id, &v), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"OpenHtp_getPerfVotes", "power config id " + std::to_string(id) + " "});
  EXPECT_EQ(LogCapture::instance().lines().size(), 4u);  // one line per refusal
}

TEST_F(PerfInfra, BadDeviceOrCoreIdIsRefusedAndNamed) {
  uint32_t id = 12345;
  EXPECT_EQ(perf_->createPowerConfigId(1, 0, &id), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"createPowerConfigId", "deviceId 1"});
  EXPECT_EQ(perf_->createPowerConfigId(0, 1, &id), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"createPowerConfigId", "coreId 1"});
  EXPECT_EQ(id, 12345u);  // nothing written on refusal
  const QnnHtpPerfInfrastructure_MemoryConfig_t* empty[] = {nullptr};
  EXPECT_EQ(perf_->setMemoryConfig(7, 0, empty), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"setMemoryConfig", "deviceId 7"});
  EXPECT_EQ(perf_->setMemoryConfig(0, 3, empty), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"setMemoryConfig", "coreId 3"});
  EXPECT_EQ(votes().numPowerConfigIds, 0u);
}

TEST_F(PerfInfra, NullPointersAreRefusedAndNamed) {
  EXPECT_EQ(perf_->createPowerConfigId(0, 0, nullptr), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_HANDLE_PTR);
  expect_line({"createPowerConfigId", "powerConfigId", "NULL"});
  const uint32_t id = make_id();
  EXPECT_EQ(perf_->setPowerConfig(id, nullptr), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"setPowerConfig", "power config id " + std::to_string(id), "config", "NULL"});
  EXPECT_EQ(perf_->setMemoryConfig(0, 0, nullptr), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"setMemoryConfig", "config", "NULL"});
  EXPECT_EQ(OpenHtp_getPerfVotes(0, nullptr), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_HANDLE_PTR);
  expect_line({"OpenHtp_getPerfVotes", "votes", "NULL"});
  EXPECT_EQ(LogCapture::instance().lines().size(), 4u);
}

TEST_F(PerfInfra, EveryOutOfRangeValueIsRefusedNamedAndRecordsNothing) {
  const uint32_t id = make_id();
  using Cfg = QnnHtpPerfInfrastructure_PowerConfig_t;
  struct Case {
    const char* what;
    std::function<void(Cfg&)> mutate;
    bool hmx;  // start from a valid HMX v2 vote instead of DCVS v3 burst
    std::vector<std::string> needles;
  };
  const std::vector<Case> cases = {
      {"contextId", [&](Cfg& c) { c.dcvsV3Config.contextId = id + 1000; }, false,
       {"DCVS_V3 contextId " + std::to_string(id + 1000)}},
      {"dcvsEnable", [](Cfg& c) { c.dcvsV3Config.dcvsEnable = 2; }, false, {"DCVS_V3 dcvsEnable 2"}},
      {"powerMode", [](Cfg& c) { c.dcvsV3Config.powerMode = (QnnHtpPerfInfrastructure_PowerMode_t)0x3; }, false,
       {"DCVS_V3 powerMode 0x3"}},
      {"powerMode unknown", [](Cfg& c) { c.dcvsV3Config.powerMode = QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_UNKNOWN; },
       false, {"DCVS_V3 powerMode 0x7fffffff"}},
      {"sleepDisable", [](Cfg& c) { c.dcvsV3Config.sleepDisable = 5; }, false, {"DCVS_V3 sleepDisable 5"}},
      {"busMin", [](Cfg& c) { c.dcvsV3Config.busVoltageCornerMin = (QnnHtpPerfInfrastructure_VoltageCorner_t)0x11; },
       false, {"DCVS_V3 busVoltageCornerMin 0x11"}},
      {"busTarget",
       [](Cfg& c) { c.dcvsV3Config.busVoltageCornerTarget = (QnnHtpPerfInfrastructure_VoltageCorner_t)0xA1; }, false,
       {"DCVS_V3 busVoltageCornerTarget 0xa1"}},
      {"busMax", [](Cfg& c) { c.dcvsV3Config.busVoltageCornerMax = DCVS_VOLTAGE_VCORNER_UNKNOWN; }, false,
       {"DCVS_V3 busVoltageCornerMax 0x7fffffff"}},
      {"coreMin", [](Cfg& c) { c.dcvsV3Config.coreVoltageCornerMin = (QnnHtpPerfInfrastructure_VoltageCorner_t)0; },
       false, {"DCVS_V3 coreVoltageCornerMin 0x0"}},
      {"coreTarget",
       [](Cfg& c) { c.dcvsV3Config.coreVoltageCornerTarget = (QnnHtpPerfInfrastructure_VoltageCorner_t)0x91; }, false,
       {"DCVS_V3 coreVoltageCornerTarget 0x91"}},
      {"coreMax", [](Cfg& c) { c.dcvsV3Config.coreVoltageCornerMax = (QnnHtpPerfInfrastructure_VoltageCorner_t)0x35; },
       false, {"DCVS_V3 coreVoltageCornerMax 0x35"}},
      {"core order",
       [](Cfg& c) {
         c.dcvsV3Config.coreVoltageCornerMin = DCVS_VOLTAGE_VCORNER_TURBO;
         c.dcvsV3Config.coreVoltageCornerTarget = DCVS_VOLTAGE_VCORNER_NOM;
       },
       false, {"DCVS_V3 coreVoltageCorner", hex(DCVS_VOLTAGE_VCORNER_TURBO), hex(DCVS_VOLTAGE_VCORNER_NOM), "ordered"}},
      {"polling",
       [](Cfg& c) { c = scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 10000); }, false,
       {"RPC_POLLING_TIME 10000 us", "9999"}},
      {"hmxPickDefault", [](Cfg& c) { c.hmxV2Config.hmxPickDefault = 2; }, true, {"HMX_V2 hmxPickDefault 2"}},
      {"hmxMin",
       [](Cfg& c) { c.hmxV2Config.hmxVoltageCornerMin = (QnnHtpPerfInfrastructure_ExpVoltageCorner_t)0x101; }, true,
       {"HMX_V2 hmxVoltageCornerMin 0x101"}},
      {"hmxTarget",
       [](Cfg& c) { c.hmxV2Config.hmxVoltageCornerTarget = (QnnHtpPerfInfrastructure_ExpVoltageCorner_t)0x201; }, true,
       {"HMX_V2 hmxVoltageCornerTarget 0x201"}},
      {"hmxMax", [](Cfg& c) { c.hmxV2Config.hmxVoltageCornerMax = DCVS_EXP_VCORNER_UNKNOWN; }, true,
       {"HMX_V2 hmxVoltageCornerMax 0x7fffffff"}},
      {"hmx order", [](Cfg& c) { c.hmxV2Config.hmxVoltageCornerMax = DCVS_EXP_VCORNER_MIN; }, true,
       {"HMX_V2 hmxVoltageCorner", "ordered"}},
      {"hmxPerfMode", [](Cfg& c) { c.hmxV2Config.hmxPerfMode = QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_MAX; }, true,
       {"HMX_V2 hmxPerfMode 255"}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    LogCapture::instance().clear();
    Cfg c = k.hmx ? hmx_v2() : burst_dcvs(id);
    // The same list with a valid polling vote first: a refused list records
    // none of its votes.
    k.mutate(c);
    EXPECT_EQ(set(id, {scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 500), c}),
              QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
    std::vector<std::string> needles = k.needles;
    needles.push_back("power config id " + std::to_string(id) + ":");
    bool found = false;
    for (const auto& line : LogCapture::instance().lines()) {
      bool all = true;
      for (const auto& n : needles) all &= line.find(n) != std::string::npos;
      found |= all;
    }
    EXPECT_TRUE(found) << (LogCapture::instance().lines().empty() ? "no line" : LogCapture::instance().lines()[0]);
    EXPECT_EQ(LogCapture::instance().lines().size(), 1u);
    const OpenHtp_PerfVotes_t v = votes(id);
    EXPECT_EQ(v.votedOptions, 0u);
    EXPECT_EQ(v.callSpinNs, default_spin_ns());
  }
  // The unmutated votes pass: each case failed because of its one change.
  EXPECT_EQ(set(id, {burst_dcvs(id), hmx_v2()}), QNN_SUCCESS);
}

TEST_F(PerfInfra, UnknownOptionIsRefusedAndNamed) {
  const uint32_t id = make_id();
  QnnHtpPerfInfrastructure_PowerConfig_t c = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;  // option UNKNOWN
  EXPECT_EQ(set(id, {c}), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED_CONFIG);
  expect_line({"setPowerConfig", "option 2147483647"});
  c.option = (QnnHtpPerfInfrastructure_PowerConfigOption_t)8;
  EXPECT_EQ(set(id, {c}), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED_CONFIG);
  expect_line({"setPowerConfig", "power config id " + std::to_string(id), "option 8 "});
  QnnHtpPerfInfrastructure_MemoryConfig_t m = QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIG_INIT;
  m.option = (QnnHtpPerfInfrastructure_MemoryConfigOption_t)2;
  const QnnHtpPerfInfrastructure_MemoryConfig_t* mem[] = {&m, nullptr};
  EXPECT_EQ(perf_->setMemoryConfig(0, 0, mem), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED_CONFIG);
  expect_line({"setMemoryConfig", "option 2 "});
  m.option = QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIGOPTION_GROW_SIZE;
  m.memGrowSizeConfig = 0;
  EXPECT_EQ(perf_->setMemoryConfig(0, 0, mem), QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT);
  expect_line({"setMemoryConfig", "GROW_SIZE 0"});
  EXPECT_EQ(LogCapture::instance().lines().size(), 4u);
  EXPECT_EQ(votes(id).votedOptions, 0u);
}

TEST_F(PerfInfra, EveryOtherVoteIsAcceptedAndRecorded) {
  const uint32_t id = make_id();
  QnnHtpPerfInfrastructure_PowerConfig_t hmx_default = hmx_v2();
  hmx_default.hmxV2Config.hmxPickDefault = 1;
  hmx_default.hmxV2Config.hmxVoltageCornerMin = DCVS_EXP_VCORNER_UNKNOWN;  // ignored with pickDefault
  ASSERT_EQ(set(id, {scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_TIMEOUT_INTERVAL_US, 300000),
                     scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_ADAPTIVE_POLLING_TIME, 1200),
                     scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DDR_PERF_MODE, 1), hmx_default}),
            QNN_SUCCESS);
  OpenHtp_PerfVotes_t v = votes(id);
  EXPECT_EQ(v.hmxTimeoutIntervalUs, 300000u);
  EXPECT_EQ(v.adaptivePollingTimeUs, 1200u);
  EXPECT_EQ(v.ddrPerfMode, 1u);
  EXPECT_EQ(v.hmxPickDefault, 1u);
  ASSERT_EQ(set(id, {hmx_v2()}), QNN_SUCCESS);
  v = votes(0);
  EXPECT_EQ(v.hmxPickDefault, 0u);
  EXPECT_EQ(v.hmxVoltageCornerTarget, static_cast<uint32_t>(DCVS_EXP_VCORNER_NOM));
  EXPECT_EQ(v.hmxTimeoutIntervalUs, 300000u);  // a later list keeps the earlier options
  // A DCVS vote changes only the groups its Set* flags name.
  QnnHtpPerfInfrastructure_PowerConfig_t sleep_only = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_INIT;
  sleep_only.option = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3;
  sleep_only.dcvsV3Config.contextId = id;
  sleep_only.dcvsV3Config.setSleepLatency = 1;
  sleep_only.dcvsV3Config.sleepLatency = 1000;
  ASSERT_EQ(set(id, {burst_dcvs(id)}), QNN_SUCCESS);
  ASSERT_EQ(set(id, {sleep_only}), QNN_SUCCESS);
  v = votes(id);
  EXPECT_EQ(v.sleepLatencyUs, 1000u);
  EXPECT_EQ(v.dcvsPowerMode, static_cast<uint32_t>(QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_PERFORMANCE_MODE));
  EXPECT_EQ(v.busVoltageCornerMax, static_cast<uint32_t>(DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER));
  EXPECT_TRUE(LogCapture::instance().lines().empty());
}

TEST_F(PerfInfra, PollingVoteSetsTheSpinBudgetAndGraphsStillRun) {
  build_add_relu(1024);
  EXPECT_EQ(votes().callSpinNs, default_spin_ns());
  EXPECT_EQ(openhtp_fastrpc_call_spin_ns(), default_spin_ns());
  const uint32_t id = make_id();
  ASSERT_EQ(set(id, {scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 9999)}), QNN_SUCCESS);
  EXPECT_EQ(votes().callSpinNs, 9'999'000);  // spins up to ~10 ms
  EXPECT_EQ(openhtp_fastrpc_call_spin_ns(), 9'999'000);
  expect_graph_runs();
  ASSERT_EQ(set(id, {scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 0)}), QNN_SUCCESS);
  EXPECT_EQ(votes().callSpinNs, 0);  // never spins: straight to FUTEX_WAIT
  EXPECT_EQ(votes().rpcPollingTimeUs, 0u);
  EXPECT_NE(votes().votedOptions & kPollingBit, 0u);
  expect_graph_runs();
  expect_graph_runs();
  ASSERT_EQ(perf_->destroyPowerConfigId(id), QNN_SUCCESS);
  forget(id);
  EXPECT_EQ(openhtp_fastrpc_call_spin_ns(), default_spin_ns());  // the default comes back
  expect_graph_runs();
}

TEST_F(PerfInfra, FastRpcSpinBudgetExtensionIsBoundedAndRestorable) {
  ASSERT_EQ(openhtp_fastrpc_set_call_spin_us(250), AEE_SUCCESS);
  EXPECT_EQ(openhtp_fastrpc_call_spin_ns(), 250'000);
  EXPECT_EQ(openhtp_fastrpc_set_call_spin_us(OPENHTP_FASTRPC_CALL_SPIN_MAX_US + 1), AEE_EBADPARM);
  EXPECT_EQ(openhtp_fastrpc_call_spin_ns(), 250'000);  // a refused value changes nothing
  ASSERT_EQ(openhtp_fastrpc_set_call_spin_us(OPENHTP_FASTRPC_CALL_SPIN_DEFAULT), AEE_SUCCESS);
  EXPECT_EQ(openhtp_fastrpc_call_spin_ns(), default_spin_ns());
}

TEST_F(PerfInfra, DestroyingAnIdWithdrawsItsPollingVote) {
  const uint32_t a = make_id(), b = make_id();
  ASSERT_EQ(set(a, {scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 100)}), QNN_SUCCESS);
  ASSERT_EQ(set(b, {scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 200)}), QNN_SUCCESS);
  EXPECT_EQ(votes().callSpinNs, 200'000);  // the most recent vote is in force
  ASSERT_EQ(set(a, {scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY, 50)}), QNN_SUCCESS);
  EXPECT_EQ(votes().callSpinNs, 200'000);  // another option of a does not touch polling
  ASSERT_EQ(perf_->destroyPowerConfigId(b), QNN_SUCCESS);
  forget(b);
  EXPECT_EQ(votes().callSpinNs, 100'000);
  EXPECT_EQ(votes().rpcPollingTimeUs, 100u);
  ASSERT_EQ(perf_->destroyPowerConfigId(a), QNN_SUCCESS);
  forget(a);
  EXPECT_EQ(votes().callSpinNs, default_spin_ns());
}

TEST_F(PerfInfra, ConcurrentClientsGetDistinctIdsAndVoteSafely) {
  constexpr int kThreads = 4, kEach = 50;
  std::vector<std::vector<uint32_t>> got(kThreads);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        uint32_t id = 0;
        if (perf_->createPowerConfigId(0, 0, &id) != QNN_SUCCESS) return;
        got[t].push_back(id);
        set(id, {burst_dcvs(id), scalar(QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME, 10u * t)});
        if (i % 2 == 0) perf_->destroyPowerConfigId(id);
      }
    });
  }
  for (auto& th : ts) th.join();
  std::vector<uint32_t> all;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(got[t].size(), static_cast<size_t>(kEach));
    for (size_t i = 0; i < got[t].size(); ++i) {
      all.push_back(got[t][i]);
      if (i % 2 == 1) ids_.push_back(got[t][i]);
    }
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());  // no id handed out twice
  EXPECT_EQ(votes().numPowerConfigIds, static_cast<uint32_t>(kThreads * kEach / 2));
  EXPECT_TRUE(LogCapture::instance().lines().empty());
}

}  // namespace
