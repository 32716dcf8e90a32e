// The QNN tools' command-line convention, shared by every openhtp tool:
// "--opt value" or "--opt=value", --help/-h and --version, unknown options
// and missing or empty values refused with a one-line reason. Each tool then
// interprets the values it was given.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace openhtp::tools {

struct CommandLine {
  // (option, value) in command-line order, e.g. {"--model", "a.so"}.
  std::vector<std::pair<std::string, std::string>> values;
  bool help = false;
  bool version = false;
};

// `value_options` lists the options that take a value. False + *error on an
// unknown option or a missing/empty value.
bool scan_command_line(int argc, char** argv, const std::set<std::string>& value_options, CommandLine* out,
                       std::string* error);

}  // namespace openhtp::tools
