// openhtp-memory-map: draws the memory plan an openhtp context binary stores,
// one self-contained HTML page per graph (html_page.h, svg_map.h).
//
// The plan is read with the same code qnn-context-binary-utility uses for its
// memoryPlan JSON (tools/context_binary_utility/memory_plan.h), so a page and
// the JSON always agree. Every failure is one line
// "openhtp-memory-map: error: <cause>" and exit status 1.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/file_bytes.h"
#include "common/file_names.h"
#include "common/output_file.h"
#include "html_page.h"
#include "memory_plan.h"
#include "options.h"

namespace {

constexpr const char* kTool = "openhtp-memory-map";

int fail(const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  return 1;
}


}  // namespace

int main(int argc, char** argv) {
  using namespace openhtp;
  memory_map::Options opt;
  std::string error;
  if (!memory_map::parse_options(argc, argv, &opt, &error)) {
    std::fprintf(stderr, "%s: error: %s\n\n%s", kTool, error.c_str(), memory_map::usage_text());
    return 1;
  }
  if (opt.help) {
    std::fputs(memory_map::usage_text(), stdout);
    return 0;
  }
  if (opt.version) {
    std::printf("%s (openhtp)\n", kTool);
    return 0;
  }

  std::vector<uint8_t> bytes;
  if (!openhtp::read_file_bytes(opt.context_binary, &bytes, &error)) return fail(opt.context_binary + ": " + error);
  std::vector<tools::GraphMemoryPlan> plans;
  if (!tools::read_memory_plans(bytes.data(), bytes.size(), &plans, &error)) {
    return fail(opt.context_binary + ": " + error);
  }
  if (plans.empty()) return fail(opt.context_binary + ": the context binary holds no graphs");

  std::error_code ec;
  std::filesystem::create_directories(opt.output_dir, ec);
  if (ec) return fail(opt.output_dir + ": cannot create the output directory: " + ec.message());

  // A graph name is untrusted: one safe file name each (tools/common/file_names.h),
  // and two names that sanitize alike get a "-<k>" suffix.
  tools::UniqueNames used;
  for (size_t i = 0; i < plans.size(); ++i) {
    const std::string name = used.take(tools::safe_file_name(plans[i].graph_name), ".html");
    const std::string path = (std::filesystem::path(opt.output_dir) / name).string();
    if (!tools::write_file_whole(path, memory_map::render_page(plans[i], opt.context_binary), &error)) {
      return fail(error);
    }
    std::printf("%s: graph '%s' (%zu ops, %zu tensors) -> %s\n", kTool, plans[i].graph_name.c_str(),
                plans[i].ops.size(), plans[i].tensors.size(), path.c_str());
  }
  return 0;
}
