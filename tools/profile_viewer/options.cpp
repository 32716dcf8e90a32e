#include "options.h"

#include <filesystem>

#include "common/command_line.h"

namespace openhtp::tools {

bool parse_options(int argc, char** argv, Options* out, std::string* error) {
  CommandLine cl;
  if (!scan_command_line(argc, argv, {"--input_log", "--output", "--reader", "--trace"}, &cl, error)) return false;
  out->help = cl.help;
  out->version = cl.version;
  std::string output, reader, trace;
  for (const auto& [option, value] : cl.values) {
    std::string* slot = option == "--input_log" ? &out->input_log
                        : option == "--output"  ? &output
                        : option == "--reader"  ? &reader
                                                : &trace;
    if (!slot->empty()) {
      *error = "option '" + option + "' given twice";
      return false;
    }
    *slot = value;
  }
  if (out->help || out->version) return true;
  if (out->input_log.empty()) {
    *error = "missing required option --input_log";
    return false;
  }
  if (out->input_log.find(',') != std::string::npos) {
    *error = "--input_log '" + out->input_log + "': one log at a time (openhtp does not merge logs)";
    return false;
  }
  if (!reader.empty()) {
    // QNN's readers are plugins; openhtp recognises the Chrome-trace one by
    // its library name and writes the trace itself (nothing is loaded).
    if (std::filesystem::path(reader).filename() != kChrometraceReader) {
      *error = "--reader '" + reader + "' is not supported (openhtp knows only " + kChrometraceReader +
               ", which writes a Chrome trace)";
      return false;
    }
    if (!trace.empty()) {
      *error = "--trace '" + trace + "' and --reader both ask for the trace: give --output with the reader, or --trace";
      return false;
    }
    if (output.empty()) {
      *error = std::string("--reader ") + kChrometraceReader + " needs --output <trace.json>";
      return false;
    }
    out->trace_file = output;
    return true;
  }
  out->csv_file = output;
  out->trace_file = trace;
  if (!output.empty() && output == trace) {
    *error = "--output and --trace both name '" + output + "'";
    return false;
  }
  return true;
}

const char* usage_text() {
  return "usage: qnn-profile-viewer --input_log <file> [--output <file.csv>] [--trace <file.json>]\n"
         "       qnn-profile-viewer --input_log <file> --reader libQnnChrometraceProfilingReader.so --output <file.json>\n"
         "\n"
         "Reads a profiling log written by openhtp's qnn-net-run (qnn-profiling-data_0.log, JSON)\n"
         "and prints its summary: init, finalize and de-init times, execute statistics (count,\n"
         "average, min, max of every event), per-node time and yields.\n"
         "\n"
         "  --input_log <file>  the profiling log (required; one file)\n"
         "  --output <file>     write the summary rows as CSV; with the Chrome-trace reader,\n"
         "                      write the Chrome trace JSON instead\n"
         "  --reader <lib>      libQnnChrometraceProfilingReader.so (path or name): output is a\n"
         "                      Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev);\n"
         "                      no other reader is supported\n"
         "  --trace <file>      openhtp alias: also write the Chrome trace there\n"
         "  --version           print the version and exit\n"
         "  --help              print this text and exit\n"
         "\n"
         "Exit status: 0 on success, 1 on any error (bad options, unreadable or malformed log).\n";
}

}  // namespace openhtp::tools
