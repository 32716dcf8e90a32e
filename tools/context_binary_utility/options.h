// Command line of qnn-context-binary-utility, with QNN's option names:
//   --context_binary <file>  (required)
//   --json_file <file>       (optional; stdout when absent)
//   --help, --version
// Both "--opt value" and "--opt=value" are accepted.
#pragma once

#include <string>

namespace openhtp::tools {

struct Options {
  std::string context_binary;
  std::string json_file;  // empty: stdout
  bool help = false;
  bool version = false;
};

// Returns false with a one-line reason in *error for unknown options,
// missing values and a missing --context_binary (unless --help/--version).
bool parse_options(int argc, char** argv, Options* out, std::string* error);

const char* usage_text();

}  // namespace openhtp::tools
