#include "common/profile_log.h"

#include "common/file_bytes.h"


#include <nlohmann/json.hpp>

namespace openhtp::tools {

namespace {

using nlohmann::json;

uint64_t unix_now_us() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

// Depth bound for sub-events: a backend's tree is shallow; a cycle in a
// buggy backend's ids must not recurse forever.
constexpr int kMaxDepth = 16;

bool collect_event(const QNN_INTERFACE_VER_TYPE& qnn, QnnProfile_EventId_t id, int depth, ProfileEventRecord* out,
                   std::string* error) {
  if (depth > kMaxDepth) {
    *error = "profile sub-events nested deeper than " + std::to_string(kMaxDepth);
    return false;
  }
  QnnProfile_EventData_t data = QNN_PROFILE_EVENT_DATA_INIT;
  if (const Qnn_ErrorHandle_t e = qnn.profileGetEventData(id, &data); e != QNN_SUCCESS) {
    *error = "profileGetEventData(" + std::to_string(id) + ") failed with error " + std::to_string(e);
    return false;
  }
  out->identifier = data.identifier != nullptr ? data.identifier : "";
  out->type = data.type;
  out->unit = data.unit;
  out->value = data.value;
  const QnnProfile_EventId_t* subs = nullptr;
  uint32_t n = 0;
  if (const Qnn_ErrorHandle_t e = qnn.profileGetSubEvents(id, &subs, &n); e != QNN_SUCCESS) {
    *error = "profileGetSubEvents(" + std::to_string(id) + ") failed with error " + std::to_string(e);
    return false;
  }
  // The id array belongs to the backend and may move on its next record:
  // copy it before descending.
  const std::vector<QnnProfile_EventId_t> ids(subs, subs + (subs != nullptr ? n : 0));
  for (QnnProfile_EventId_t sub : ids) {
    ProfileEventRecord child;
    if (!collect_event(qnn, sub, depth + 1, &child, error)) return false;
    out->sub_events.push_back(std::move(child));
  }
  return true;
}

// Written in schema order (ordered_json) so that a person reading the log
// sees format and version first.
using ordered = nlohmann::ordered_json;

ordered event_to_json(const ProfileEventRecord& e) {
  ordered subs = ordered::array();
  for (const auto& s : e.sub_events) subs.push_back(event_to_json(s));
  return ordered{{"identifier", e.identifier}, {"type", e.type}, {"unit", e.unit}, {"value", e.value},
              {"sub_events", std::move(subs)}};
}

// Reading: every accessor checks the type and names the JSON path on error.
struct Reader {
  std::string* error;

  bool fail(const std::string& where, const std::string& what) {
    *error = where + ": " + what;
    return false;
  }
  const json* field(const json& obj, const std::string& where, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      fail(where, std::string("missing \"") + key + "\"");
      return nullptr;
    }
    return &*it;
  }
  bool get_string(const json& obj, const std::string& where, const char* key, std::string* out) {
    const json* v = field(obj, where, key);
    if (v == nullptr) return false;
    if (!v->is_string()) return fail(where + "." + key, "not a string");
    *out = v->get<std::string>();
    return true;
  }
  bool get_u64(const json& obj, const std::string& where, const char* key, uint64_t* out) {
    const json* v = field(obj, where, key);
    if (v == nullptr) return false;
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<int64_t>() >= 0)) {
      return fail(where + "." + key, "not a non-negative integer");
    }
    *out = v->get<uint64_t>();
    return true;
  }
  bool get_u32(const json& obj, const std::string& where, const char* key, uint32_t* out) {
    uint64_t v = 0;
    if (!get_u64(obj, where, key, &v)) return false;
    if (v > UINT32_MAX) return fail(where + "." + key, "above 2^32-1");
    *out = static_cast<uint32_t>(v);
    return true;
  }
  const json* get_array(const json& obj, const std::string& where, const char* key) {
    const json* v = field(obj, where, key);
    if (v == nullptr) return nullptr;
    if (!v->is_array()) {
      fail(where + "." + key, "not an array");
      return nullptr;
    }
    return v;
  }

  bool event(const json& j, const std::string& where, int depth, ProfileEventRecord* out) {
    if (!j.is_object()) return fail(where, "not an object");
    if (depth > kMaxDepth) return fail(where, "nested deeper than " + std::to_string(kMaxDepth));
    if (!get_string(j, where, "identifier", &out->identifier) || !get_u32(j, where, "type", &out->type) ||
        !get_u32(j, where, "unit", &out->unit) || !get_u64(j, where, "value", &out->value)) {
      return false;
    }
    const json* subs = get_array(j, where, "sub_events");
    if (subs == nullptr) return false;
    for (size_t i = 0; i < subs->size(); ++i) {
      ProfileEventRecord child;
      if (!event((*subs)[i], where + ".sub_events[" + std::to_string(i) + "]", depth + 1, &child)) return false;
      out->sub_events.push_back(std::move(child));
    }
    return true;
  }
};

}  // namespace

