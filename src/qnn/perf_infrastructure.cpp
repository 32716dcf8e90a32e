// QnnDevice_getInfrastructure and the four perfInfra functions behind it.
//
// State is process wide, like the votes on a phone (the DSP's clocks are one
// resource shared by every client of the process), and leaked on purpose:
// clients destroy their power config ids from static destructors, after
// which no destructor of ours may have run.
//
// A vote list is all or nothing: every entry is validated before any is
// recorded, so a refused list leaves the votes in force as they were.
#include "qnn/cdsprpc_link.h"
#include "qnn/perf_infrastructure.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include "QnnDevice.h"
#include "htp/device_spec.h"
#include "openhtp/fastrpc_ext.h"
#include "openhtp/qnn_ext.h"
#include "qnn/api_guard.h"
#include "qnn/logger.h"

namespace openhtp::qnn {
namespace {

// Power config options are 1..7; index 0 is unused.
constexpr uint32_t kNumOptions = QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DDR_PERF_MODE + 1;

const char* option_name(uint32_t option) {
  switch (option) {
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3: return "DCVS_V3";
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY: return "RPC_CONTROL_LATENCY";
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME: return "RPC_POLLING_TIME";
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_TIMEOUT_INTERVAL_US: return "HMX_TIMEOUT_INTERVAL_US";
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_V2: return "HMX_V2";
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_ADAPTIVE_POLLING_TIME: return "ADAPTIVE_POLLING_TIME";
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DDR_PERF_MODE: return "DDR_PERF_MODE";
  }
  return "?";
}

bool is_voltage_corner(uint32_t v) {
  switch (v) {
    case DCVS_VOLTAGE_CORNER_DISABLE:
    case DCVS_VOLTAGE_VCORNER_MIN_VOLTAGE_CORNER:
    case DCVS_VOLTAGE_VCORNER_SVS2:
    case DCVS_VOLTAGE_VCORNER_SVS:
    case DCVS_VOLTAGE_VCORNER_SVS_PLUS:
    case DCVS_VOLTAGE_VCORNER_NOM:
    case DCVS_VOLTAGE_VCORNER_NOM_PLUS:
    case DCVS_VOLTAGE_VCORNER_TURBO:
    case DCVS_VOLTAGE_VCORNER_TURBO_PLUS:
    case DCVS_VOLTAGE_VCORNER_TURBO_L2:
    case DCVS_VOLTAGE_VCORNER_TURBO_L3:
    case DCVS_VOLTAGE_VCORNER_TURBO_L4:
    case DCVS_VOLTAGE_VCORNER_TURBO_L5:
    case DCVS_VOLTAGE_VCORNER_MAX_VOLTAGE_CORNER: return true;
  }
  return false;
}

bool is_exp_voltage_corner(uint32_t v) {
  switch (v) {
    case DCVS_EXP_VCORNER_DISABLE:
    case DCVS_EXP_VCORNER_MIN:
    case DCVS_EXP_VCORNER_LOW_SVS_D2:
    case DCVS_EXP_VCORNER_LOW_SVS_D1:
    case DCVS_EXP_VCORNER_LOW_SVS:
    case DCVS_EXP_VCORNER_LOW_SVS_L0:
    case DCVS_EXP_VCORNER_SVS:
    case DCVS_EXP_VCORNER_SVS_L0:
    case DCVS_EXP_VCORNER_SVS_L1:
    case DCVS_EXP_VCORNER_SVS_L2:
    case DCVS_EXP_VCORNER_NOM:
    case DCVS_EXP_VCORNER_NOM_L1:
    case DCVS_EXP_VCORNER_NOM_L2:
    case DCVS_EXP_VCORNER_TUR:
    case DCVS_EXP_VCORNER_TUR_L1:
    case DCVS_EXP_VCORNER_TUR_L2:
    case DCVS_EXP_VCORNER_TUR_L3:
    case DCVS_EXP_VCORNER_MAX: return true;
  }
  return false;
}

bool is_power_mode(uint32_t v) {
  switch (v) {
    case QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_ADJUST_UP_DOWN:
    case QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_ADJUST_ONLY_UP:
    case QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_POWER_SAVER_MODE:
    case QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_POWER_SAVER_AGGRESSIVE_MODE:
    case QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_PERFORMANCE_MODE:
    case QNN_HTP_PERF_INFRASTRUCTURE_POWERMODE_DUTY_CYCLE_MODE: return true;
  }
  return false;
}

// A vote's fields, one copy per power config id; seq[option] orders the
// votes of all ids so that the most recent one of each option is in force.
struct IdVotes {
  OpenHtp_PerfVotes_t v{};
  std::array<uint64_t, kNumOptions> seq{};
};

struct State {
  std::mutex mu;
  uint32_t next_id = 1;  // ids are never reused: a stale id must stay refused
  uint64_t next_seq = 1;
  std::map<uint32_t, IdVotes> ids;
  uint32_t mem_grow_size = 0;
  std::array<std::atomic<bool>, kNumOptions> info_logged{};
  std::atomic<bool> mem_info_logged{false};
};

State& state() {
  static auto* s = new State;  // leaked: see the file comment
  return *s;
}

// Copies option `k`'s fields from one record to another.
void copy_option(uint32_t k, const OpenHtp_PerfVotes_t& from, OpenHtp_PerfVotes_t& to) {
  switch (k) {
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3:
      to.dcvsEnable = from.dcvsEnable;
      to.dcvsPowerMode = from.dcvsPowerMode;
      to.sleepLatencyUs = from.sleepLatencyUs;
      to.sleepDisable = from.sleepDisable;
      to.busVoltageCornerMin = from.busVoltageCornerMin;
      to.busVoltageCornerTarget = from.busVoltageCornerTarget;
      to.busVoltageCornerMax = from.busVoltageCornerMax;
      to.coreVoltageCornerMin = from.coreVoltageCornerMin;
      to.coreVoltageCornerTarget = from.coreVoltageCornerTarget;
      to.coreVoltageCornerMax = from.coreVoltageCornerMax;
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY:
      to.rpcControlLatencyUs = from.rpcControlLatencyUs;
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME:
      to.rpcPollingTimeUs = from.rpcPollingTimeUs;
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_TIMEOUT_INTERVAL_US:
      to.hmxTimeoutIntervalUs = from.hmxTimeoutIntervalUs;
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_V2:
      to.hmxPickDefault = from.hmxPickDefault;
      to.hmxVoltageCornerMin = from.hmxVoltageCornerMin;
      to.hmxVoltageCornerTarget = from.hmxVoltageCornerTarget;
      to.hmxVoltageCornerMax = from.hmxVoltageCornerMax;
      to.hmxPerfMode = from.hmxPerfMode;
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_ADAPTIVE_POLLING_TIME:
      to.adaptivePollingTimeUs = from.adaptivePollingTimeUs;
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DDR_PERF_MODE:
      to.ddrPerfMode = from.ddrPerfMode;
      break;
  }
}

// The votes in force: for each option, the most recent vote of a live id.
OpenHtp_PerfVotes_t in_force(const State& s) {
  OpenHtp_PerfVotes_t out{};
  out.numPowerConfigIds = static_cast<uint32_t>(s.ids.size());
  for (uint32_t k = 1; k < kNumOptions; ++k) {
    const IdVotes* latest = nullptr;
    for (const auto& [id, votes] : s.ids) {
      if (votes.seq[k] != 0 && (latest == nullptr || votes.seq[k] > latest->seq[k])) latest = &votes;
    }
    if (latest == nullptr) continue;
    out.votedOptions |= 1u << k;
    copy_option(k, latest->v, out);
  }
  return out;
}

// The polling vote in force becomes the FastRPC channel's spin budget; with
// none left (never voted, or its ids destroyed) the default comes back.
// Called with s.mu held so that concurrent votes apply in their order.
void apply_polling(const State& s) {
  const OpenHtp_PerfVotes_t f = in_force(s);
  constexpr uint32_t kBit = 1u << QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME;
  cdsprpc().set_call_spin_us((f.votedOptions & kBit) ? f.rpcPollingTimeUs : OPENHTP_FASTRPC_CALL_SPIN_DEFAULT);
}

// deviceId / coreId name the one emulated device (0) and its cores.
Qnn_ErrorHandle_t check_device_core(const char* fn, uint32_t device_id, uint32_t core_id) {
  if (device_id != 0) {
    QNN_LOG_ERROR("%s: deviceId %u does not exist (the emulated HTP is device 0)", fn, device_id);
    return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT;
  }
  if (core_id >= htp::kDevice.num_cores) {
    QNN_LOG_ERROR("%s: coreId %u does not exist (device 0 has %u core(s), ids from 0)", fn, core_id,
                  htp::kDevice.num_cores);
    return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT;
  }
  return QNN_SUCCESS;
}

Qnn_ErrorHandle_t unknown_id(const char* fn, uint32_t id) {
  QNN_LOG_ERROR("%s: power config id %u is unknown or destroyed (create one with createPowerConfigId)", fn, id);
  return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT;
}

bool id_live(uint32_t id) {
  State& s = state();
  std::lock_guard lock(s.mu);
  return s.ids.count(id) != 0;
}

// One line naming the id, the option, the field and the value; `id` is in scope.
#define REFUSE(fmt, ...)                                                                   \
  do {                                                                                     \
    QNN_LOG_ERROR("setPowerConfig: power config id %u: " fmt, id __VA_OPT__(, ) __VA_ARGS__); \
    return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT;                                \
  } while (0)

// A corner triple must name corners the header lists, ordered min <= target <= max
// (the DSP can only settle on a target inside the range).
Qnn_ErrorHandle_t check_corners(uint32_t id, const char* what, bool (*valid)(uint32_t), uint32_t min, uint32_t target,
                                uint32_t max) {
  const uint32_t v[3] = {min, target, max};
  const char* names[3] = {"Min", "Target", "Max"};
  for (int i = 0; i < 3; ++i) {
    if (!valid(v[i])) REFUSE("%sVoltageCorner%s 0x%x is not a corner the header lists", what, names[i], v[i]);
  }
  if (!(min <= target && target <= max)) {
    REFUSE("%sVoltageCorner Min 0x%x / Target 0x%x / Max 0x%x are not ordered Min <= Target <= Max", what, min, target,
           max);
  }
  return QNN_SUCCESS;
}

// Validates one vote and records it into `rec` (a scratch copy; the caller
// commits it only when the whole list passed).
Qnn_ErrorHandle_t validate_and_record(uint32_t id, const QnnHtpPerfInfrastructure_PowerConfig_t& c, IdVotes& rec) {
  const uint32_t option = static_cast<uint32_t>(c.option);
  OpenHtp_PerfVotes_t& v = rec.v;
  switch (c.option) {
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DCVS_V3: {
      const QnnHtpPerfInfrastructure_DcvsV3_t& d = c.dcvsV3Config;
      // The header: contextId is the power config id the vote belongs to. A
      // mismatch is a client voting through the wrong (often stale) id.
      if (d.contextId != id) REFUSE("DCVS_V3 contextId %u is not the power config id", d.contextId);
      if (d.setDcvsEnable && d.dcvsEnable > 1) REFUSE("DCVS_V3 dcvsEnable %u is not 0 or 1", d.dcvsEnable);
      // powerMode 0 (the init macro's value) leaves the mode as it was.
      const uint32_t mode = static_cast<uint32_t>(d.powerMode);
      if (mode != 0 && !is_power_mode(mode)) {
        REFUSE("DCVS_V3 powerMode 0x%x is not a QnnHtpPerfInfrastructure_PowerMode_t value", mode);
      }
      if (d.setSleepDisable && d.sleepDisable > 1) REFUSE("DCVS_V3 sleepDisable %u is not 0 or 1", d.sleepDisable);
      if (d.setBusParams) {
        if (Qnn_ErrorHandle_t e = check_corners(id, "DCVS_V3 bus", is_voltage_corner, d.busVoltageCornerMin,
                                                d.busVoltageCornerTarget, d.busVoltageCornerMax)) {
          return e;
        }
      }
      if (d.setCoreParams) {
        if (Qnn_ErrorHandle_t e = check_corners(id, "DCVS_V3 core", is_voltage_corner, d.coreVoltageCornerMin,
                                                d.coreVoltageCornerTarget, d.coreVoltageCornerMax)) {
          return e;
        }
      }
      // Only the groups whose Set* flag is on change (the header's rule).
      if (d.setDcvsEnable) v.dcvsEnable = d.dcvsEnable;
      if (mode != 0) v.dcvsPowerMode = mode;
      if (d.setSleepLatency) v.sleepLatencyUs = d.sleepLatency;
      if (d.setSleepDisable) v.sleepDisable = d.sleepDisable;
      if (d.setBusParams) {
        v.busVoltageCornerMin = d.busVoltageCornerMin;
        v.busVoltageCornerTarget = d.busVoltageCornerTarget;
        v.busVoltageCornerMax = d.busVoltageCornerMax;
      }
      if (d.setCoreParams) {
        v.coreVoltageCornerMin = d.coreVoltageCornerMin;
        v.coreVoltageCornerTarget = d.coreVoltageCornerTarget;
        v.coreVoltageCornerMax = d.coreVoltageCornerMax;
      }
      break;
    }
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_CONTROL_LATENCY:
      v.rpcControlLatencyUs = c.rpcControlLatencyConfig;  // microseconds; the header sets no range
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME:
      if (c.rpcPollingTimeConfig > QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_MAX_RPC_POLLING_TIME) {
        REFUSE("RPC_POLLING_TIME %u us is above the maximum %u us", c.rpcPollingTimeConfig,
               QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIG_MAX_RPC_POLLING_TIME);
      }
      v.rpcPollingTimeUs = c.rpcPollingTimeConfig;
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_TIMEOUT_INTERVAL_US:
      v.hmxTimeoutIntervalUs = c.hmxTimeoutIntervalUsConfig;  // the header sets no range
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_HMX_V2: {
      const QnnHtpPerfInfrastructure_HmxV2_t& h = c.hmxV2Config;
      if (h.hmxPickDefault > 1) REFUSE("HMX_V2 hmxPickDefault %u is not 0 or 1", h.hmxPickDefault);
      // With hmxPickDefault = 1 the header says the corners are ignored, so
      // only a vote that uses them must get them right.
      if (!h.hmxPickDefault) {
        if (Qnn_ErrorHandle_t e = check_corners(id, "HMX_V2 hmx", is_exp_voltage_corner, h.hmxVoltageCornerMin,
                                                h.hmxVoltageCornerTarget, h.hmxVoltageCornerMax)) {
          return e;
        }
        // CLK_PERF_MAX is a range bound, not a vote (the header).
        if (static_cast<uint32_t>(h.hmxPerfMode) > QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D15) {
          REFUSE("HMX_V2 hmxPerfMode %u is not a QnnHtpPerfInfrastructure_ClkPerfMode_t vote (0..%u)",
                 static_cast<uint32_t>(h.hmxPerfMode), QNN_HTP_PERF_INFRASTRUCTURE_CLK_PERF_HIGH_D15);
        }
      }
      v.hmxPickDefault = h.hmxPickDefault;
      v.hmxVoltageCornerMin = h.hmxVoltageCornerMin;
      v.hmxVoltageCornerTarget = h.hmxVoltageCornerTarget;
      v.hmxVoltageCornerMax = h.hmxVoltageCornerMax;
      v.hmxPerfMode = static_cast<uint32_t>(h.hmxPerfMode);
      break;
    }
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_ADAPTIVE_POLLING_TIME:
      v.adaptivePollingTimeUs = c.adaptivePollingTimeConfig;  // the header sets no range
      break;
    case QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_DDR_PERF_MODE:
      v.ddrPerfMode = c.ddrPerfModeConfig;  // any non-zero value enables
      break;
    default:
      QNN_LOG_ERROR("setPowerConfig: power config id %u: option %u is not a QnnHtpPerfInfrastructure_PowerConfigOption_t",
                    id, option);
      return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED_CONFIG;
  }
  v.votedOptions |= 1u << option;
  return QNN_SUCCESS;
}

#undef REFUSE

// ---- the four table entries ---------------------------------------------------

Qnn_ErrorHandle_t create_power_config_id(uint32_t deviceId, uint32_t coreId, uint32_t* powerConfigId) try {
  if (powerConfigId == nullptr) {
    QNN_LOG_ERROR("createPowerConfigId: powerConfigId (the output pointer) is NULL");
    return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_HANDLE_PTR;
  }
  if (Qnn_ErrorHandle_t e = check_device_core("createPowerConfigId", deviceId, coreId)) return e;
  State& s = state();
  std::lock_guard lock(s.mu);
  if (s.next_id == 0) {  // 2^32 - 1 ids made: wrapping would reuse one
    QNN_LOG_ERROR("createPowerConfigId: every power config id has been used");
    return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_FAILED;
  }
  const uint32_t id = s.next_id;
  s.ids.emplace(id, IdVotes{});
  ++s.next_id;
  *powerConfigId = id;
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("createPowerConfigId");
}

Qnn_ErrorHandle_t destroy_power_config_id(uint32_t powerConfigId) try {
  State& s = state();
  {
    std::lock_guard lock(s.mu);
    auto it = s.ids.find(powerConfigId);
    if (it != s.ids.end()) {
      // Its votes end with it; a polling vote in force may fall back to
      // another id's, or to the default.
      s.ids.erase(it);
      apply_polling(s);
      return QNN_SUCCESS;
    }
  }
  return unknown_id("destroyPowerConfigId", powerConfigId);
} catch (...) {
  return api_exception("destroyPowerConfigId");
}

Qnn_ErrorHandle_t set_power_config(uint32_t powerConfigId, const QnnHtpPerfInfrastructure_PowerConfig_t** config) try {
  if (!id_live(powerConfigId)) return unknown_id("setPowerConfig", powerConfigId);
  if (config == nullptr) {
    QNN_LOG_ERROR("setPowerConfig: power config id %u: config (the NULL-terminated list) is NULL", powerConfigId);
    return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT;
  }
  State& s = state();
  IdVotes rec;
  {
    std::lock_guard lock(s.mu);
    auto it = s.ids.find(powerConfigId);
    if (it == s.ids.end()) return unknown_id("setPowerConfig", powerConfigId);
    rec = it->second;
  }
  // Validate the whole list on a scratch copy, outside the lock (the log
  // callback is the client's code).
  uint32_t voted = 0;
  for (const QnnHtpPerfInfrastructure_PowerConfig_t* const* c = config; *c != nullptr; ++c) {
    if (Qnn_ErrorHandle_t e = validate_and_record(powerConfigId, **c, rec)) return e;
    voted |= 1u << static_cast<uint32_t>((*c)->option);
  }
  if (voted == 0) return QNN_SUCCESS;  // an empty list votes nothing
  {
    std::lock_guard lock(s.mu);
    auto it = s.ids.find(powerConfigId);
    if (it == s.ids.end()) return unknown_id("setPowerConfig", powerConfigId);  // destroyed meanwhile
    // Keep the seq order of votes made meanwhile by other threads: this list
    // takes a fresh number for every option it voted.
    const uint64_t now = s.next_seq++;
    for (uint32_t k = 1; k < kNumOptions; ++k) {
      if (voted & (1u << k)) {
        rec.seq[k] = now;
      } else {
        rec.seq[k] = it->second.seq[k];
        copy_option(k, it->second.v, rec.v);
      }
    }
    rec.v.votedOptions |= it->second.v.votedOptions;
    it->second = rec;
    if (voted & (1u << QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME)) apply_polling(s);
  }
  for (uint32_t k = 1; k < kNumOptions; ++k) {
    if (!(voted & (1u << k))) continue;
    if (s.info_logged[k].exchange(true)) continue;  // once per option: clients vote before every run
    if (k == QNN_HTP_PERF_INFRASTRUCTURE_POWER_CONFIGOPTION_RPC_POLLING_TIME) {
      QNN_LOG_INFO("setPowerConfig: RPC_POLLING_TIME accepted: it sets how long a FastRPC call spins for its reply "
                   "before sleeping (now %lld ns)",
                   static_cast<long long>(cdsprpc().call_spin_ns()));
    } else {
      QNN_LOG_INFO("setPowerConfig: %s vote accepted and recorded (the emulated HTP has no clocks to set)",
                   option_name(k));
    }
  }
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("setPowerConfig");
}

Qnn_ErrorHandle_t set_memory_config(uint32_t deviceId, uint32_t coreId,
                                    const QnnHtpPerfInfrastructure_MemoryConfig_t** config) try {
  if (Qnn_ErrorHandle_t e = check_device_core("setMemoryConfig", deviceId, coreId)) return e;
  if (config == nullptr) {
    QNN_LOG_ERROR("setMemoryConfig: config (the NULL-terminated list) is NULL");
    return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT;
  }
  std::optional<uint32_t> grow;
  for (const QnnHtpPerfInfrastructure_MemoryConfig_t* const* c = config; *c != nullptr; ++c) {
    if ((*c)->option != QNN_HTP_PERF_INFRASTRUCTURE_MEMORY_CONFIGOPTION_GROW_SIZE) {
      QNN_LOG_ERROR("setMemoryConfig: option %u is not a QnnHtpPerfInfrastructure_MemoryConfigOption_t",
                    static_cast<uint32_t>((*c)->option));
      return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_UNSUPPORTED_CONFIG;
    }
    // A grow step of 0 bytes could never grow the heap: no client means that.
    if ((*c)->memGrowSizeConfig == 0) {
      QNN_LOG_ERROR("setMemoryConfig: GROW_SIZE 0 bytes would never grow the DSP heap");
      return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_INPUT;
    }
    grow = (*c)->memGrowSizeConfig;
  }
  if (!grow) return QNN_SUCCESS;
  State& s = state();
  {
    std::lock_guard lock(s.mu);
    s.mem_grow_size = *grow;
  }
  if (!s.mem_info_logged.exchange(true)) {
    QNN_LOG_INFO("setMemoryConfig: GROW_SIZE %u bytes accepted and recorded (the emulated DSP heap grows on demand)",
                 *grow);
  }
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("setMemoryConfig");
}

}  // namespace

QnnHtpDevice_Infrastructure_t* perf_infrastructure() noexcept {
  // Constant-initialized: usable before any constructor and after every
  // destructor of the process.
  static constinit QnnHtpDevice_Infrastructure_t infra = {
      QNN_HTP_DEVICE_INFRASTRUCTURE_TYPE_PERF,
      {{create_power_config_id, destroy_power_config_id, set_power_config, set_memory_config}}};
  return &infra;
}

}  // namespace openhtp::qnn

