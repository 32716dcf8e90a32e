#include "report.h"

#include <cstdio>
#include <cstring>

#include "QnnProfile.h"
#include "qnn_session.h"

namespace examples {
namespace {

const char* unit_suffix(QnnProfile_EventUnit_t unit) {
  switch (unit) {
    case QNN_PROFILE_EVENTUNIT_MICROSEC: return " us";
    case QNN_PROFILE_EVENTUNIT_BYTES: return " B";
    case QNN_PROFILE_EVENTUNIT_CYCLES: return " cycles";
    default: return "";
  }
}

}  // namespace

std::string to_string(const CopyAccounting& a) {
  return std::to_string(a.copied_in) + " B copied in, " + std::to_string(a.copied_out) + " B copied out, " +
         std::to_string(a.by_reference) + " B by reference";
}

ExecuteReport::~ExecuteReport() {
  if (profile_ != nullptr) lib_.api.profileFree(profile_);
}

bool ExecuteReport::init(std::string* error) {
  if (Qnn_ErrorHandle_t e = lib_.api.profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, &profile_); e != QNN_SUCCESS) {
    *error = "profileCreate: " + describe_qnn_error(lib_.api, e);
    return false;
  }
  return true;
}

bool ExecuteReport::read_last(Qnn_GraphHandle_t graph, CopyAccounting* from_stats, std::string* error) {
  const QNN_INTERFACE_VER_TYPE& api = lib_.api;

  // 1. openhtp's extension.
  *from_stats = {};
  if (lib_.get_last_execute_stats == nullptr) {
    *error = "the backend has no OpenHtp_getLastExecuteStats";
    return false;
  }
  OpenHtp_ExecuteStats_t st{};
  if (Qnn_ErrorHandle_t e = lib_.get_last_execute_stats(graph, &st); e != QNN_SUCCESS) {
    *error = "OpenHtp_getLastExecuteStats: " + describe_qnn_error(api, e);
    return false;
  }
  *from_stats = {st.bytesCopiedIn, st.bytesCopiedOut, st.bytesByReference};
  std::printf("    OpenHtp_getLastExecuteStats: %s (graph ran %.0f us on the DSP)\n", to_string(*from_stats).c_str(),
              static_cast<double>(st.dspExecuteNs) / 1000.0);

  // 2. The profile: the latest top-level EXECUTE event and its sub-events.
  const QnnProfile_EventId_t* events = nullptr;
  uint32_t num_events = 0;
  if (Qnn_ErrorHandle_t e = api.profileGetEvents(profile_, &events, &num_events); e != QNN_SUCCESS) {
    *error = "profileGetEvents: " + describe_qnn_error(api, e);
    return false;
  }
  QnnProfile_EventId_t execute_event = 0;
  QnnProfile_EventData_t execute_data = QNN_PROFILE_EVENT_DATA_INIT;
  bool found = false;
  for (uint32_t i = num_events; i-- > 0 && !found;) {
    QnnProfile_EventData_t d = QNN_PROFILE_EVENT_DATA_INIT;
    if (api.profileGetEventData(events[i], &d) == QNN_SUCCESS && d.type == QNN_PROFILE_EVENTTYPE_EXECUTE) {
      execute_event = events[i];
      execute_data = d;
      found = true;
    }
  }
  if (!found) {
    *error = "the profile holds no EXECUTE event";
    return false;
  }
  const QnnProfile_EventId_t* subs = nullptr;
  uint32_t num_subs = 0;
  if (Qnn_ErrorHandle_t e = api.profileGetSubEvents(execute_event, &subs, &num_subs); e != QNN_SUCCESS) {
    *error = "profileGetSubEvents: " + describe_qnn_error(api, e);
    return false;
  }
  std::string line;
  CopyAccounting from_profile;
  int byte_events = 0;
  for (uint32_t i = 0; i < num_subs; ++i) {
    QnnProfile_EventData_t d = QNN_PROFILE_EVENT_DATA_INIT;
    if (api.profileGetEventData(subs[i], &d) != QNN_SUCCESS) continue;
    const char* id = d.identifier != nullptr ? d.identifier : "?";
    line += std::string(line.empty() ? "" : ", ") + id + " " + std::to_string(d.value) + unit_suffix(d.unit);
    if (d.unit != QNN_PROFILE_EVENTUNIT_BYTES) continue;
    if (std::strcmp(id, "bytes copied in") == 0) from_profile.copied_in = d.value, ++byte_events;
    if (std::strcmp(id, "bytes copied out") == 0) from_profile.copied_out = d.value, ++byte_events;
    if (std::strcmp(id, "bytes by reference") == 0) from_profile.by_reference = d.value, ++byte_events;
  }
  std::printf("    QnnProfile EXECUTE event \"%s\" (%llu%s): %s\n",
              execute_data.identifier != nullptr ? execute_data.identifier : "?",
              static_cast<unsigned long long>(execute_data.value), unit_suffix(execute_data.unit), line.c_str());

  if (byte_events != 3) {
    *error = "the EXECUTE event lacks one of the BYTES sub-events";
    return false;
  }
  if (!(from_profile == *from_stats)) {
    *error = "profile (" + to_string(from_profile) + ") and OpenHtp_getLastExecuteStats (" + to_string(*from_stats) +
             ") disagree";
    return false;
  }
  return true;
}

}  // namespace examples
