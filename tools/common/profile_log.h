// The profiling log the openhtp tools write (qnn-net-run --profiling_level)
// and read (qnn-profile-viewer): `qnn-profiling-data_0.log`.
//
// QNN's own log is a binary format it does not document, so openhtp's is
// JSON, versioned, and holds exactly what the QNN profile API gave: for each
// phase of a run (init, finalize, execute #k, deinit) the tree of events that
// QnnProfile_getEvents / getSubEvents / getEventData returned for it.
//
// Schema, version 1 (docs/tools.md, "qnn-profile-viewer", says the same):
//   {
//     "format": "openhtp-profile",           // required, exactly this
//     "version": 1,                          // required; a reader refuses others
//     "run": {
//       "tool": "qnn-net-run",               // who wrote the log
//       "backend": "libQnnHtp.so",
//       "graphs": ["g0", ...],
//       "profiling_level": "basic",          // basic | detailed | backend
//       "start_unix_us": 1700000000000000    // wall clock when the run began
//     },
//     "phases": [
//       { "phase": "init" | "finalize" | "execute" | "deinit",
//         "index": 0,                        // execute number k (0, 1, ...); 0 for the others
//         "end_us": 1234,                    // steady clock, µs since the run began, when the
//                                            // phase's events were collected (its end)
//         "events": [ EVENT, ... ] }         // top-level events, in the backend's order
//     ]
//   }
//   EVENT = { "identifier": "graph execute: g0",
//             "type": 400,                   // QnnProfile_EventType_t (QnnProfile.h)
//             "unit": 1,                     // QnnProfile_EventUnit_t: 1 µs, 2 bytes, 3 cycles, 4 count, ...
//             "value": 812,                  // QnnProfile_EventValue_t
//             "sub_events": [ EVENT, ... ] } // may be empty
// A writer may add keys; a reader ignores keys it does not know.
#pragma once

#include <chrono>
#include <cstdint>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "common/output_file.h"

namespace openhtp::tools {

struct ProfileEventRecord {
  std::string identifier;
  QnnProfile_EventType_t type = 0;
  QnnProfile_EventUnit_t unit = QNN_PROFILE_EVENTUNIT_MICROSEC;
  uint64_t value = 0;
  std::vector<ProfileEventRecord> sub_events;
};

struct ProfilePhase {
  std::string phase;  // init | finalize | execute | deinit
  uint64_t index = 0;  // execute number; 0 for the other phases
  uint64_t end_us = 0;
  std::vector<ProfileEventRecord> events;
};

struct ProfileRunMeta {
  std::string tool;
  std::string backend;
  std::vector<std::string> graphs;
  std::string profiling_level = "basic";  // basic | detailed | backend
  uint64_t start_unix_us = 0;             // set by begin() when 0
};

constexpr const char* kProfileLogFormat = "openhtp-profile";
constexpr int kProfileLogVersion = 1;
constexpr const char* kProfileLogFileName = "qnn-profiling-data_0.log";

// "basic" / "detailed" / "backend" for a QNN profile level; "" for others.
const char* profiling_level_name(QnnProfile_Level_t level);

class ProfileLog {
 public:
  // Starts a run: remembers `meta` and the clock that phases' end_us count from.
  void begin(ProfileRunMeta meta);

  // Appends a phase made of the top-level events on `profile` that no earlier
  // add_phase call took (one handle may serve the whole run: each call takes
  // what was recorded since the previous one), with their sub-events.
  // False + *error naming the failed call.
  bool add_phase(const std::string& phase, uint64_t index, const QNN_INTERFACE_VER_TYPE& qnn,
                 Qnn_ProfileHandle_t profile, std::string* error);

  // Writes the log as JSON (through ProfileLogWriter). False + *error on an
  // unwritable path; the file is then left as it was.
  bool write(const std::string& path, std::string* error) const;

  // Reads and checks a log (format, version, every field's type).
  // False + *error saying what is wrong, where.
  static bool read(const std::string& path, ProfileLog* out, std::string* error);

  const ProfileRunMeta& meta() const { return meta_; }
  const std::vector<ProfilePhase>& phases() const { return phases_; }
  // For tests and tools that build a log without a backend.
  void add_phase(ProfilePhase phase) { phases_.push_back(std::move(phase)); }
  // Hands over the phases collected so far (a streaming writer takes each
  // as it ends, so that a long run's memory stays flat).
  std::vector<ProfilePhase> take_phases() { return std::exchange(phases_, {}); }
  // Forgets which events of `profile` were taken, once the handle is freed
  // (a later handle may reuse its address; a long run keeps no history).
  void forget_handle(Qnn_ProfileHandle_t profile);

 private:
  ProfileRunMeta meta_;
  std::vector<ProfilePhase> phases_;
  std::chrono::steady_clock::time_point start_{};
  // (profile handle, event id) pairs already in a phase. Ids are unique per
  // backend, the handle is kept in case a backend numbers per handle.
  std::set<std::pair<Qnn_ProfileHandle_t, QnnProfile_EventId_t>> taken_;
};

// Writes a log phase by phase, as a run makes them: the header (format,
// version, run) at open, each phase as it is added, the closing brackets at
// finish. The bytes are the same as ProfileLog::write's (it uses this
// class), so readers see one format. The file is an OutputFile: it appears
// under its name only when finish() succeeds; a run that fails part-way
// leaves no truncated log.
class ProfileLogWriter {
 public:
  bool open(const std::string& path, const ProfileRunMeta& meta, std::string* error);
  bool add(const ProfilePhase& phase, std::string* error);
  bool finish(std::string* error);
  bool is_open() const { return open_; }

 private:
  OutputFile file_;
  bool open_ = false;
  bool first_ = true;
};

}  // namespace openhtp::tools
