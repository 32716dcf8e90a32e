// The QNN tools' command-line convention, shared by every openhtp tool:
// "--opt value" or "--opt=value", --help/-h and --version, unknown options
// and missing or empty values refused with a one-line reason. Each tool then
// interprets the values it was given.
#pragma once

#include <cstdint>
#include <limits>
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

// A count given to `option`: the whole value a decimal integer in [min, max].
// False + *error ("invalid --iterations 'abc' (expected an integer from 1 to
// 64)") otherwise, so that "abc", "-3" or "2x" never become 0 or 2 quietly.
bool parse_count(const std::string& option, const std::string& value, uint64_t min, uint64_t max, uint64_t* out,
                 std::string* error);
inline bool parse_count(const std::string& option, const std::string& value, uint64_t min, uint64_t* out,
                        std::string* error) {
  return parse_count(option, value, min, std::numeric_limits<uint64_t>::max(), out, error);
}
// A positive, finite number of `unit` (named in the error) given to `option`.
bool parse_positive(const std::string& option, const std::string& value, const char* unit, double* out,
                    std::string* error);

}  // namespace openhtp::tools