using namespace openhtp::qnn;

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnDevice_getInfrastructure(const QnnDevice_Infrastructure_t* deviceInfra) try {
  if (deviceInfra == nullptr) {
    QNN_LOG_ERROR("deviceGetInfrastructure: deviceInfra (the output pointer) is NULL");
    return QNN_DEVICE_ERROR_INVALID_ARGUMENT;
  }
  // The API's type is a pointer to a const handle; the handle is what we set.
  *const_cast<QnnDevice_Infrastructure_t*>(deviceInfra) = perf_infrastructure();
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("deviceGetInfrastructure");
}

QNN_API Qnn_ErrorHandle_t OpenHtp_getPerfVotes(uint32_t powerConfigId, OpenHtp_PerfVotes_t* votes) try {
  if (votes == nullptr) {
    QNN_LOG_ERROR("OpenHtp_getPerfVotes: votes (the output pointer) is NULL");
    return QNN_HTP_PERF_INFRASTRUCTURE_ERROR_INVALID_HANDLE_PTR;
  }
  State& s = state();
  {
    std::lock_guard lock(s.mu);
    auto it = s.ids.find(powerConfigId);
    if (powerConfigId == 0 || it != s.ids.end()) {
      // 0: the votes in force across ids; an id: what that id voted.
      *votes = powerConfigId == 0 ? in_force(s) : it->second.v;
      votes->numPowerConfigIds = static_cast<uint32_t>(s.ids.size());
      votes->memGrowSizeBytes = s.mem_grow_size;
      votes->callSpinNs = cdsprpc().call_spin_ns();
      return QNN_SUCCESS;
    }
  }
  *votes = OpenHtp_PerfVotes_t{};
  return unknown_id("OpenHtp_getPerfVotes", powerConfigId);
} catch (...) {
  return api_exception("OpenHtp_getPerfVotes");
}

}  // extern "C"
