#include "options.h"

#include <set>
#include <string_view>

#include "common/command_line.h"

namespace openhtp::netrun {
namespace {

// The options that take no value. tools/common/command_line scans only
// valued options, so these are taken out of argv first.
const std::set<std::string> kFlags = {"--use_native_output_files", "--use_native_input_files", "--synchronous",
                                      "--shared_buffer"};

const std::set<std::string> kValued = {
    "--backend",        "--model",           "--retrieve_context", "--system_library", "--model_prefix",
    "--input_list",     "--output_dir",      "--native_input_tensor_names", "--num_inferences", "--duration",
    "--keep_num_outputs", "--batch_multiplier", "--log_level",     "--profiling_level", "--perf_profile",
    "--config_file"};

// QNN's --perf_profile names (reference §1.2).
const std::set<std::string> kPerfProfiles = {"low_balanced",    "balanced",
                                             "default",         "high_performance",
                                             "sustained_high_performance", "burst",
                                             "low_power_saver", "power_saver",
                                             "high_power_saver", "extreme_power_saver",
                                             "system_settings"};

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  while (true) {
    const size_t at = s.find(sep);
    std::string_view part = s.substr(0, at);
    if (!part.empty()) parts.emplace_back(part);
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return parts;
}

bool parse_log_level(std::string_view s, QnnLog_Level_t* out) {
  if (s == "error") *out = QNN_LOG_LEVEL_ERROR;
  else if (s == "warn") *out = QNN_LOG_LEVEL_WARN;
  else if (s == "info") *out = QNN_LOG_LEVEL_INFO;
  else if (s == "verbose") *out = QNN_LOG_LEVEL_VERBOSE;
  else if (s == "debug") *out = QNN_LOG_LEVEL_DEBUG;
  else return false;
  return true;
}

bool parse_native_names(const std::string& value, std::vector<NativeInputName>* out, std::string* error) {
  for (const std::string& group : split(value, ';')) {
    std::string graph;
    std::string names = group;
    if (const size_t colon = group.find(':'); colon != std::string::npos) {
      graph = group.substr(0, colon);
      names = group.substr(colon + 1);
      if (graph.empty()) {
        *error = "invalid --native_input_tensor_names '" + value + "' (empty graph name before ':')";
        return false;
      }
    }
    for (const std::string& t : split(names, ',')) out->push_back({graph, t});
  }
  if (out->empty()) {
    *error = "invalid --native_input_tensor_names '" + value + "' (names no tensor)";
    return false;
  }
  return true;
}

}  // namespace

bool parse_options(int argc, char** argv, Options* out, std::string* error) {
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string name = arg.substr(0, arg.find('='));
    if (kFlags.count(name) != 0) {
      if (name != arg) {
        *error = "option '" + name + "' takes no value";
        return false;
      }
      if (name == "--use_native_output_files") out->use_native_output_files = true;
      if (name == "--use_native_input_files") out->use_native_input_files = true;
      if (name == "--synchronous") out->synchronous = true;
      if (name == "--shared_buffer") out->shared_buffer = true;
      continue;
    }
    rest.push_back(argv[i]);
    // A value may look like a flag ("--output_dir --synchronous" is a
    // directory name); keep it with its option.
    if (kValued.count(arg) != 0 && i + 1 < argc) rest.push_back(argv[++i]);
  }
  openhtp::tools::CommandLine cl;
  if (!openhtp::tools::scan_command_line(static_cast<int>(rest.size()), rest.data(), kValued, &cl, error)) {
    return false;
  }
  out->help = cl.help;
  out->version = cl.version;
  for (const auto& [arg, value] : cl.values) {
    uint64_t n = 0;
    if (arg == "--backend") {
      out->backend = value;
    } else if (arg == "--model") {
      out->models = split(value, ',');
      if (out->models.empty()) {
        *error = "option '--model' names no library";
        return false;
      }
    } else if (arg == "--retrieve_context") {
      out->retrieve_context = value;
    } else if (arg == "--system_library") {
      out->system_library = value;
    } else if (arg == "--model_prefix") {
      out->model_prefix = value;
    } else if (arg == "--input_list") {
      out->input_lists = split(value, ',');
    } else if (arg == "--output_dir") {
      out->output_dir = value;
    } else if (arg == "--native_input_tensor_names") {
      if (!parse_native_names(value, &out->native_input_tensor_names, error)) return false;
    } else if (arg == "--num_inferences") {
      if (!tools::parse_count(arg, value, 1, &n, error)) return false;
      out->num_inferences = n;
    } else if (arg == "--keep_num_outputs") {
      if (!tools::parse_count(arg, value, 0, &n, error)) return false;
      out->keep_num_outputs = n;
    } else if (arg == "--batch_multiplier") {
      if (!tools::parse_count(arg, value, 1, 65536, &n, error)) return false;
      out->batch_multiplier = static_cast<uint32_t>(n);
    } else if (arg == "--duration") {
      double d = 0;
      if (!tools::parse_positive(arg, value, "seconds", &d, error)) return false;
      out->duration_s = d;
    } else if (arg == "--log_level") {
      if (!parse_log_level(value, &out->log_level)) {
        *error = "invalid --log_level '" + value + "' (expected error, warn, info, verbose or debug)";
        return false;
      }
      out->log_level_given = true;
    } else if (arg == "--profiling_level") {
      if (value == "basic") out->profiling_level = QNN_PROFILE_LEVEL_BASIC;
      else if (value == "detailed") out->profiling_level = QNN_PROFILE_LEVEL_DETAILED;
      else if (value == "backend") out->profiling_level = QNN_PROFILE_LEVEL_BACKEND;
      else if (value == "client") out->profiling_level = QNN_PROFILE_LEVEL_BASIC;  // only our own timers
      else {
        *error = "invalid --profiling_level '" + value + "' (expected basic, detailed, client or backend)";
        return false;
      }
      out->profiling_level_name = value;
    } else if (arg == "--perf_profile") {
      if (kPerfProfiles.count(value) == 0) {
        *error = "invalid --perf_profile '" + value +
                 "' (expected low_balanced, balanced, default, high_performance, sustained_high_performance, "
                 "burst, low_power_saver, power_saver, high_power_saver, extreme_power_saver or system_settings)";
        return false;
      }
      out->perf_profile = value;
    } else if (arg == "--config_file") {
      out->config_file = value;
    }
  }
  if (out->help || out->version) return true;
  if (out->backend.empty()) {
    *error = "missing required option --backend";
    return false;
  }
  if (out->models.empty() && out->retrieve_context.empty()) {
    *error = "Neither --model nor --retrieve_context is specified";
    return false;
  }
  if (!out->models.empty() && !out->retrieve_context.empty()) {
    *error = "--model and --retrieve_context are mutually exclusive";
    return false;
  }
  if (!out->system_library.empty() && out->retrieve_context.empty()) {
    *error = "--system_library applies only with --retrieve_context";
    return false;
  }
  if (out->input_lists.empty()) {
    *error = "missing required option --input_list";
    return false;
  }
  if (out->use_native_input_files && !out->native_input_tensor_names.empty()) {
    *error = "--use_native_input_files and --native_input_tensor_names are mutually exclusive";
    return false;
  }
  if (out->num_inferences && out->duration_s) {
    *error = "--num_inferences and --duration are mutually exclusive";
    return false;
  }
  if (out->profiling_level_name == "backend" && out->config_file.empty()) {
    *error = "--profiling_level backend needs --config_file (the level comes from the backend extensions)";
    return false;
  }
  return true;
}

