#include "chrome_trace.h"

#include <algorithm>
#include <map>

#include "summary.h"

namespace openhtp::tools {

namespace {

using nlohmann::json;

constexpr int kPid = 1;
constexpr uint64_t kSetupTid = 1;
constexpr uint64_t kFirstExecuteTid = 2;
// Execute track t's HVX thread k: track t + (k + 1) * kThreadTrackStride.
constexpr uint64_t kThreadTrackStride = uint64_t{1} << 20;
constexpr const char* kThreadPrefix = "HVX thread ";

bool is_time(const ProfileEventRecord& e) { return e.unit == QNN_PROFILE_EVENTUNIT_MICROSEC; }

// A NODE event's per-thread time (libQnnHtp: "HVX thread k"): k, or -1.
long thread_of(const ProfileEventRecord& parent, const ProfileEventRecord& s) {
  if (parent.type != QNN_PROFILE_EVENTTYPE_NODE || !is_time(s) || s.identifier.rfind(kThreadPrefix, 0) != 0) return -1;
  const std::string k = s.identifier.substr(std::char_traits<char>::length(kThreadPrefix));
  if (k.empty() || k.size() > 3 || k.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stol(k);
}

struct TraceBuilder {
  json events = json::array();
  std::map<uint64_t, std::string> execute_names;  // execute track -> "execute #i"
  std::map<uint64_t, bool> thread_tracks;         // thread tracks named so far

  json args_of(const ProfileEventRecord& e) {
    json a = {{"type", e.type}, {"value", e.value}, {"unit", unit_name(e.unit)}};
    for (const auto& s : e.sub_events) {
      if (!is_time(s)) a[s.identifier + " (" + unit_name(s.unit) + ")"] = s.value;
    }
    return a;
  }

  // Lays `children` (time events) one after the other in [start, end).
  void lay_out(const std::vector<const ProfileEventRecord*>& children, uint64_t start, uint64_t end, uint64_t tid,
               const std::string& cat) {
    uint64_t at = start;
    for (const ProfileEventRecord* c : children) {
      const uint64_t begin = std::min(at, end);
      const uint64_t dur = std::min(c->value, end - begin);
      slice(*c, begin, dur, tid, cat, {});
      at = begin + dur;
    }
  }

  // One slice for `e` and its time sub-events inside it; `adopted` are
  // siblings placed inside this slice (the accelerator slice takes the
  // execute's nodes and other time events).
  void slice(const ProfileEventRecord& e, uint64_t ts, uint64_t dur, uint64_t tid, const std::string& cat,
             const std::vector<const ProfileEventRecord*>& adopted) {
    events.push_back({{"name", e.identifier}, {"cat", cat}, {"ph", "X"}, {"ts", ts}, {"dur", dur}, {"pid", kPid},
                      {"tid", tid}, {"args", args_of(e)}});
    const ProfileEventRecord* device = nullptr;
    std::vector<const ProfileEventRecord*> nodes, others, copies_in, copies_out;
    for (const auto& s : e.sub_events) {
      if (!is_time(s)) continue;
      // A node's per-thread times go to that thread's own track, from the
      // node's start (a thread's share of a node has no start of its own).
      if (const long k = thread_of(e, s); k >= 0) {
        thread_slice(e, s, ts, std::min(s.value, dur), tid, static_cast<uint64_t>(k), cat);
        continue;
      }
      if (s.type == QNN_PROFILE_EVENTTYPE_EXECUTE_DEVICE && device == nullptr) device = &s;
      else if (s.type == QNN_PROFILE_EVENTTYPE_NODE) nodes.push_back(&s);
      // openhtp's transport copies ("copy in time", "copy out time") happen
      // before and after the accelerator's part, beside it, not inside; so
      // does a wait for the HTP ("queue wait time": before it started) and
      // the time it was paused for higher-priority executes ("preempted
      // time": its accelerator time leaves it out; drawn after it).
      else if (s.value > 0 && (s.identifier.rfind("copy in", 0) == 0 || s.identifier.rfind("queue wait", 0) == 0)) {
        copies_in.push_back(&s);
      } else if (s.value > 0 && (s.identifier.rfind("copy out", 0) == 0 || s.identifier.rfind("preempted", 0) == 0)) {
        copies_out.push_back(&s);
      }
      else if (s.value > 0) others.push_back(&s);
    }
    for (const ProfileEventRecord* a : adopted) {
      (a->type == QNN_PROFILE_EVENTTYPE_NODE ? nodes : others).push_back(a);
    }
    std::vector<const ProfileEventRecord*> inner = nodes;
    inner.insert(inner.end(), others.begin(), others.end());
    if (device != nullptr) {
      uint64_t at = ts;
      const uint64_t end = ts + dur;
      auto beside = [&](const std::vector<const ProfileEventRecord*>& copies) {
        for (const ProfileEventRecord* c : copies) {
          const uint64_t d = std::min(c->value, end - std::min(at, end));
          slice(*c, std::min(at, end), d, tid, cat, {});
          at = std::min(at, end) + d;
        }
      };
      beside(copies_in);
      const uint64_t device_ts = std::min(at, end);
      const uint64_t device_dur = std::min(device->value, end - device_ts);
      slice(*device, device_ts, device_dur, tid, cat, inner);
      at = device_ts + device_dur;
      beside(copies_out);
    } else {
      inner.insert(inner.begin(), copies_in.begin(), copies_in.end());
      inner.insert(inner.end(), copies_out.begin(), copies_out.end());
      lay_out(inner, ts, ts + dur, tid, cat);
    }
  }

  void thread_slice(const ProfileEventRecord& node, const ProfileEventRecord& s, uint64_t ts, uint64_t dur,
                    uint64_t node_tid, uint64_t k, const std::string& cat) {
    // Node slices sit on an execute's track; its threads' tracks hang off it.
    const uint64_t exec_tid = node_tid % kThreadTrackStride;
    const uint64_t tid = exec_tid + (k + 1) * kThreadTrackStride;
    if (!thread_tracks[tid]) {
      thread_tracks[tid] = true;
      const auto name = execute_names.find(exec_tid);
      metadata("thread_name", tid, (name != execute_names.end() ? name->second : std::string("execute")) + " " +
                                       kThreadPrefix + std::to_string(k));
    }
    events.push_back({{"name", node.identifier}, {"cat", cat}, {"ph", "X"}, {"ts", ts}, {"dur", dur}, {"pid", kPid},
                      {"tid", tid}, {"args", {{"thread", s.identifier}, {"cpu time (us)", s.value}}}});
  }

  void counter(const ProfileEventRecord& e, uint64_t ts, uint64_t tid) {
    json a = json::object();
    for (const auto& s : e.sub_events) {
      if (s.unit == QNN_PROFILE_EVENTUNIT_BYTES) a[s.identifier] = s.value;
    }
    if (a.empty()) return;
    events.push_back({{"name", "bytes: " + e.identifier}, {"cat", "execute"}, {"ph", "C"}, {"ts", ts},
                      {"pid", kPid}, {"tid", tid}, {"args", std::move(a)}});
  }

  void metadata(const char* what, uint64_t tid, const std::string& name) {
    json m = {{"name", what}, {"ph", "M"}, {"pid", kPid}, {"args", {{"name", name}}}};
    if (tid != 0) m["tid"] = tid;
    events.push_back(std::move(m));
  }
};

}  // namespace

json chrome_trace(const ProfileLog& log) {
  TraceBuilder b;
  const auto& m = log.meta();
  b.metadata("process_name", 0, (m.backend.empty() ? std::string("QNN backend") : m.backend) + " profile (" + m.tool + ")");
  b.metadata("thread_name", kSetupTid, "init / finalize / de-init");
  // Slices of one track must not overlap: a phase starts no earlier than
  // the previous one on its track ended.
  std::map<uint64_t, uint64_t> track_end;
  for (const auto& p : log.phases()) {
    const bool execute = p.phase == "execute";
    const uint64_t tid = execute ? kFirstExecuteTid + p.index : kSetupTid;
    if (execute) {
      b.execute_names[tid] = "execute #" + std::to_string(p.index);
      b.metadata("thread_name", tid, b.execute_names[tid]);
    }
    // A top-level event at least as long as all the others together (a
    // tool's own "NetRun" time around the backend's events) is the phase's
    // envelope: the others lie inside it, at its end.
    uint64_t total = 0;
    const ProfileEventRecord* envelope = nullptr;
    size_t timed = 0;
    for (const auto& e : p.events) {
      if (!is_time(e)) continue;
      total += e.value;
      ++timed;
      if (envelope == nullptr || e.value > envelope->value) envelope = &e;
    }
    if (timed < 2 || envelope->value < total - envelope->value) envelope = nullptr;
    const uint64_t span = envelope != nullptr ? envelope->value : total;
    const uint64_t start = std::max(p.end_us >= span ? p.end_us - span : 0, track_end[tid]);
    uint64_t at = envelope != nullptr ? start + span - (total - envelope->value) : start;
    for (const auto& e : p.events) {
      if (!is_time(e)) continue;
      const uint64_t ts = &e == envelope ? start : at;
      b.slice(e, ts, e.value, tid, p.phase, {});
      if (execute) b.counter(e, ts, tid);
      if (&e != envelope) at += e.value;
    }
    at = start + span;
    track_end[tid] = at;
  }
  // Metadata first, then by start, a parent before the children that start
  // with it: viewers that take equal-ts slices in file order nest them right.
  std::stable_sort(b.events.begin(), b.events.end(), [](const json& x, const json& y) {
    const bool xm = x["ph"] == "M", ym = y["ph"] == "M";
    if (xm != ym) return xm;
    if (xm) return false;
    const uint64_t xt = x["ts"], yt = y["ts"];
    if (xt != yt) return xt < yt;
    return x.value("dur", uint64_t{0}) > y.value("dur", uint64_t{0});
  });
  return json{{"traceEvents", std::move(b.events)}, {"displayTimeUnit", "ms"},
              {"otherData", {{"format", "openhtp qnn-profile-viewer"}, {"profiling_level", m.profiling_level}}}};
}

}  // namespace openhtp::tools
