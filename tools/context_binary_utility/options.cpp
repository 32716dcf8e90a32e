#include "options.h"

#include <string_view>

namespace openhtp::tools {

bool parse_options(int argc, char** argv, Options* out, std::string* error) {
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
    std::string* target = arg == "--context_binary" ? &out->context_binary
                          : arg == "--json_file"    ? &out->json_file
                                                    : nullptr;
    if (target == nullptr) {
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
    *target = std::string(value);
  }
  if (!out->help && !out->version && out->context_binary.empty()) {
    *error = "missing required option --context_binary";
    return false;
  }
  return true;
}

const char* usage_text() {
  return "usage: qnn-context-binary-utility --context_binary <file> [--json_file <file>]\n"
         "\n"
         "Reads a context binary through libQnnSystem.so and writes its metadata as JSON:\n"
         "binary info (build id, API and blob versions, SoC), every graph with its inputs\n"
         "and outputs, the HTP graph blob info (spillFillBufferSize in bytes, vtcmSize in MB)\n"
         "and, with openhtp's libQnnSystem, info.weights (bytes of the weights buffer).\n"
         "\n"
         "  --context_binary <file>  the context binary to read (required)\n"
         "  --json_file <file>       write the JSON there (its directory must exist);\n"
         "                           default: standard output\n"
         "  --version                print the version and exit\n"
         "  --help                   print this text and exit\n"
         "\n"
         "Exit status: 0 on success, 1 on any error (unreadable or malformed binary, bad options).\n";
}

}  // namespace openhtp::tools
