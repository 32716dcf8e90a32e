// qnn-context-binary-utility: reads a context binary through libQnnSystem's
// public API and writes its metadata as JSON (stdout or --json_file), with
// each graph's memory plan added from openhtp's own decoder (memory_plan.h).
//
// Every failure — bad options, unreadable file, malformed binary, unwritable
// output — is one line on stderr naming what failed and why, and exit status
// 1. The binary is untrusted input; the library verifies it before reading.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/file_bytes.h"
#include "common/output_file.h"
#include "binary_info_json.h"
#include "memory_plan.h"
#include "memory_plan_json.h"
#include "options.h"
#include "system_library.h"

namespace {

constexpr const char* kTool = "qnn-context-binary-utility";

int fail(const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  return 1;
}


// System-context errors by name, for the message when the library gave no
// log line.
std::string system_error_name(Qnn_ErrorHandle_t e) {
  switch (e) {
    case QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY: return "malformed context binary";
    case QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE: return "invalid handle";
    case QNN_SYSTEM_CONTEXT_ERROR_UNSUPPORTED_FEATURE: return "unsupported feature";
    default: return "error";
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace openhtp::tools;
  Options opt;
  std::string error;
  if (!parse_options(argc, argv, &opt, &error)) {
    std::fprintf(stderr, "%s: error: %s\n\n%s", kTool, error.c_str(), usage_text());
    return 1;
  }
  if (opt.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  if (opt.version) {
    std::printf("%s (openhtp) system API %d.%d.%d\n", kTool, QNN_SYSTEM_API_VERSION_MAJOR,
                QNN_SYSTEM_API_VERSION_MINOR, QNN_SYSTEM_API_VERSION_PATCH);
    return 0;
  }

  std::vector<uint8_t> bytes;
  if (!openhtp::read_file_bytes(opt.context_binary, &bytes, &error)) return fail(opt.context_binary + ": " + error);

  SystemLibrary lib;
  if (!lib.load(&error)) return fail(error);

  SystemLogCapture log(lib);
  QnnSystemContext_Handle_t ctx = nullptr;
  if (const Qnn_ErrorHandle_t e = lib.api().systemContextCreate(&ctx); e != QNN_SUCCESS) {
    return fail("systemContextCreate failed with error " + std::to_string(e));
  }
  const QnnSystemContext_BinaryInfo_t* info = nullptr;
  Qnn_ContextBinarySize_t info_size = 0;
  const Qnn_ErrorHandle_t e =
      lib.api().systemContextGetBinaryInfo(ctx, bytes.data(), bytes.size(), &info, &info_size);
  if (e != QNN_SUCCESS || info == nullptr) {
    const std::string why = log.last_error();
    lib.api().systemContextFree(ctx);
    return fail(opt.context_binary + ": " + (why.empty() ? system_error_name(e) : why) + " (error " +
                std::to_string(e) + ")");
  }
  std::optional<uint64_t> weights;
  if (uint64_t w = 0; lib.get_weights_size() != nullptr && lib.get_weights_size()(ctx, &w) == QNN_SUCCESS) {
    weights = w;
  }
  // Built before the free: `info` belongs to the system context.
  nlohmann::json doc = binary_info_to_json(*info, weights);
  lib.api().systemContextFree(ctx);
  // The plans come from openhtp's own decoder (memory_plan.h): a binary it
  // cannot read (another backend's, read through another libQnnSystem) is
  // still dumped, without memoryPlan keys.
  if (std::vector<GraphMemoryPlan> plans; read_memory_plans(bytes.data(), bytes.size(), &plans, &error)) {
    add_memory_plans(&doc, plans);
  }
  const std::string text = doc.dump(4) + "\n";

  // Whole or not at all: a full disk leaves no truncated JSON, and a failed
  // write to stdout (a closed pipe, /dev/full) is an error, not exit 0.
  if (opt.json_file.empty() ? !write_stdout(text, &error) : !write_file_whole(opt.json_file, text, &error)) {
    return fail(error);
  }
  return 0;
}
