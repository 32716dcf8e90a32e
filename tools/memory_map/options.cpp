#include "options.h"

#include "common/command_line.h"

namespace openhtp::memory_map {

bool parse_options(int argc, char** argv, Options* out, std::string* error) {
  tools::CommandLine cl;
  if (!tools::scan_command_line(argc, argv, {"--context_binary", "--output_dir"}, &cl, error)) return false;
  out->help = cl.help;
  out->version = cl.version;
  for (const auto& [option, value] : cl.values) {
    (option == "--context_binary" ? out->context_binary : out->output_dir) = value;
  }
  if (!out->help && !out->version && out->context_binary.empty()) {
    *error = "missing required option --context_binary";
    return false;
  }
  return true;
}

const char* usage_text() {
  return "usage: openhtp-memory-map --context_binary <file> [--output_dir <dir>]\n"
         "\n"
         "Draws the memory plan stored in an openhtp context binary: one self-contained\n"
         "HTML page per graph (<dir>/<graph>.html, SVG inside, no scripts or network).\n"
         "Op order runs along x; VTCM and spill-fill offsets along y, one panel each,\n"
         "every tensor a box from its first to its last use; weights and graph I/O in a\n"
         "lane of their own; the VTCM budget as a line; spilled tensors listed with the\n"
         "reason. Hover a box for its tensor, ops, shape, type and bytes.\n"
         "\n"
         "  --context_binary <file>  the context binary to draw (required)\n"
         "  --output_dir <dir>       where the pages go (default ./output; created)\n"
         "  --version                print the version and exit\n"
         "  --help                   print this text and exit\n"
         "\n"
         "Graph names are used as file names with every character other than\n"
         "A-Z a-z 0-9 . _ - replaced by '_'.\n"
         "Exit status: 0 when every page was written, 1 on any error.\n";
}

}  // namespace openhtp::memory_map
