#include "options.h"

#include <string_view>

#include "common/command_line.h"

namespace openhtp::generator {

namespace {

bool parse_log_level(std::string_view s, QnnLog_Level_t* out) {
  if (s == "error") *out = QNN_LOG_LEVEL_ERROR;
  else if (s == "warn") *out = QNN_LOG_LEVEL_WARN;
  else if (s == "info") *out = QNN_LOG_LEVEL_INFO;
  else if (s == "verbose") *out = QNN_LOG_LEVEL_VERBOSE;
  else if (s == "debug") *out = QNN_LOG_LEVEL_DEBUG;
  else return false;
  return true;
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> parts;
  while (true) {
    const size_t comma = s.find(',');
    std::string_view part = s.substr(0, comma);
    if (!part.empty()) parts.emplace_back(part);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return parts;
}

}  // namespace

bool parse_options(int argc, char** argv, Options* out, std::string* error) {
  openhtp::tools::CommandLine cl;
  if (!openhtp::tools::scan_command_line(argc, argv,
                                         {"--model", "--backend", "--binary_file", "--output_dir", "--model_prefix",
                                          "--log_level", "--config_file"},
                                         &cl, error)) {
    return false;
  }
  out->help = cl.help;
  out->version = cl.version;
  for (const auto& [arg, value] : cl.values) {
    if (arg == "--model") {
      out->models = split_commas(value);
      if (out->models.empty()) {
        *error = "option '--model' names no library";
        return false;
      }
    } else if (arg == "--backend") {
      out->backend = value;
    } else if (arg == "--binary_file") {
      out->binary_file = value;
    } else if (arg == "--output_dir") {
      out->output_dir = value;
    } else if (arg == "--model_prefix") {
      out->model_prefix = value;
    } else if (arg == "--config_file") {
      out->config_file = value;
    } else if (arg == "--log_level") {
      if (!parse_log_level(value, &out->log_level)) {
        *error = "invalid --log_level '" + value + "' (expected error, warn, info, verbose or debug)";
        return false;
      }
      out->log_level_given = true;
    }
  }
  if (out->help || out->version) return true;
  for (const auto& [name, field] : {std::pair<const char*, const std::string*>{"--model", nullptr},
                                    {"--backend", &out->backend},
                                    {"--binary_file", &out->binary_file}}) {
    const bool missing = field == nullptr ? out->models.empty() : field->empty();
    if (missing) {
      *error = std::string("missing required option ") + name;
      return false;
    }
  }
  return true;
}

const char* usage_text() {
  return "usage: qnn-context-binary-generator --model <lib.so>[,<lib2.so>...] --backend <libQnnHtp.so>\n"
         "                                    --binary_file <name> [options]\n"
         "\n"
         "Loads each model library, lets it build its graphs in one context of the backend,\n"
         "finalizes every graph and writes the context binary to <output_dir>/<name>.bin.\n"
         "\n"
         "Required:\n"
         "  --model <lib.so>[,...]     model libraries; several give one context with all\n"
         "                             their graphs (graph names must differ)\n"
         "  --backend <lib.so>         backend library (path to libQnnHtp.so)\n"
         "  --binary_file <name>       output name; \".bin\" is appended; a relative name\n"
         "                             is placed under --output_dir\n"
         "\n"
         "Optional:\n"
         "  --output_dir <dir>         where relative --binary_file names go (default\n"
         "                             ./output; created if missing)\n"
         "  --model_prefix <prefix>    symbol prefix of the model libraries' entry points\n"
         "                             <prefix>_composeGraphs / <prefix>_freeGraphsInfo\n"
         "                             (default QnnModel)\n"
         "  --log_level <level>        error, warn, info, verbose or debug (default error)\n"
         "  --config_file <json>       JSON in qnn-net-run's format; only\n"
         "                             context_configs.context_priority (low, normal,\n"
         "                             normal_high, high) is applied for now, every other\n"
         "                             key is ignored with a warning\n"
         "  --version                  print the version and exit\n"
         "  --help                     print this text and exit\n"
         "\n"
         "Exit status: 0 when the binary was written, 1 on any error.\n";
}

}  // namespace openhtp::generator
