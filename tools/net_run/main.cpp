// qnn-net-run: runs the graphs of QNN model libraries or of a context binary
// on a backend, once per line of an input list, and writes every output.
//
//   1. parse options and --config_file
//   2. Session: model libraries, backend (extension file as platform option),
//      context and graphs; profiling from here on (init / finalize phases)
//   3. run_inferences: input lists resolved and checked, executes, Result_<n>
//   4. close the session (deinit phase), write the profiling log, summary
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "config_file.h"
#include "options.h"
#include "profiling.h"
#include "runner.h"
#include "session.h"

namespace {

using namespace openhtp::netrun;

constexpr const char* kTool = "qnn-net-run";

int fail(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  return 1;
}

void warn(const std::string& message) { std::fprintf(stderr, "%s: warning: %s\n", kTool, message.c_str()); }

const char* log_level_name(QnnLog_Level_t l) {
  switch (l) {
    case QNN_LOG_LEVEL_ERROR: return "QNN_LOG_LEVEL_ERROR";
    case QNN_LOG_LEVEL_WARN: return "QNN_LOG_LEVEL_WARN";
    case QNN_LOG_LEVEL_INFO: return "QNN_LOG_LEVEL_INFO";
    case QNN_LOG_LEVEL_VERBOSE: return "QNN_LOG_LEVEL_VERBOSE";
    default: return "QNN_LOG_LEVEL_DEBUG";
  }
}

void print_summary(const Options& opt, Session& session, const RunSummary& s) {
  std::printf("%s: %llu inference(s), %llu execute(s) in %.3f s (%.1f inf/s); %llu result folder(s) in %s\n", kTool,
              static_cast<unsigned long long>(s.inferences), static_cast<unsigned long long>(s.executes), s.seconds,
              s.seconds > 0 ? s.inferences / s.seconds : 0.0, static_cast<unsigned long long>(s.results_written),
              opt.output_dir.c_str());
  if (s.have_copy_stats) {
    const std::string kind = s.shared_buffer ? "shared buffers, " + std::to_string(s.memhandle_tensors) +
                                                   " tensor(s) as registered memory handles"
                                             : std::string("client buffers");
    std::printf("%s: graph I/O (%s): %llu bytes copied in, %llu bytes copied out, %llu bytes by reference\n", kTool,
                kind.c_str(),
                static_cast<unsigned long long>(s.bytes_copied_in), static_cast<unsigned long long>(s.bytes_copied_out),
                static_cast<unsigned long long>(s.bytes_by_reference));
  }
  (void)session;
}

// What the backend-extension file made the runtime allocate (openhtp only).
void print_external_buffers(Session& session) {
  using Fn = Qnn_ErrorHandle_t (*)(Qnn_ContextHandle_t, uint64_t*, uint64_t*);
  auto fn = reinterpret_cast<Fn>(session.backend_symbol("OpenHtp_getRuntimeProvidedBuffers"));
  uint64_t weights = 0, spill = 0;
  if (fn == nullptr || fn(session.context(), &weights, &spill) != QNN_SUCCESS || (weights == 0 && spill == 0)) return;
  std::printf("%s: external buffers from the backend extensions: weights %llu bytes, spill-fill %llu bytes\n", kTool,
              static_cast<unsigned long long>(weights), static_cast<unsigned long long>(spill));
}

int run(const Options& opt) {
  std::printf("%s pid:%d\n", kTool, static_cast<int>(getpid()));
  std::printf("%s build version: openhtp %s\n", kTool, OPENHTP_VERSION);
  if (opt.log_level_given) std::printf("%s log level is : %s\n", kTool, log_level_name(opt.log_level));
  std::string error;
  ConfigFile config;
  if (!opt.config_file.empty()) {
    if (!read_config_file(opt.config_file, &config, &error)) return fail(error);
    for (const std::string& key : config.ignored_keys) {
      warn("config file " + opt.config_file + ": '" + key + "' is not supported and is ignored");
    }
  }
  if (!opt.perf_profile.empty()) {
    std::printf("%s: --perf_profile %s: no effect on this emulator (its HTP has no clocks or power rails to vote)\n",
                kTool, opt.perf_profile.c_str());
  }
  Profiler profiler;
  Session session;
  if (!session.open(opt, config, &profiler, &error)) return fail(error);
  print_external_buffers(session);
  RunSummary summary;
  // Creates --output_dir once the input lists are checked, and starts the
  // profiling log there.
  if (!run_inferences(opt, config, &session, &profiler, &summary, &error)) return fail(error);
  if (!session.close(true, &error)) return fail(error);
  std::string log_path;
  if (!profiler.finish(&log_path, &error)) return fail(error);
  print_summary(opt, session, summary);
  if (profiler.enabled()) std::printf("%s: profiling log %s\n", kTool, log_path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string error;
  if (!parse_options(argc, argv, &opt, &error)) {
    std::fprintf(stderr, "%s: error: %s\n", kTool, error.c_str());
    return 1;
  }
  if (opt.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  if (opt.version) {
    std::printf("%s pid:%d\n", kTool, static_cast<int>(getpid()));
    std::printf("%s (openhtp %s) QNN core API %d.%d.%d\n", kTool, OPENHTP_VERSION, QNN_API_VERSION_MAJOR,
                QNN_API_VERSION_MINOR, QNN_API_VERSION_PATCH);
    return 0;
  }
  return run(opt);
}
