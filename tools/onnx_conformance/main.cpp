// openhtp-onnx-conformance: runs the ONNX backend node tests
// (/usr/share/libonnx-testdata/data/node) through the ONNX importer and
// openhtp's libQnnHtp on its default FastRPC domain (a separate DSP
// process). Every case whose op types all have a lowering in the importer is
// attempted: imported into a fresh context, run on each test_data_set_*, and
// compared with output_K.pb; a refusal at import counts as a failure.
//
// Exit status 1 when fewer than 95% of the attempted cases pass, or when a
// case was skipped because one of the importer's core ONNX op types (the
// "item 1" list below) is missing from its op table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "QnnInterface.h"
#include "case_runner.h"
#include "common/command_line.h"

namespace {

namespace fs = std::filesystem;
using namespace openhtp::onnx_conformance;

const std::set<std::string> kCoreOps = {
    "Conv", "ConvTranspose", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Max", "Min", "Relu", "Clip",
    "Sigmoid", "Tanh", "HardSwish", "PRelu", "Softmax", "LogSoftmax", "LayerNormalization",
    "InstanceNormalization", "BatchNormalization", "Reshape", "Transpose", "Concat", "Split", "Slice", "Gather",
    "Pad", "MaxPool", "AveragePool", "GlobalAveragePool", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin",
    "Resize", "ArgMax", "TopK", "QuantizeLinear", "DequantizeLinear", "Cast",
    // element-wise unary / binary ops ONNX has and QNN expresses
    "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Sin", "Cos", "Asin", "Atan", "Round",
    "Sign", "Not", "Pow", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "And", "Or", "Xor", "Mod"};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args = {argv[0]};
  for (int i = 1; i < argc; ++i) args.push_back(std::string(argv[i]) == "--verbose" ? "--verbose=1" : argv[i]);
  std::vector<char*> av;
  for (auto& s : args) av.push_back(s.data());
  openhtp::tools::CommandLine cl;
  std::string error;
  if (!openhtp::tools::scan_command_line(static_cast<int>(av.size()), av.data(), {"--data", "--filter", "--verbose"},
                                         &cl, &error)) {
    std::fprintf(stderr, "openhtp-onnx-conformance: error: %s\n", error.c_str());
    return 2;
  }
  if (cl.help) {
    std::puts("usage: openhtp-onnx-conformance [--data DIR] [--filter SUBSTR] [--verbose]\n"
              "  --data DIR       ONNX node test cases (default /usr/share/libonnx-testdata/data/node)\n"
              "  --filter SUBSTR  only cases whose directory name contains SUBSTR\n"
              "  --verbose        print every case and the skip reasons");
    return 0;
  }
  std::string data = "/usr/share/libonnx-testdata/data/node", filter;
  bool verbose = false;
  for (const auto& [k, v] : cl.values) {
    if (k == "--data") data = v;
    else if (k == "--filter") filter = v;
    else if (k == "--verbose") verbose = true;
  }
  std::vector<std::string> cases;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(data, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.find(filter) != std::string::npos) cases.push_back(e.path().string());
  }
  if (ec || cases.empty()) {
    std::fprintf(stderr, "openhtp-onnx-conformance: error: no test cases under '%s'%s\n", data.c_str(),
                 filter.empty() ? "" : (" matching '" + filter + "'").c_str());
    return 2;
  }
  std::sort(cases.begin(), cases.end());
  openhtp::onnx_import::BackendSession session;
  if (!session.open(QnnInterface_getProviders, &error, !verbose)) {
    std::fprintf(stderr, "openhtp-onnx-conformance: error: %s\n", error.c_str());
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  size_t attempted = 0, passed = 0, failed = 0, skipped = 0;
  std::map<std::string, size_t> missing_ops;
  size_t refused = 0, bound = 0;
  std::set<std::string> core_missing;
  for (const std::string& dir : cases) {
    const std::string name = fs::path(dir).filename().string();
    CaseResult r = run_case(session, dir);
    switch (r.outcome) {
      case CaseResult::Outcome::kPassed:
        ++attempted;
        ++passed;
        if (!r.bound_inputs.empty()) ++bound;
        if (verbose) {
          std::string b;
          for (const auto& i : r.bound_inputs) b += (b.empty() ? " (bound as constants: " : ", ") + i;
          std::printf("PASS %s%s\n", name.c_str(), b.empty() ? "" : (b + ")").c_str());
        }
        break;
      case CaseResult::Outcome::kFailed:
        ++attempted;
        ++failed;
        if (r.reason.rfind("refused", 0) == 0) ++refused;
        std::printf("FAIL %s: %s\n", name.c_str(), r.reason.c_str());
        break;
      case CaseResult::Outcome::kSkipped:
        ++skipped;
        for (const auto& op : r.unsupported_ops) {
          ++missing_ops[op];
          if (kCoreOps.count(op) != 0) core_missing.insert(op);
        }
        if (verbose) std::printf("SKIP %s: %s\n", name.c_str(), r.reason.c_str());
        break;
    }
    std::fflush(stdout);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto list = [](const std::map<std::string, size_t>& m) {
    std::string s;
    for (const auto& [op, n] : m) s += (s.empty() ? "" : ", ") + op + " (" + std::to_string(n) + ")";
    return s.empty() ? std::string("none") : s;
  };
  const double rate = attempted == 0 ? 0.0 : 100.0 * static_cast<double>(passed) / static_cast<double>(attempted);
  std::printf("\nONNX node conformance: %zu cases, attempted %zu, passed %zu, failed %zu (pass rate %.1f%%), "
              "skipped %zu, %.1f s\n",
              cases.size(), attempted, passed, failed, rate, skipped, secs);
  std::printf("of all %zu cases: %.1f%% passed\n", cases.size(),
              cases.empty() ? 0.0 : 100.0 * static_cast<double>(passed) / static_cast<double>(cases.size()));
  std::printf("failed: %zu refused at import (a form QNN or the importer cannot express), %zu wrong or no output\n",
              refused, failed - refused);
  std::printf("passed with parameter inputs bound to the case's values: %zu\n", bound);
  std::printf("skipped (op type not in the importer): %s\n", list(missing_ops).c_str());
  int rc = 0;
  if (rate < 95.0) {
    std::printf("FAILED: pass rate %.1f%% is below 95%%\n", rate);
    rc = 1;
  }
  if (!core_missing.empty()) {
    std::string s;
    for (const auto& op : core_missing) s += " " + op;
    std::printf("FAILED: cases of core op types were not attempted (op type missing):%s\n", s.c_str());
    rc = 1;
  }
  return rc;
}
