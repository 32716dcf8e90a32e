#include "common/command_line.h"

#include <charconv>
#include <cmath>
#include <string_view>

namespace openhtp::tools {

bool scan_command_line(int argc, char** argv, const std::set<std::string>& value_options, CommandLine* out,
                       std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;
    bool has_inline_value = false;
    if (auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    if (arg == "--help" || arg == "-h") {
      out->help = true;
      continue;
    }
    if (arg == "--version") {
      out->version = true;
      continue;
    }
    if (value_options.count(std::string(arg)) == 0) {
      *error = "unknown option '" + std::string(argv[i]) + "'";
      return false;
    }
    if (!has_inline_value) {
      if (i + 1 >= argc) {
        *error = "option '" + std::string(arg) + "' needs a value";
        return false;
      }
      value = argv[++i];
    }
    if (value.empty()) {
      *error = "option '" + std::string(arg) + "' needs a non-empty value";
      return false;
    }
    out->values.emplace_back(std::string(arg), std::string(value));
  }
  return true;
}

bool parse_count(const std::string& option, const std::string& value, uint64_t min, uint64_t max, uint64_t* out,
                 std::string* error) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < min || v > max) {
    *error = "invalid " + option + " '" + value + "' (expected an integer " +
             (max == std::numeric_limits<uint64_t>::max()
                  ? ">= " + std::to_string(min)
                  : "from " + std::to_string(min) + " to " + std::to_string(max)) +
             ")";
    return false;
  }
  *out = v;
  return true;
}

bool parse_positive(const std::string& option, const std::string& value, const char* unit, double* out,
                    std::string* error) {
  double d = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), d);
  if (ec != std::errc() || end != value.data() + value.size() || !(d > 0) || !std::isfinite(d)) {
    *error = "invalid " + option + " '" + value + "' (expected a positive number of " + unit + ")";
    return false;
  }
  *out = d;
  return true;
}

}  // namespace openhtp::tools
