#include "common/command_line.h"

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

}  // namespace openhtp::tools