const char* profiling_level_name(QnnProfile_Level_t level) {
  switch (level) {
    case QNN_PROFILE_LEVEL_BASIC: return "basic";
    case QNN_PROFILE_LEVEL_DETAILED: return "detailed";
    case QNN_PROFILE_LEVEL_BACKEND: return "backend";
    default: return "";
  }
}

void ProfileLog::begin(ProfileRunMeta meta) {
  meta_ = std::move(meta);
  if (meta_.start_unix_us == 0) meta_.start_unix_us = unix_now_us();
  start_ = std::chrono::steady_clock::now();
  phases_.clear();
  taken_.clear();
}

bool ProfileLog::add_phase(const std::string& phase, uint64_t index, const QNN_INTERFACE_VER_TYPE& qnn,
                           Qnn_ProfileHandle_t profile, std::string* error) {
  ProfilePhase p;
  p.phase = phase;
  p.index = index;
  p.end_us = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start_).count());
  if (profile == nullptr) {  // profiling off: an empty phase keeps the run's shape
    phases_.push_back(std::move(p));
    return true;
  }
  if (qnn.profileGetEvents == nullptr || qnn.profileGetSubEvents == nullptr || qnn.profileGetEventData == nullptr) {
    *error = "the backend's interface has no profileGetEvents/getSubEvents/getEventData";
    return false;
  }
  const QnnProfile_EventId_t* ids = nullptr;
  uint32_t n = 0;
  if (const Qnn_ErrorHandle_t e = qnn.profileGetEvents(profile, &ids, &n); e != QNN_SUCCESS) {
    *error = "profileGetEvents failed with error " + std::to_string(e);
    return false;
  }
  const std::vector<QnnProfile_EventId_t> top(ids, ids + (ids != nullptr ? n : 0));
  for (QnnProfile_EventId_t id : top) {
    if (!taken_.insert({profile, id}).second) continue;
    ProfileEventRecord e;
    if (!collect_event(qnn, id, 0, &e, error)) return false;
    p.events.push_back(std::move(e));
  }
  phases_.push_back(std::move(p));
  return true;
}

void ProfileLog::forget_handle(Qnn_ProfileHandle_t profile) {
  taken_.erase(taken_.lower_bound({profile, 0}), taken_.upper_bound({profile, ~QnnProfile_EventId_t{0}}));
}

bool ProfileLog::write(const std::string& path, std::string* error) const {
  ProfileLogWriter w;
  if (!w.open(path, meta_, error)) return false;
  for (const auto& p : phases_) {
    if (!w.add(p, error)) return false;
  }
  return w.finish(error);
}

// The document is nlohmann's dump(1) of {format, version, run, phases}; the
// writer produces it in pieces: the header is the dump with an empty phases
// array, cut before the "[]"; each phase is its own dump(1) indented by the
// two spaces of an element of "phases" (JSON strings never hold a raw
// newline, so indenting line by line is exact).
bool ProfileLogWriter::open(const std::string& path, const ProfileRunMeta& meta, std::string* error) {
  const ordered doc = {{"format", kProfileLogFormat},
                       {"version", kProfileLogVersion},
                       {"run",
                        {{"tool", meta.tool},
                         {"backend", meta.backend},
                         {"graphs", meta.graphs},
                         {"profiling_level", meta.profiling_level},
                         {"start_unix_us", meta.start_unix_us}}},
                       {"phases", ordered::array()}};
  std::string head = doc.dump(1);
  const std::string tail = "[]\n}";
  head.resize(head.size() - tail.size());  // ends in "\"phases\": "
  first_ = true;
  open_ = file_.open(path, error) && file_.write(head + "[", error);
  return open_;
}

