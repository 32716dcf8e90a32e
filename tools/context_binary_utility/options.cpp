#include "options.h"

#include "common/command_line.h"

namespace openhtp::tools {

bool parse_options(int argc, char** argv, Options* out, std::string* error) {
  CommandLine cl;
  if (!scan_command_line(argc, argv, {"--context_binary", "--json_file"}, &cl, error)) return false;
  out->help = cl.help;
  out->version = cl.version;
  for (const auto& [option, value] : cl.values) {
    (option == "--context_binary" ? out->context_binary : out->json_file) = value;
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
         "For openhtp's binaries each graph also gets info.memoryPlan: per tensor its region\n"
         "(VTCM, spill-fill, weights, client I/O), offset, bytes, first and last use (op\n"
         "index) and, when spilled, why; and the graph's VTCM budget and totals.\n"
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
