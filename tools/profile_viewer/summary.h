// The viewer's summary: every event of the log, aggregated per phase kind
// (all executes together) and per event path, the rows the text report and
// the CSV are printed from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/profile_log.h"

namespace openhtp::tools {

struct SummaryRow {
  std::string phase;  // init | finalize | execute | deinit
  std::string event;  // identifiers from the top-level event down, joined by " / "
  int depth = 0;      // 0 for a top-level event
  QnnProfile_EventType_t type = 0;
  QnnProfile_EventUnit_t unit = 0;
  uint64_t count = 0;  // occurrences (for execute: executes that reported it)
  uint64_t min = 0, max = 0, total = 0;
  double average() const { return count == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(count); }
};

struct Summary {
  std::vector<SummaryRow> rows;  // phases in init, finalize, execute, deinit order; events as first seen
  uint64_t executes = 0;         // execute phases in the log
};

Summary summarize(const ProfileLog& log);

// "us", "bytes", "cycles", "count", ...
std::string unit_name(QnnProfile_EventUnit_t unit);
// An average as printed: integer when whole, else two decimals.
std::string format_average(double v);

// The text report (stdout) and the CSV (header + one line per row).
std::string summary_text(const ProfileLog& log, const Summary& s, const std::string& log_path);
std::string summary_csv(const Summary& s);

}  // namespace openhtp::tools
