// The profiling log (tools/common/profile_log) and qnn-profile-viewer, end to
// end. A real log: a two-node graph built, finalized and executed here through
// the QNN API with a DETAILED profile handle, each phase's events written with
// ProfileLog exactly as qnn-net-run does. The test reads the same events
// straight from the API too, and recomputes from the log's JSON everything the
// viewer must print: count/min/max/average per event (summary and CSV) and the
// trace's slices. A hand-made log adds what the backend does not emit yet
// (per-node events, waits, VTCM save/restore times) to check the trace's
// per-node slices and their nesting. Then the refusals.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "QnnInterface.h"
#include "QnnOpDef.h"
#include "common/profile_log.h"
#include "scratch_dir.h"
#include "tool_run.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kGraph = "profiled_relu2";
constexpr int kExecutes = 3;

const QNN_INTERFACE_VER_TYPE& api() {
  static const QNN_INTERFACE_VER_TYPE* table = [] {
    const QnnInterface_t** providers = nullptr;
    uint32_t n = 0;
    if (QnnInterface_getProviders(&providers, &n) != QNN_SUCCESS || n < 1) std::abort();
    return &providers[0]->QNN_INTERFACE_VER_NAME;
  }();
  return *table;
}

Qnn_Tensor_t tensor(const char* name, Qnn_TensorType_t type, uint32_t* dims) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.v1.name = name;
  t.v1.type = type;
  t.v1.dataFormat = QNN_TENSOR_DATA_FORMAT_FLAT_BUFFER;
  t.v1.dataType = QNN_DATATYPE_FLOAT_32;
  t.v1.rank = 2;
  t.v1.dimensions = dims;
  t.v1.memType = QNN_TENSORMEMTYPE_RAW;
  return t;
}

Qnn_OpConfig_t relu(const char* name, Qnn_Tensor_t* in, Qnn_Tensor_t* out) {
  Qnn_OpConfig_t o = QNN_OPCONFIG_INIT;
  o.v1.name = name;
  o.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  o.v1.typeName = QNN_OP_RELU;
  o.v1.numOfInputs = 1;
  o.v1.inputTensors = in;
  o.v1.numOfOutputs = 1;
  o.v1.outputTensors = out;
  return o;
}

// An event tree read straight from the API, to hold the log against.
json api_event(QnnProfile_EventId_t id) {
  QnnProfile_EventData_t d = QNN_PROFILE_EVENT_DATA_INIT;
  EXPECT_EQ(api().profileGetEventData(id, &d), QNN_SUCCESS);
  const QnnProfile_EventId_t* subs = nullptr;
  uint32_t n = 0;
  EXPECT_EQ(api().profileGetSubEvents(id, &subs, &n), QNN_SUCCESS);
  const std::vector<QnnProfile_EventId_t> ids(subs, subs + n);
  json children = json::array();
  for (auto s : ids) children.push_back(api_event(s));
  return {{"identifier", d.identifier}, {"type", d.type}, {"unit", d.unit}, {"value", d.value},
          {"sub_events", children}};
}

