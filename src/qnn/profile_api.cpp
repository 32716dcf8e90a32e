#include <map>
#include <mutex>

#include "QnnProfile.h"
#include "qnn/api_guard.h"
#include "qnn/live_handle.h"
#include "qnn/logger.h"
#include "qnn/objects.h"
#include "qnn/profile_events.h"

using namespace openhtp::qnn;

namespace {

struct EventStore {
  std::mutex mu;
  std::map<QnnProfile_EventId_t, ProfileEvent> events;
  std::map<QnnProfile_EventId_t, std::vector<QnnProfile_EventId_t>> owned_by_profile;  // profile handle → ids
  QnnProfile_EventId_t next = 1;
};

EventStore& store() {
  static auto* s = new EventStore;
  return *s;
}

// Erases `id` and its sub-events (theirs too); caller holds the lock.
void erase_event(QnnProfile_EventId_t id) {
  auto it = store().events.find(id);
  if (it == store().events.end()) return;
  const std::vector<QnnProfile_EventId_t> children = it->second.children;
  store().events.erase(it);
  for (auto c : children) erase_event(c);
}

void drop_events(const std::vector<QnnProfile_EventId_t>& ids) {
  std::lock_guard lock(store().mu);
  for (auto id : ids) erase_event(id);
}

// Gives `e`'s pending sub-events (and theirs) ids in the store; caller holds
// the store's lock.
void store_pending(ProfileEvent* e) {
  for (ProfileEvent& c : e->pending) {
    store_pending(&c);
    const QnnProfile_EventId_t id = store().next++;
    store().events[id] = std::move(c);
    e->children.push_back(id);
  }
  e->pending.clear();
}


}  // namespace

namespace openhtp::qnn {

void profile_record(Qnn_ProfileHandle_t profile, ProfileEvent top, std::vector<ProfileEvent> children) {
  if (profile == nullptr) return;
  auto p = find_object<Profile>(ObjectKind::kProfile, profile);
  if (!p) {
    QNN_LOG_WARN("profile handle %p is not live; event '%s' dropped", profile, top.identifier.c_str());
    return;
  }
  std::lock_guard plock(p->mu);
  if (p->max_events != 0 && p->top_level.size() >= p->max_events) return;
  std::lock_guard lock(store().mu);
  if (p->level == QNN_PROFILE_LEVEL_BASIC || p->level == QNN_PROFILE_LEVEL_DETAILED || p->level == QNN_PROFILE_LEVEL_BACKEND) {
    top.pending = std::move(children);
    store_pending(&top);
  }
  const QnnProfile_EventId_t id = store().next++;
  store().events[id] = std::move(top);
  p->top_level.push_back(id);
}

bool profile_wants_node_events(Qnn_ProfileHandle_t profile) {
  if (profile == nullptr) return false;
  auto p = find_object<Profile>(ObjectKind::kProfile, profile);
  return p && (p->level == QNN_PROFILE_LEVEL_DETAILED || p->level == QNN_PROFILE_LEVEL_BACKEND);
}

// An event id that names no live event (never given, or its profile freed).
Qnn_ErrorHandle_t unknown_event(const char* api, QnnProfile_EventId_t id) {
  QNN_LOG_ERROR("%s: event id %llu is not a live event (its profile freed, or never given)", api,
                static_cast<unsigned long long>(id));
  return QNN_PROFILE_ERROR_INVALID_HANDLE;
}

}  // namespace openhtp::qnn

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnProfile_create(Qnn_BackendHandle_t backend, QnnProfile_Level_t level,
                                            Qnn_ProfileHandle_t* profile) try {
  if (!live_handle("profileCreate", ObjectKind::kBackend, backend)) return QNN_PROFILE_ERROR_INVALID_HANDLE;
  if (profile == nullptr) return null_argument("profileCreate", "profile", QNN_PROFILE_ERROR_INVALID_ARGUMENT);
  if (level != QNN_PROFILE_LEVEL_BASIC && level != QNN_PROFILE_LEVEL_DETAILED && level != QNN_PROFILE_LEVEL_BACKEND) {
    QNN_LOG_ERROR("profileCreate: level %u is not BASIC (1), DETAILED (2) or BACKEND (1000)", level);
    return QNN_PROFILE_ERROR_INVALID_ARGUMENT;
  }
  auto p = std::make_shared<Profile>();
  p->level = level;
  *profile = ObjectTable::instance().add(ObjectKind::kProfile, p);
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("profileCreate");
}

