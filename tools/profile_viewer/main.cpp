// qnn-profile-viewer: reads an openhtp profiling log (JSON, written by
// qnn-net-run; tools/common/profile_log.h) and prints its summary; optionally
// the same rows as CSV and the run as a Chrome trace.
//
// Every failure — bad options, unreadable or malformed log, unwritable
// output — is one line `qnn-profile-viewer: error: <cause>` and exit status 1.
#include <cstdio>
#include <string>

#include "QnnInterface.h"
#include "chrome_trace.h"
#include "common/output_file.h"
#include "common/profile_log.h"
#include "options.h"
#include "summary.h"

namespace {

constexpr const char* kTool = "qnn-profile-viewer";

int fail(const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace openhtp::tools;
  Options opt;
  std::string error;
  if (!parse_options(argc, argv, &opt, &error)) {
    return fail(error);  // one line; --help has the options
  }
  if (opt.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  if (opt.version) {
    std::printf("%s (openhtp) profiling log version %d, core API %d.%d.%d\n", kTool, kProfileLogVersion,
                QNN_API_VERSION_MAJOR, QNN_API_VERSION_MINOR, QNN_API_VERSION_PATCH);
    return 0;
  }

  ProfileLog log;
  if (!ProfileLog::read(opt.input_log, &log, &error)) return fail(error);
  const Summary summary = summarize(log);

  // Files first: a failed write must not follow a report that looked complete.
  if (!opt.csv_file.empty() && !write_file_whole(opt.csv_file, summary_csv(summary), &error)) return fail(error);
  if (!opt.trace_file.empty() && !write_file_whole(opt.trace_file, chrome_trace(log).dump(1) + "\n", &error)) {
    return fail(error);
  }
  const std::string text = summary_text(log, summary, opt.input_log);
  return write_stdout(text, &error) ? 0 : fail(error);
}
