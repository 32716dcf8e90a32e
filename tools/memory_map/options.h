// Command line of openhtp-memory-map, in the QNN tools' convention
// (tools/common/command_line.h):
//   --context_binary <file>  (required)
//   --output_dir <dir>       (default ./output; created when missing)
//   --help, --version
#pragma once

#include <string>

namespace openhtp::memory_map {

struct Options {
  std::string context_binary;
  std::string output_dir = "./output";
  bool help = false;
  bool version = false;
};

// False with a one-line reason in *error for unknown options, missing values
// and a missing --context_binary (unless --help/--version).
bool parse_options(int argc, char** argv, Options* out, std::string* error);

const char* usage_text();

}  // namespace openhtp::memory_map