const char* usage_text() {
  return "usage: qnn-net-run --backend <libQnnHtp.so> (--model <lib.so>[,...] | --retrieve_context <ctx.bin>)\n"
         "                   --input_list <list.txt>[,<list2.txt>|__,...] [options]\n"
         "\n"
         "Runs every graph of a model library or context binary once per line of its input\n"
         "list and writes each output to <output_dir>/Result_<n>/<output name>.raw.\n"
         "\n"
         "Required:\n"
         "  --backend <lib.so>              backend library (path to libQnnHtp.so)\n"
         "  --model <lib.so>[,...]          model libraries (their graphs form one context), or\n"
         "  --retrieve_context <file>       a context binary\n"
         "  --input_list <file>[,...]       input list per graph, in graph order; '__' skips a graph\n"
         "\n"
         "Optional:\n"
         "  --system_library <lib.so>       libQnnSystem.so reading the binary's graph I/O (default:\n"
         "                                  the one next to --backend, else by name)\n"
         "  --model_prefix <prefix>         entry point prefix of model libraries (default QnnModel)\n"
         "  --output_dir <dir>              default ./output\n"
         "  --use_native_output_files       write outputs in their native type (<name>_native.raw)\n"
         "  --use_native_input_files        read inputs in their native type (default float32)\n"
         "  --native_input_tensor_names <l> native inputs only for these: a,b or graph:a,b;graph2:c\n"
         "  --num_inferences <n>            repeat the input list until n inferences ran\n"
         "  --duration <s>                  repeat the input list for s seconds (progress on stderr)\n"
         "  --keep_num_outputs <n>          write the outputs of the first n inferences only\n"
         "  --batch_multiplier <n>          input files hold n batches; each runs as one execute\n"
         "  --synchronous                   graphExecute instead of graphExecuteAsync\n"
         "  --log_level <level>             error, warn, info, verbose or debug\n"
         "  --profiling_level <level>       basic, detailed, client or backend: writes\n"
         "                                  <output_dir>/qnn-profiling-data_0.log\n"
         "  --perf_profile <name>           accepted; no effect on this emulator\n"
         "  --config_file <json>            backend_extensions (HTP extension file), context_configs\n"
         "  --shared_buffer                 graph I/O in registered rpcmem buffers (zero copy)\n"
         "  --version                       print the version and exit\n"
         "  --help                          print this text and exit\n"
         "\n"
         "Exit status: 0 when every inference ran and every output was written, 1 otherwise.\n";
}

}  // namespace openhtp::netrun