QNN_API Qnn_ErrorHandle_t QnnProfile_setConfig(Qnn_ProfileHandle_t profileHandle, const QnnProfile_Config_t** config) try {
  auto p = live_object<Profile>("profileSetConfig", ObjectKind::kProfile, profileHandle);
  if (!p) return QNN_PROFILE_ERROR_INVALID_HANDLE;
  for (const QnnProfile_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    const auto option = (*c)->option;
    if (option != QNN_PROFILE_CONFIG_OPTION_CUSTOM && option != QNN_PROFILE_CONFIG_OPTION_MAX_EVENTS &&
        option != QNN_PROFILE_CONFIG_OPTION_ENABLE_OPTRACE) {
      QNN_LOG_ERROR("profileSetConfig: config option %d is not one QnnProfile.h defines", static_cast<int>(option));
      return QNN_PROFILE_ERROR_UNSUPPORTED;
    }
  }
  // Only MAX_EVENTS has an effect (no op trace to enable on an emulator).
  for (const QnnProfile_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    if ((*c)->option != QNN_PROFILE_CONFIG_OPTION_MAX_EVENTS) continue;
    std::lock_guard lock(p->mu);
    p->max_events = (*c)->numMaxEvents;
  }
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("profileSetConfig");
}

QNN_API Qnn_ErrorHandle_t QnnProfile_getEvents(Qnn_ProfileHandle_t profileHandle, const QnnProfile_EventId_t** profileEventIds,
                                               uint32_t* numEvents) try {
  auto p = live_object<Profile>("profileGetEvents", ObjectKind::kProfile, profileHandle);
  if (!p) return QNN_PROFILE_ERROR_INVALID_HANDLE;
  if (profileEventIds == nullptr || numEvents == nullptr) {
    return null_argument("profileGetEvents", profileEventIds == nullptr ? "profileEventIds" : "numEvents",
                         QNN_PROFILE_ERROR_INVALID_ARGUMENT);
  }
  std::lock_guard lock(p->mu);
  *profileEventIds = p->top_level.data();
  *numEvents = static_cast<uint32_t>(p->top_level.size());
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("profileGetEvents");
}

QNN_API Qnn_ErrorHandle_t QnnProfile_getSubEvents(QnnProfile_EventId_t eventId, const QnnProfile_EventId_t** subEventIds,
                                                  uint32_t* numSubEvents) try {
  if (subEventIds == nullptr || numSubEvents == nullptr) {
    return null_argument("profileGetSubEvents", subEventIds == nullptr ? "subEventIds" : "numSubEvents",
                         QNN_PROFILE_ERROR_INVALID_ARGUMENT);
  }
  std::lock_guard lock(store().mu);
  auto it = store().events.find(eventId);
  if (it == store().events.end()) return unknown_event("profileGetSubEvents", eventId);
  *subEventIds = it->second.children.data();
  *numSubEvents = static_cast<uint32_t>(it->second.children.size());
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("profileGetSubEvents");
}

QNN_API Qnn_ErrorHandle_t QnnProfile_getEventData(QnnProfile_EventId_t eventId, QnnProfile_EventData_t* eventData) try {
  if (eventData == nullptr) return null_argument("profileGetEventData", "eventData", QNN_PROFILE_ERROR_INVALID_ARGUMENT);
  std::lock_guard lock(store().mu);
  auto it = store().events.find(eventId);
  if (it == store().events.end()) return unknown_event("profileGetEventData", eventId);
  eventData->type = it->second.type;
  eventData->unit = it->second.unit;
  eventData->value = it->second.value;
  eventData->identifier = it->second.identifier.c_str();
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("profileGetEventData");
}

QNN_API Qnn_ErrorHandle_t QnnProfile_free(Qnn_ProfileHandle_t profileHandle) try {
  auto obj = ObjectTable::instance().remove(ObjectKind::kProfile, profileHandle);
  if (!obj) {
    report_dead_handle("profileFree", ObjectKind::kProfile, profileHandle);
    return QNN_PROFILE_ERROR_INVALID_HANDLE;
  }
  auto p = std::static_pointer_cast<Profile>(obj);
  std::lock_guard lock(p->mu);
  drop_events(p->top_level);
  return QNN_SUCCESS;
} catch (...) {
  return api_exception("profileFree");
}

}  // extern "C"