bool ProfileLogWriter::add(const ProfilePhase& p, std::string* error) {
  ordered events = ordered::array();
  for (const auto& e : p.events) events.push_back(event_to_json(e));
  const std::string body =
      ordered{{"phase", p.phase}, {"index", p.index}, {"end_us", p.end_us}, {"events", std::move(events)}}.dump(1);
  std::string text = first_ ? "\n  " : ",\n  ";
  text.reserve(body.size() * 2);
  for (char c : body) {
    text += c;
    if (c == '\n') text += "  ";
  }
  first_ = false;
  return file_.write(text, error);
}

bool ProfileLogWriter::finish(std::string* error) {
  open_ = false;
  return file_.write(first_ ? "]\n}\n" : "\n ]\n}\n", error) && file_.commit(error);
}

bool ProfileLog::read(const std::string& path, ProfileLog* out, std::string* error) {
  std::string text;
  if (!read_file_text(path, &text, error)) {
    *error = path + ": " + *error;
    return false;
  }
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    *error = path + ": not JSON (an openhtp profiling log is JSON; QNN's binary logs are not readable)";
    return false;
  }
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kProfileLogFormat) {
    *error = path + ": not an openhtp profiling log (\"format\" is not \"" + kProfileLogFormat + "\")";
    return false;
  }
  if (!doc.contains("version") || doc["version"] != kProfileLogVersion) {
    *error = path + ": log version " + (doc.contains("version") ? doc["version"].dump() : std::string("(none)")) +
             " is not supported (this reader knows version " + std::to_string(kProfileLogVersion) + ")";
    return false;
  }
  std::string why;
  Reader r{&why};
  ProfileLog log;
  const json* run = r.field(doc, "log", "run");
  bool ok = run != nullptr;
  if (ok && !run->is_object()) ok = r.fail("log.run", "not an object");
  ok = ok && r.get_string(*run, "run", "tool", &log.meta_.tool) &&
       r.get_string(*run, "run", "backend", &log.meta_.backend) &&
       r.get_string(*run, "run", "profiling_level", &log.meta_.profiling_level) &&
       r.get_u64(*run, "run", "start_unix_us", &log.meta_.start_unix_us);
  const json* graphs = ok ? r.get_array(*run, "run", "graphs") : nullptr;
  ok = ok && graphs != nullptr;
  for (size_t i = 0; ok && i < graphs->size(); ++i) {
    if (!(*graphs)[i].is_string()) ok = r.fail("run.graphs[" + std::to_string(i) + "]", "not a string");
    else log.meta_.graphs.push_back((*graphs)[i].get<std::string>());
  }
  const json* phases = ok ? r.get_array(doc, "log", "phases") : nullptr;
  ok = ok && phases != nullptr;
  for (size_t i = 0; ok && i < phases->size(); ++i) {
    const std::string where = "phases[" + std::to_string(i) + "]";
    const json& pj = (*phases)[i];
    ProfilePhase p;
    if (!pj.is_object()) {
      ok = r.fail(where, "not an object");
      break;
    }
    ok = r.get_string(pj, where, "phase", &p.phase) && r.get_u64(pj, where, "index", &p.index) &&
         r.get_u64(pj, where, "end_us", &p.end_us);
    if (ok && p.phase != "init" && p.phase != "finalize" && p.phase != "execute" && p.phase != "deinit") {
      ok = r.fail(where + ".phase", "\"" + p.phase + "\" is not init, finalize, execute or deinit");
    }
    const json* events = ok ? r.get_array(pj, where, "events") : nullptr;
    ok = ok && events != nullptr;
    for (size_t k = 0; ok && k < events->size(); ++k) {
      ProfileEventRecord e;
      ok = r.event((*events)[k], where + ".events[" + std::to_string(k) + "]", 0, &e);
      p.events.push_back(std::move(e));
    }
    if (ok) log.phases_.push_back(std::move(p));
  }
  if (!ok) {
    *error = path + ": " + why;
    return false;
  }
  *out = std::move(log);
  return true;
}

}  // namespace openhtp::tools
