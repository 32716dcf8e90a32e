// Command line of qnn-profile-viewer, with QNN's option names:
//   --input_log <file>   (required) an openhtp profiling log (JSON, tools/common/profile_log.h)
//   --output <file>      CSV of the summary rows; with the Chrome-trace reader, the trace JSON
//   --reader <lib>       only libQnnChrometraceProfilingReader.so (any directory) is recognised
//   --trace <file>       openhtp's alias: write the Chrome trace there (no --reader needed)
//   --help, --version
#pragma once

#include <string>

namespace openhtp::tools {

constexpr const char* kChrometraceReader = "libQnnChrometraceProfilingReader.so";

struct Options {
  std::string input_log;
  std::string csv_file;    // empty: no CSV
  std::string trace_file;  // empty: no trace
  bool help = false;
  bool version = false;
};

// False + *error (one line naming the option or value) on unknown options,
// a missing --input_log, an unsupported reader or conflicting outputs.
bool parse_options(int argc, char** argv, Options* out, std::string* error);

const char* usage_text();

}  // namespace openhtp::tools
