#include "summary.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <map>

namespace openhtp::tools {

namespace {

constexpr const char* kPhaseOrder[] = {"init", "finalize", "execute", "deinit"};

void add_event(const std::string& phase, const std::string& parent, int depth, const ProfileEventRecord& e,
               std::map<std::pair<std::string, std::string>, size_t>* index, std::vector<SummaryRow>* rows) {
  const std::string path = parent.empty() ? e.identifier : parent + " / " + e.identifier;
  auto [it, fresh] = index->try_emplace({phase, path}, rows->size());
  if (fresh) {
    SummaryRow r;
    r.phase = phase;
    r.event = path;
    r.depth = depth;
    r.type = e.type;
    r.unit = e.unit;
    r.min = e.value;
    rows->push_back(r);
  }
  SummaryRow& r = (*rows)[it->second];
  r.count += 1;
  r.min = std::min(r.min, e.value);
  r.max = std::max(r.max, e.value);
  r.total += e.value;
  for (const auto& s : e.sub_events) add_event(phase, path, depth + 1, s, index, rows);
}

bool contains_nocase(const std::string& s, const char* word) {
  std::string a = s, b = word;
  for (auto& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (auto& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return a.find(b) != std::string::npos;
}

// The last identifier of a path: what the text report indents under its parent.
std::string leaf(const std::string& path) {
  const auto at = path.rfind(" / ");
  return at == std::string::npos ? path : path.substr(at + 3);
}

std::string heading(const std::string& title, char rule = '-') {
  return title + "\n" + std::string(title.size(), rule) + "\n";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string utc_time(uint64_t unix_us) {
  const std::time_t t = static_cast<std::time_t>(unix_us / 1000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace

std::string unit_name(QnnProfile_EventUnit_t unit) {
  switch (unit) {
    case QNN_PROFILE_EVENTUNIT_MICROSEC: return "us";
    case QNN_PROFILE_EVENTUNIT_BYTES: return "bytes";
    case QNN_PROFILE_EVENTUNIT_CYCLES: return "cycles";
    case QNN_PROFILE_EVENTUNIT_COUNT: return "count";
    case QNN_PROFILE_EVENTUNIT_OBJECT: return "object";
    case QNN_PROFILE_EVENTUNIT_NONE: return "none";
    default: return "unit " + std::to_string(unit);
  }
}

std::string format_average(double v) {
  char buf[64];
  if (v == static_cast<double>(static_cast<uint64_t>(v))) {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f", v);
  }
  return buf;
}

Summary summarize(const ProfileLog& log) {
  Summary s;
  for (const char* phase : kPhaseOrder) {
    std::map<std::pair<std::string, std::string>, size_t> index;
    std::vector<SummaryRow> rows;
    for (const auto& p : log.phases()) {
      if (p.phase != phase) continue;
      if (p.phase == "execute") ++s.executes;
      for (const auto& e : p.events) add_event(p.phase, "", 0, e, &index, &rows);
    }
    s.rows.insert(s.rows.end(), rows.begin(), rows.end());
  }
  return s;
}

std::string summary_text(const ProfileLog& log, const Summary& s, const std::string& log_path) {
  const auto& m = log.meta();
  std::string t;
  t += "Input Log File Location: " + log_path + "\n";
  t += "Log File Created: " + utc_time(m.start_unix_us) + "\n";
  t += "Tool: " + m.tool + "\n";
  t += "Backend: " + m.backend + "\n";
  t += "Profiling Level: " + m.profiling_level + "\n";
  std::string graphs;
  for (const auto& g : m.graphs) graphs += (graphs.empty() ? "" : ", ") + g;
  t += "Graphs: " + graphs + "\n\n";
  t += heading("Qnn Init/Prepare/Finalize/De-Init/Execute/Lib-Load Statistics:") + "\n";

  auto line = [](const SummaryRow& r, const std::string& value) {
    return std::string(4 + 2 * r.depth, ' ') + leaf(r.event) + ": " + value + " " + unit_name(r.unit) + "\n";
  };
  auto section = [&](const char* phase, const char* title) {
    t += heading(title);
    bool any = false;
    for (const auto& r : s.rows) {
      if (r.phase != phase) continue;
      any = true;
      std::string v = format_average(r.average());
      if (r.count > 1) v += " (average of " + std::to_string(r.count) + ")";
      t += line(r, v);
    }
    if (!any) t += "    (no events)\n";
    t += "\n";
  };
  section("init", "Init Stats:");
  section("finalize", "Finalize Stats:");
  section("deinit", "De-Init Stats:");

  t += heading("Execute Stats (Average):");
  t += "Executes: " + std::to_string(s.executes) + "\n";
  bool any = false;
  for (const auto& r : s.rows) {
    if (r.phase != "execute") continue;
    any = true;
    t += line(r, format_average(r.average()));
  }
  if (!any) t += "    (no events)\n";
  t += "\n" + heading("Execute Stats (Overall):");
  for (const auto& r : s.rows) {
    if (r.phase != "execute") continue;
    t += std::string(4 + 2 * r.depth, ' ') + leaf(r.event) + " (" + unit_name(r.unit) + "): count " +
         std::to_string(r.count) + ", average " + format_average(r.average()) + ", min " + std::to_string(r.min) +
         ", max " + std::to_string(r.max) + ", total " + std::to_string(r.total) + "\n";
  }
  if (!any) t += "    (no events)\n";

  t += "\n" + heading("Per-node Time (Average over executes):");
  bool nodes = false;
  for (const auto& r : s.rows) {
    if (r.phase != "execute" || r.type != QNN_PROFILE_EVENTTYPE_NODE) continue;
    nodes = true;
    t += "    " + r.event + ": " + format_average(r.average()) + " " + unit_name(r.unit) + " (min " +
         std::to_string(r.min) + ", max " + std::to_string(r.max) + ")\n";
  }
  if (!nodes) t += "    (no per-node events in this log)\n";

  t += "\n" + heading("Yields / Preemptions:");
  bool yields = false;
  for (const auto& r : s.rows) {
    if (r.phase != "execute") continue;
    if (!contains_nocase(r.event, "yield") && !contains_nocase(r.event, "vtcm save") &&
        !contains_nocase(r.event, "vtcm restore") && !contains_nocase(r.event, "preempt")) {
      continue;
    }
    yields = true;
    t += "    " + r.event + ": total " + std::to_string(r.total) + " " + unit_name(r.unit) + " over " +
         std::to_string(r.count) + " executes (max " + std::to_string(r.max) + ")\n";
  }
  if (!yields) t += "    (no yield events in this log)\n";
  return t;
}

std::string summary_csv(const Summary& s) {
  std::string c = "phase,event,type,unit,count,average,min,max,total\n";
  for (const auto& r : s.rows) {
    c += csv_field(r.phase) + "," + csv_field(r.event) + "," + std::to_string(r.type) + "," + unit_name(r.unit) +
         "," + std::to_string(r.count) + "," + format_average(r.average()) + "," + std::to_string(r.min) + "," +
         std::to_string(r.max) + "," + std::to_string(r.total) + "\n";
  }
  return c;
}

}  // namespace openhtp::tools