// Runs the graph with profiling and writes `log_path`; returns, per phase
// (in order), the events as the API gave them.
std::vector<json> make_real_log(const fs::path& log_path) {
  std::vector<json> from_api;
  Qnn_LogHandle_t logger = nullptr;
  Qnn_BackendHandle_t backend = nullptr;
  Qnn_ContextHandle_t ctx = nullptr;
  Qnn_ProfileHandle_t profile = nullptr;
  EXPECT_EQ(api().logCreate(nullptr, QNN_LOG_LEVEL_ERROR, &logger), QNN_SUCCESS);
  EXPECT_EQ(api().backendCreate(logger, nullptr, &backend), QNN_SUCCESS);
  EXPECT_EQ(api().profileCreate(backend, QNN_PROFILE_LEVEL_DETAILED, &profile), QNN_SUCCESS);
  EXPECT_EQ(api().contextCreate(backend, nullptr, nullptr, &ctx), QNN_SUCCESS);

  openhtp::tools::ProfileLog log;
  log.begin({"profile_viewer_test", "libQnnHtp.so", {kGraph}, "detailed", 0});
  std::string error;
  size_t seen = 0;  // top-level events already attributed to a phase
  auto phase = [&](const char* name, uint64_t k) {
    EXPECT_TRUE(log.add_phase(name, k, api(), profile, &error)) << error;
    const QnnProfile_EventId_t* ids = nullptr;
    uint32_t n = 0;
    EXPECT_EQ(api().profileGetEvents(profile, &ids, &n), QNN_SUCCESS);
    json events = json::array();
    for (uint32_t i = seen; i < n; ++i) events.push_back(api_event(ids[i]));
    seen = n;
    from_api.push_back(events);
  };

  uint32_t dims[] = {1, 16};
  Qnn_GraphHandle_t graph = nullptr;
  EXPECT_EQ(api().graphCreate(ctx, kGraph, nullptr, &graph), QNN_SUCCESS);
  Qnn_Tensor_t in = tensor("in", QNN_TENSOR_TYPE_APP_WRITE, dims);
  Qnn_Tensor_t mid = tensor("mid", QNN_TENSOR_TYPE_NATIVE, dims);
  Qnn_Tensor_t out = tensor("out", QNN_TENSOR_TYPE_APP_READ, dims);
  for (Qnn_Tensor_t* t : {&in, &mid, &out}) EXPECT_EQ(api().tensorCreateGraphTensor(graph, t), QNN_SUCCESS);
  EXPECT_EQ(api().graphAddNode(graph, relu("relu_a", &in, &mid)), QNN_SUCCESS);
  EXPECT_EQ(api().graphAddNode(graph, relu("relu_b", &mid, &out)), QNN_SUCCESS);
  EXPECT_EQ(api().graphFinalize(graph, profile, nullptr), QNN_SUCCESS);
  phase("init", 0);

  std::vector<float> x(16), y(16);
  for (int k = 0; k < kExecutes; ++k) {
    for (int i = 0; i < 16; ++i) x[i] = static_cast<float>((i * 7 + k) % 11) - 5.0f;
    in.v1.clientBuf = {x.data(), static_cast<uint32_t>(x.size() * sizeof(float))};
    out.v1.clientBuf = {y.data(), static_cast<uint32_t>(y.size() * sizeof(float))};
    EXPECT_EQ(api().graphExecute(graph, &in, 1, &out, 1, profile, nullptr), QNN_SUCCESS);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(y[i], x[i] > 0 ? x[i] : 0.0f) << "execute " << k << " output " << i;
    phase("execute", k);
  }
  EXPECT_EQ(api().contextFree(ctx, profile), QNN_SUCCESS);
  phase("deinit", 0);
  EXPECT_TRUE(log.write(log_path.string(), &error)) << error;
  api().profileFree(profile);
  api().backendFree(backend);
  api().logFree(logger);
  return from_api;
}

// The test's own aggregation of a log, independent of the viewer's code.
struct Agg {
  std::string phase, event;
  uint32_t type = 0, unit = 0;
  uint64_t count = 0, min = UINT64_MAX, max = 0, total = 0;
};

void aggregate(const std::string& phase, const std::string& parent, const json& e, std::vector<Agg>* rows) {
  const std::string path = parent.empty() ? e["identifier"].get<std::string>()
                                          : parent + " / " + e["identifier"].get<std::string>();
  Agg* r = nullptr;
  for (auto& a : *rows) {
    if (a.phase == phase && a.event == path) r = &a;
  }
  if (r == nullptr) {
    rows->push_back({phase, path, e["type"].get<uint32_t>(), e["unit"].get<uint32_t>()});
    r = &rows->back();
  }
  const uint64_t v = e["value"].get<uint64_t>();
  r->count++;
  r->min = std::min(r->min, v);
  r->max = std::max(r->max, v);
  r->total += v;
  for (const auto& s : e["sub_events"]) aggregate(phase, path, s, rows);
}

std::vector<Agg> aggregate_log(const json& log) {
  std::vector<Agg> rows;
  for (const char* phase : {"init", "finalize", "execute", "deinit"}) {
    for (const auto& p : log["phases"]) {
      if (p["phase"] != phase) continue;
      for (const auto& e : p["events"]) aggregate(phase, "", e, &rows);
    }
  }
  return rows;
}

std::string average_text(const Agg& a) {
  if (a.total % a.count == 0) return std::to_string(a.total / a.count);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(a.total) / static_cast<double>(a.count));
  return buf;
}

const char* unit_text(uint32_t unit) {
  switch (unit) {
    case 1: return "us";
    case 2: return "bytes";
    case 3: return "cycles";
    case 4: return "count";
    default: return "?";
  }
}

// Splits one CSV line (RFC 4180 quoting).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') f.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else f.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      f.emplace_back();
    } else {
      f.back() += c;
    }
  }
  return f;
}

// Every X slice of a trace, by track.
std::map<uint64_t, std::vector<json>> slices_by_tid(const json& trace) {
  std::map<uint64_t, std::vector<json>> out;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") out[e["tid"].get<uint64_t>()].push_back(e);
  }
  return out;
}

// Chrome trace-event fields every event must have for the viewers to load it.
void expect_valid_trace(const json& trace) {
  ASSERT_TRUE(trace.is_object());
  ASSERT_TRUE(trace.contains("traceEvents") && trace["traceEvents"].is_array());
  for (const auto& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << e.dump();
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e.dump();
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e.dump();
    const std::string ph = e["ph"];
    ASSERT_TRUE(ph == "X" || ph == "M" || ph == "C") << e.dump();
    if (ph == "X" || ph == "C") {
      ASSERT_TRUE(e["ts"].is_number() && e["tid"].is_number_integer()) << e.dump();
    }
    if (ph == "X") {
      ASSERT_TRUE(e["dur"].is_number() && e["dur"].get<double>() >= 0) << e.dump();
    }
    if (ph == "M") {
      ASSERT_TRUE(e["args"]["name"].is_string()) << e.dump();
    }
  }
}

bool within(const json& inner, const json& outer) {
  const uint64_t a = inner["ts"], b = outer["ts"];
  return a >= b && a + inner["dur"].get<uint64_t>() <= b + outer["dur"].get<uint64_t>();
}

class ProfileViewer : public ScratchDirTest {
 protected:
  ProfileViewer() : ScratchDirTest("openhtp_pview") {}
};

TEST_F(ProfileViewer, LogHoldsExactlyWhatTheApiGave) {
  const fs::path path = dir_ / openhtp::tools::kProfileLogFileName;
  const std::vector<json> from_api = make_real_log(path);
  const json log = json::parse(read_text(path));
  EXPECT_EQ(log["format"], "openhtp-profile");
  EXPECT_EQ(log["version"], 1);
  EXPECT_EQ(log["run"]["backend"], "libQnnHtp.so");
  EXPECT_EQ(log["run"]["graphs"], json::array({kGraph}));
  EXPECT_EQ(log["run"]["profiling_level"], "detailed");
  ASSERT_EQ(log["phases"].size(), from_api.size());
  uint64_t last_end = 0;
  for (size_t i = 0; i < from_api.size(); ++i) {
    const json& p = log["phases"][i];
    EXPECT_EQ(p["events"], from_api[i]) << "phase " << i;
    EXPECT_GE(p["end_us"].get<uint64_t>(), last_end);
    last_end = p["end_us"];
  }
  EXPECT_EQ(log["phases"][0]["phase"], "init");
  ASSERT_EQ(log["phases"][0]["events"].size(), 1u);  // the graph's finalize
  EXPECT_EQ(log["phases"][0]["events"][0]["type"], QNN_PROFILE_EVENTTYPE_FINALIZE);
  for (int k = 0; k < kExecutes; ++k) {
    const json& p = log["phases"][1 + k];
    EXPECT_EQ(p["phase"], "execute");
    EXPECT_EQ(p["index"], k);
    ASSERT_EQ(p["events"].size(), 1u) << "execute " << k << " took exactly its own event";
    EXPECT_EQ(p["events"][0]["identifier"], std::string("graph execute: ") + kGraph);
    EXPECT_FALSE(p["events"][0]["sub_events"].empty());
  }
  // The reader gives back what the writer wrote.
  openhtp::tools::ProfileLog back;
  std::string error;
  ASSERT_TRUE(openhtp::tools::ProfileLog::read(path.string(), &back, &error)) << error;
  ASSERT_EQ(back.phases().size(), from_api.size());
  EXPECT_EQ(back.phases()[1].events[0].sub_events.size(), log["phases"][1]["events"][0]["sub_events"].size());
  EXPECT_EQ(back.meta().graphs, std::vector<std::string>{kGraph});
}

TEST_F(ProfileViewer, SummaryAndCsvMatchTheLog) {
  const fs::path path = dir_ / "qnn-profiling-data_0.log";
  make_real_log(path);
  const json log = json::parse(read_text(path));
  const std::vector<Agg> want = aggregate_log(log);
  ASSERT_FALSE(want.empty());

  const fs::path csv = dir_ / "summary.csv";
  const RunResult r = run_tool(OPENHTP_PROFILE_VIEWER,
                               "--input_log " + quote(path.string()) + " --output " + quote(csv.string()), dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("Init Stats:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("De-Init Stats:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Execute Stats (Average):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Executes: " + std::to_string(kExecutes) + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Num times yield occurred"), std::string::npos) << r.out;
  // Every execute event's overall line, numbers recomputed here.
  for (const Agg& a : want) {
    if (a.phase != "execute") continue;
    const std::string leaf = a.event.substr(a.event.rfind(" / ") == std::string::npos ? 0 : a.event.rfind(" / ") + 3);
    const std::string line = leaf + " (" + unit_text(a.unit) + "): count " + std::to_string(a.count) + ", average " +
                             average_text(a) + ", min " + std::to_string(a.min) + ", max " + std::to_string(a.max) +
                             ", total " + std::to_string(a.total) + "\n";
    EXPECT_NE(r.out.find(line), std::string::npos) << "missing: " << line << "in:\n" << r.out;
    // Every event is in every execute, except a node's per-thread times: a
    // thread that did not run the node in an execute has no event there.
    if (a.event.find(" / HVX thread ") == std::string::npos) {
      EXPECT_EQ(a.count, static_cast<uint64_t>(kExecutes)) << a.event;
    } else {
      EXPECT_LE(a.count, static_cast<uint64_t>(kExecutes)) << a.event;
    }
  }
  // The finalize in Init Stats.
  const Agg& fin = want.front();
  EXPECT_EQ(fin.phase, "init");
  EXPECT_NE(r.out.find("    " + fin.event + ": " + std::to_string(fin.total) + " us\n"), std::string::npos) << r.out;

  // The CSV: a header, then exactly the recomputed rows in order.
  std::istringstream lines(read_text(csv));
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line, "phase,event,type,unit,count,average,min,max,total");
  size_t i = 0;
  while (std::getline(lines, line)) {
    ASSERT_LT(i, want.size()) << "extra CSV row: " << line;
    const auto f = csv_fields(line);
    ASSERT_EQ(f.size(), 9u) << line;
    const Agg& a = want[i++];
    EXPECT_EQ(f[0], a.phase);
    EXPECT_EQ(f[1], a.event);
    EXPECT_EQ(std::stoul(f[2]), a.type) << line;
    EXPECT_EQ(f[3], unit_text(a.unit)) << line;
    EXPECT_EQ(std::stoull(f[4]), a.count) << line;
    EXPECT_NEAR(std::stod(f[5]), static_cast<double>(a.total) / static_cast<double>(a.count), 0.006) << line;
    EXPECT_EQ(std::stoull(f[6]), a.min) << line;
    EXPECT_EQ(std::stoull(f[7]), a.max) << line;
    EXPECT_EQ(std::stoull(f[8]), a.total) << line;
  }
  EXPECT_EQ(i, want.size());
}

TEST_F(ProfileViewer, ChromeTraceOfARealRun) {
  const fs::path path = dir_ / "qnn-profiling-data_0.log";
  make_real_log(path);
  const json log = json::parse(read_text(path));
  const fs::path out = dir_ / "trace.json";
  const RunResult r = run_tool(OPENHTP_PROFILE_VIEWER, "--input_log " + quote(path.string()) +
                                     " --reader /opt/qnn/lib/libQnnChrometraceProfilingReader.so --output " +
                                     quote(out.string()),
                                 dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  const json trace = json::parse(read_text(out));
  expect_valid_trace(trace);
  auto tracks = slices_by_tid(trace);
  for (int k = 0; k < kExecutes; ++k) {
    const auto& track = tracks[2 + k];
    const json& ev = log["phases"][1 + k]["events"][0];
    ASSERT_FALSE(track.empty()) << "execute " << k;
    // First slice: the execute, as long as its event; all others inside it.
    EXPECT_EQ(track[0]["name"], ev["identifier"]);
    EXPECT_EQ(track[0]["dur"], ev["value"]);
    size_t time_subs = 0;
    for (const auto& s : ev["sub_events"]) {
      // A slice per time event that lasted, plus the accelerator (407) and
      // every node (404) however short.
      if (s["unit"] == QNN_PROFILE_EVENTUNIT_MICROSEC && (s["value"] != 0 || s["type"] == 407 || s["type"] == 404)) {
        ++time_subs;
      }
      if (s["unit"] == QNN_PROFILE_EVENTUNIT_BYTES || s["unit"] == QNN_PROFILE_EVENTUNIT_COUNT) {
        EXPECT_EQ(track[0]["args"][s["identifier"].get<std::string>() + " (" + unit_text(s["unit"]) + ")"], s["value"]);
      }
    }
    EXPECT_EQ(track.size(), 1 + time_subs) << "execute " << k;
    for (size_t i = 1; i < track.size(); ++i) EXPECT_TRUE(within(track[i], track[0])) << track[i].dump();
  }
  // Init (the finalize) on track 1, ending by the phase's end.
  ASSERT_EQ(tracks[1].size(), 1u);
  EXPECT_EQ(tracks[1][0]["dur"], log["phases"][0]["events"][0]["value"]);
  EXPECT_LE(tracks[1][0]["ts"].get<uint64_t>() + tracks[1][0]["dur"].get<uint64_t>(),
            log["phases"][0]["end_us"].get<uint64_t>());
}

// A hand-made log with what a short real run lacks: per-node events of known
// length inside the accelerator time, a queue wait, VTCM save/restore times.
json handmade_log() {
  auto ev = [](const std::string& id, uint32_t type, uint32_t unit, uint64_t v, json subs = json::array()) {
    return json{{"identifier", id}, {"type", type}, {"unit", unit}, {"value", v}, {"sub_events", subs}};
  };
  json phases = json::array();
  phases.push_back({{"phase", "init"}, {"index", 0}, {"end_us", 900},
                    {"events", {ev("graph finalize: g", 300, 1, 800)}}});
  for (int k = 0; k < 2; ++k) {
    json device = ev("accelerator execute", 407, 1, 300 + 10 * k);
    json subs = {device,
                 ev("conv, 1", 404, 1, 100 + k),  // a comma: CSV quoting
                 ev("relu", 404, 1, 20),
                 ev("pool", 404, 1, 30 + 2 * k),
                 ev("queue wait", 405, 1, 40),
                 ev("VTCM save time", 400, 1, 5),
                 ev("VTCM restore time", 400, 1, 6),
                 ev("bytes copied in", 400, 2, 4096),
                 ev("Num times yield occurred", 400, 4, 1)};
    // "NetRun": the tool's own time around the backend's event.
    phases.push_back({{"phase", "execute"}, {"index", k}, {"end_us", 2000 + 1000 * k},
                      {"events", {ev("graph execute: g", 400, 1, 500, subs), ev("NetRun", 400, 1, 650)}}});
  }
  phases.push_back({{"phase", "deinit"}, {"index", 0}, {"end_us", 5000}, {"events", json::array()}});
  return {{"format", "openhtp-profile"}, {"version", 1},
          {"run", {{"tool", "test"}, {"backend", "libQnnHtp.so"}, {"graphs", {"g"}}, {"profiling_level", "detailed"},
                   {"start_unix_us", 0}}},
          {"phases", phases}};
}

TEST_F(ProfileViewer, TraceHasOneSlicePerNodePerExecuteNestedInIt) {
  const fs::path path = dir_ / "handmade.log";
  std::ofstream(path) << handmade_log().dump();
  const fs::path out = dir_ / "trace.json";
  const fs::path csv = dir_ / "rows.csv";
  const RunResult r = run_tool(
      OPENHTP_PROFILE_VIEWER,
      "--input_log " + quote(path.string()) + " --trace " + quote(out.string()) + " --output " + quote(csv.string()),
      dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  const json trace = json::parse(read_text(out));
  expect_valid_trace(trace);
  auto tracks = slices_by_tid(trace);
  for (int k = 0; k < 2; ++k) {
    const auto& track = tracks[2 + k];
    std::map<std::string, json> by_name;
    for (const auto& s : track) {
      EXPECT_EQ(by_name.count(s["name"]), 0u) << "two slices named " << s["name"];
      by_name[s["name"]] = s;
    }
    ASSERT_EQ(track.size(), 9u);  // NetRun, execute, accelerator, 3 nodes, wait, save, restore
    const json& exec = by_name["graph execute: g"];
    const json& netrun = by_name["NetRun"];
    EXPECT_EQ(netrun["dur"], 650);
    EXPECT_EQ(netrun["ts"].get<uint64_t>() + 650, 2000u + 1000u * k);
    EXPECT_TRUE(within(exec, netrun));
    const json& device = by_name["accelerator execute"];
    EXPECT_EQ(exec["dur"], 500);
    EXPECT_EQ(exec["ts"].get<uint64_t>() + 500, 2000u + 1000u * k);  // ends at the phase's end
    EXPECT_EQ(device["dur"], 300 + 10 * k);
    EXPECT_TRUE(within(device, exec));
    const std::map<std::string, uint64_t> nodes = {{"conv, 1", 100 + k}, {"relu", 20}, {"pool", 30 + 2 * k}};
    uint64_t prev_end = device["ts"];
    for (const char* n : {"conv, 1", "relu", "pool"}) {
      ASSERT_TRUE(by_name.count(n)) << n;
      const json& s = by_name[n];
      EXPECT_EQ(s["dur"], nodes.at(n)) << n;
      EXPECT_TRUE(within(s, device)) << n;
      EXPECT_EQ(s["ts"], prev_end) << n << " follows the previous node";
      prev_end = s["ts"].get<uint64_t>() + s["dur"].get<uint64_t>();
    }
    // VTCM save/restore happen during the accelerator's time; a queue wait
    // before it started, inside the execute.
    for (const char* n : {"VTCM save time", "VTCM restore time"}) {
      ASSERT_TRUE(by_name.count(n)) << n;
      EXPECT_TRUE(within(by_name[n], device)) << n;
    }
    ASSERT_TRUE(by_name.count("queue wait"));
    EXPECT_TRUE(within(by_name["queue wait"], exec));
    EXPECT_LE(by_name["queue wait"]["ts"].get<uint64_t>() + by_name["queue wait"]["dur"].get<uint64_t>(),
              device["ts"].get<uint64_t>());
    EXPECT_EQ(exec["args"]["bytes copied in (bytes)"], 4096);
    EXPECT_EQ(exec["args"]["Num times yield occurred (count)"], 1);
  }
  // Per-node rows, the comma quoted.
  const std::string rows = read_text(csv);
  EXPECT_NE(rows.find("execute,\"graph execute: g / conv, 1\",404,us,2,100.50,100,101,201\n"), std::string::npos)
      << rows;
  EXPECT_NE(r.out.find("graph execute: g / pool: 31 us (min 30, max 32)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Num times yield occurred: total 2 count over 2 executes (max 1)"), std::string::npos)
      << r.out;
}

// libQnnHtp's NODE events carry "HVX thread k" sub-events (each thread's
// CPU time on the node): each becomes a slice named by the node on that
// thread's own track, from the node's start, never longer than the node.
TEST_F(ProfileViewer, NodeThreadTimesGetTrackOfTheirOwn) {
  auto ev = [](const std::string& id, uint32_t type, uint32_t unit, uint64_t v, json subs = json::array()) {
    return json{{"identifier", id}, {"type", type}, {"unit", unit}, {"value", v}, {"sub_events", subs}};
  };
  json conv = ev("conv", 404, 1, 100, {ev("HVX thread 0", 404, 1, 90), ev("HVX thread 1", 404, 1, 120)});
  json relu = ev("relu", 404, 1, 20, {ev("HVX thread 0", 404, 1, 15)});
  json device = ev("accelerator execute", 407, 1, 130);
  json log = {{"format", "openhtp-profile"}, {"version", 1},
              {"run", {{"tool", "test"}, {"backend", "libQnnHtp.so"}, {"graphs", {"g"}},
                       {"profiling_level", "detailed"}, {"start_unix_us", 0}}},
              {"phases", {{{"phase", "execute"}, {"index", 0}, {"end_us", 1000},
                           {"events", {ev("graph execute: g", 400, 1, 150, {device, conv, relu})}}}}}};
  const fs::path path = dir_ / "threads.log";
  std::ofstream(path) << log.dump();
  const fs::path out = dir_ / "trace.json";
  const RunResult r =
      run_tool(OPENHTP_PROFILE_VIEWER, "--input_log " + quote(path.string()) + " --trace " + quote(out.string()), dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  const json trace = json::parse(read_text(out));
  expect_valid_trace(trace);
  auto tracks = slices_by_tid(trace);
  const uint64_t t0 = 2 + (uint64_t{1} << 20), t1 = 2 + (uint64_t{2} << 20);
  ASSERT_EQ(tracks[t0].size(), 2u);
  ASSERT_EQ(tracks[t1].size(), 1u);
  std::map<std::string, json> nodes;
  for (const auto& s : tracks[2]) nodes[s["name"]] = s;
  // Thread 0 ran both nodes, from each node's start; thread 1's 120 us are
  // clipped to conv's 100.
  EXPECT_EQ(tracks[t0][0]["name"], "conv");
  EXPECT_EQ(tracks[t0][0]["ts"], nodes["conv"]["ts"]);
  EXPECT_EQ(tracks[t0][0]["dur"], 90);
  EXPECT_EQ(tracks[t0][1]["name"], "relu");
  EXPECT_EQ(tracks[t0][1]["ts"], nodes["relu"]["ts"]);
  EXPECT_EQ(tracks[t0][1]["dur"], 15);
  EXPECT_EQ(tracks[t1][0]["name"], "conv");
  EXPECT_EQ(tracks[t1][0]["dur"], 100);
  EXPECT_EQ(tracks[t1][0]["args"]["cpu time (us)"], 120);
  // The per-thread events are not laid out inside the node on the execute's track.
  EXPECT_EQ(nodes.count("HVX thread 0"), 0u);
  std::set<std::string> names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") names.insert(e["args"]["name"]);
  }
  EXPECT_TRUE(names.count("execute #0 HVX thread 0")) << trace.dump();
  EXPECT_TRUE(names.count("execute #0 HVX thread 1")) << trace.dump();
}

TEST_F(ProfileViewer, Refusals) {
  const fs::path good = dir_ / "good.log";
  std::ofstream(good) << handmade_log().dump();
  auto expect_refused = [&](const std::string& args, const std::string& cause) {
    const RunResult r = run_tool(OPENHTP_PROFILE_VIEWER, args, dir_);
    EXPECT_EQ(r.status, 1) << args;
    const std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(r.err, first + "\n") << "one line, nothing else";
    EXPECT_EQ(first.rfind("qnn-profile-viewer: error: ", 0), 0u) << r.err;
    EXPECT_NE(first.find(cause), std::string::npos) << "want '" << cause << "' in: " << first;
    EXPECT_TRUE(r.out.empty()) << r.out;
  };
  const std::string in = " --input_log " + quote(good.string());
  expect_refused(in + " --bogus 1", "unknown option '--bogus'");
  expect_refused("--output x.csv", "missing required option --input_log");
  expect_refused(in + " --reader libQnnHtpProfilingReader.so --output x",
                 "--reader 'libQnnHtpProfilingReader.so' is not supported");
  expect_refused(in + " --reader libQnnChrometraceProfilingReader.so", "needs --output");
  expect_refused(in + " --reader libQnnChrometraceProfilingReader.so --output a --trace b", "--trace 'b'");
  expect_refused(" --input_log " + quote((dir_ / "absent.log").string()), "absent.log: cannot open for reading");
  expect_refused(in + " --output " + quote((dir_ / "no_dir" / "x.csv").string()), "x.csv: cannot open for writing");

  const fs::path binary = dir_ / "binary.log";
  std::ofstream(binary) << std::string("\x01\x02QNN\x00", 6);
  expect_refused(" --input_log " + quote(binary.string()), "not JSON");
  json other = handmade_log();
  other["version"] = 2;
  const fs::path v2 = dir_ / "v2.log";
  std::ofstream(v2) << other.dump();
  expect_refused(" --input_log " + quote(v2.string()), "log version 2 is not supported");
  other = handmade_log();
  other["format"] = "something";
  const fs::path fmt = dir_ / "fmt.log";
  std::ofstream(fmt) << other.dump();
  expect_refused(" --input_log " + quote(fmt.string()), "not an openhtp profiling log");
  other = handmade_log();
  other["phases"][1]["events"][0]["sub_events"][2]["value"] = "twenty";
  const fs::path bad = dir_ / "bad.log";
  std::ofstream(bad) << other.dump();
  expect_refused(" --input_log " + quote(bad.string()),
                 "phases[1].events[0].sub_events[2].value: not a non-negative integer");

  // And --help names every option.
  const RunResult h = run_tool(OPENHTP_PROFILE_VIEWER, "--help", dir_);
  EXPECT_EQ(h.status, 0);
  for (const char* o : {"--input_log", "--output", "--reader", "--trace", "--version"}) {
    EXPECT_NE(h.out.find(o), std::string::npos) << o;
  }
}

}  // namespace

namespace {

// FastRPC's copies of client buffers happen before and after the
// accelerator's part of an execute: their slices sit beside the accelerator
// slice, in that order, inside the execute — not inside the accelerator.
TEST_F(ProfileViewer, CopySlicesSitBeforeAndAfterTheAccelerator) {
  auto ev = [](const std::string& id, uint32_t type, uint32_t unit, uint64_t v) {
    return json{{"identifier", id}, {"type", type}, {"unit", unit}, {"value", v}, {"sub_events", json::array()}};
  };
  json execute = ev("graph execute: g", 400, 1, 500);
  execute["sub_events"] = {ev("copy in time", 400, 1, 50), ev("accelerator execute", 407, 1, 300),
                           ev("copy out time", 400, 1, 40), ev("n1", 404, 1, 200)};
  const json log = {{"format", "openhtp-profile"},
                    {"version", 1},
                    {"run", {{"tool", "test"}, {"backend", "libQnnHtp.so"}, {"graphs", {"g"}},
                             {"profiling_level", "detailed"}, {"start_unix_us", 0}}},
                    {"phases", {{{"phase", "execute"}, {"index", 0}, {"end_us", 1000}, {"events", {execute}}}}}};
  const fs::path path = dir_ / "copies.log";
  std::ofstream(path) << log.dump();
  const fs::path out = dir_ / "trace.json";
  const RunResult r =
      run_tool(OPENHTP_PROFILE_VIEWER, "--input_log " + quote(path.string()) + " --trace " + quote(out.string()), dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  const json trace = json::parse(read_text(out));
  expect_valid_trace(trace);
  std::map<std::string, json> by_name;
  for (const auto& [tid, track] : slices_by_tid(trace)) {
    for (const auto& s : track) by_name[s["name"].get<std::string>()] = s;
  }
  for (const char* name : {"graph execute: g", "copy in time", "accelerator execute", "copy out time", "n1"}) {
    ASSERT_EQ(by_name.count(name), 1u) << name;
  }
  auto end = [](const json& s) { return s["ts"].get<uint64_t>() + s["dur"].get<uint64_t>(); };
  const json &in = by_name["copy in time"], &dev = by_name["accelerator execute"], &outc = by_name["copy out time"];
  EXPECT_EQ(in["dur"], 50);
  EXPECT_EQ(outc["dur"], 40);
  EXPECT_LE(end(in), dev["ts"].get<uint64_t>());
  EXPECT_GE(outc["ts"].get<uint64_t>(), end(dev));
  EXPECT_TRUE(within(in, by_name["graph execute: g"]));
  EXPECT_TRUE(within(outc, by_name["graph execute: g"]));
  EXPECT_TRUE(within(by_name["n1"], dev));  // nodes stay inside the accelerator
}

}  // namespace
