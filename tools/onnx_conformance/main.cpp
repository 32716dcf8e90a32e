// openhtp-onnx-conformance: runs ONNX backend test suites (Debian's
// /usr/share/libonnx-testdata/data/{node,pytorch-converted,pytorch-operator,
// simple,real}) through the ONNX importer and openhtp's libQnnHtp on its
// default FastRPC domain (a separate DSP process). Every case whose op types
// all have a lowering in the importer is attempted: imported into a fresh
// context, run on each test_data_set_*, and compared with output_K.pb; a
// refusal at import, an unreadable model or a missing model counts as a
// failure with its reason. Each suite is reported on its own: all,
// attempted, passed, failed (reasons grouped), skipped (by op type).
//
// Exit status 1 when, in any suite, fewer than --min-pass-rate percent of
// the attempted cases (default 95) or fewer than --min-all-rate percent of
// all cases (default 0) pass, or when a case was skipped because one of the
// importer's core ONNX op types (the "item 1" list below) is missing from
// its op table.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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


const char* kDefaultRoot = "/usr/share/libonnx-testdata/data";
const std::vector<std::string> kAllSuites = {"node", "pytorch-converted", "pytorch-operator", "simple", "real"};

// A failure reason without what is particular to one case (value names,
// element positions and values), so that reasons group: the first detail
// line of a multi-line refusal, quoted names as '…', numbers as N except
// after "rank " and "<= ".
std::string reason_group(const std::string& reason) {
  std::vector<std::string> lines;
  std::istringstream in(reason);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string r = lines.empty() ? reason : lines[0];
  if (lines.size() > 1 && r.rfind("refused: ", 0) == 0 && r.find("unsupported node") != std::string::npos) {
    size_t b = lines[1].find_first_not_of(' ');
    r = "refused: " + lines[1].substr(b == std::string::npos ? 0 : b);
  }
  if (r.rfind("unreadable model: ", 0) == 0) {  // "unreadable model: PATH: why"
    if (size_t c = r.find(": ", 18); c != std::string::npos) r = "unreadable model: " + r.substr(c + 2);
  }
  if (r.rfind("test_data_set_", 0) == 0) {
    if (size_t c = r.find(": "); c != std::string::npos) r = r.substr(c + 2);
  }
  std::string out;
  for (size_t i = 0; i < r.size();) {
    if (r[i] == '\'') {
      const size_t e = r.find('\'', i + 1);
      if (e == std::string::npos) { out += r.substr(i); break; }
      out += "'…'";
      i = e + 1;
    } else if (std::isdigit(static_cast<unsigned char>(r[i])) &&
               !(out.size() >= 5 && out.compare(out.size() - 5, 5, "rank ") == 0) &&
               !(out.size() >= 3 && out.compare(out.size() - 3, 3, "<= ") == 0)) {
      while (i < r.size() && (std::isalnum(static_cast<unsigned char>(r[i])) || r[i] == '.' || r[i] == '+' ||
                              (r[i] == '-' && i > 0 && r[i - 1] == 'e')))
        ++i;
      out += "N";
    } else {
      out += r[i++];
    }
  }
  if (out.size() > 160) out = out.substr(0, 157) + "...";
  return out;
}

struct SuiteResult {
  std::string name, dir;
  size_t all = 0, attempted = 0, passed = 0, failed = 0, skipped = 0, refused = 0, unreadable = 0, bound = 0;
  std::map<std::string, size_t> missing_ops, failure_groups;
  double secs = 0;
  double pass_rate() const { return attempted == 0 ? 0.0 : 100.0 * static_cast<double>(passed) / attempted; }
  double all_rate() const { return all == 0 ? 0.0 : 100.0 * static_cast<double>(passed) / all; }
};

std::string count_list(const std::map<std::string, size_t>& m) {
  std::string s;
  for (const auto& [op, n] : m) s += (s.empty() ? "" : ", ") + op + " (" + std::to_string(n) + ")";
  return s.empty() ? std::string("none") : s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args = {argv[0]};
  for (int i = 1; i < argc; ++i) args.push_back(std::string(argv[i]) == "--verbose" ? "--verbose=1" : argv[i]);
  std::vector<char*> av;
  for (auto& s : args) av.push_back(s.data());
  openhtp::tools::CommandLine cl;
  std::string error;
  if (!openhtp::tools::scan_command_line(static_cast<int>(av.size()), av.data(),
                                         {"--data", "--suite", "--root", "--filter", "--verbose", "--min-pass-rate",
                                          "--min-all-rate"},
                                         &cl, &error)) {
    std::fprintf(stderr, "openhtp-onnx-conformance: error: %s\n", error.c_str());
    return 2;
  }
  if (cl.help) {
    std::puts("usage: openhtp-onnx-conformance [--suite NAME[,NAME..]]... [--data DIR]... [--root DIR]\n"
              "                                [--filter SUBSTR] [--min-pass-rate PCT] [--min-all-rate PCT] [--verbose]\n"
              "  --suite NAME     a suite under --root: node, pytorch-converted, pytorch-operator, simple, real;\n"
              "                   'all' = the four with models in Debian's package (all but real)\n"
              "  --data DIR       a suite directory given by path (repeatable)\n"
              "  --root DIR       where --suite looks (default /usr/share/libonnx-testdata/data)\n"
              "  (neither --suite nor --data: the node suite)\n"
              "  --filter SUBSTR  only cases whose directory name contains SUBSTR\n"
              "  --min-pass-rate  fail when a suite passes fewer than PCT% of its attempted cases (default 95)\n"
              "  --min-all-rate   fail when a suite passes fewer than PCT% of all its cases (default 0)\n"
              "  --verbose        print every case and the skip reasons");
    return 0;
  }
  std::string root = kDefaultRoot, filter;
  std::vector<std::pair<std::string, std::string>> suites;  // (name, dir)
  std::vector<std::string> suite_names;
  bool verbose = false;
  double min_pass = 95.0, min_all = 0.0;
  for (const auto& [k, v] : cl.values) {
    if (k == "--data") suites.emplace_back(fs::path(v).filename().string(), v);
    else if (k == "--root") root = v;
    else if (k == "--suite") {
      std::stringstream ss(v);
      for (std::string s; std::getline(ss, s, ',');) {
        if (s == "all") suite_names.insert(suite_names.end(), kAllSuites.begin(), kAllSuites.end() - 1);
        else suite_names.push_back(s);
      }
    } else if (k == "--filter") filter = v;
    else if (k == "--verbose") verbose = true;
    else if (k == "--min-pass-rate" || k == "--min-all-rate") {
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || d < 0 || d > 100) {
        std::fprintf(stderr, "openhtp-onnx-conformance: error: %s wants a percentage, got '%s'\n", k.c_str(),
                     v.c_str());
        return 2;
      }
      (k == "--min-pass-rate" ? min_pass : min_all) = d;
    }
  }
  for (const std::string& s : suite_names) {
    if (std::find(kAllSuites.begin(), kAllSuites.end(), s) == kAllSuites.end()) {
      std::fprintf(stderr, "openhtp-onnx-conformance: error: unknown suite '%s' (node, pytorch-converted, "
                   "pytorch-operator, simple, real, all)\n", s.c_str());
      return 2;
    }
    suites.emplace_back(s, root + "/" + s);
  }
  if (suites.empty()) suites.emplace_back("node", root + "/node");

  std::vector<std::vector<std::string>> cases(suites.size());
  for (size_t si = 0; si < suites.size(); ++si) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(suites[si].second, ec)) {
      const std::string name = e.path().filename().string();
      if (e.is_directory() && name.find(filter) != std::string::npos) cases[si].push_back(e.path().string());
    }
    if (ec || cases[si].empty()) {
      std::fprintf(stderr, "openhtp-onnx-conformance: error: no test cases under '%s'%s\n",
                   suites[si].second.c_str(), filter.empty() ? "" : (" matching '" + filter + "'").c_str());
      return 2;
    }
    std::sort(cases[si].begin(), cases[si].end());
  }
  openhtp::onnx_import::BackendSession session;
  if (!session.open(QnnInterface_getProviders, &error, !verbose)) {
    std::fprintf(stderr, "openhtp-onnx-conformance: error: %s\n", error.c_str());
    return 2;
  }
  std::set<std::string> core_missing;
  std::vector<SuiteResult> results;
  for (size_t si = 0; si < suites.size(); ++si) {
    SuiteResult s;
    s.name = suites[si].first;
    s.dir = suites[si].second;
    s.all = cases[si].size();
    if (suites.size() > 1) std::printf("== suite %s (%s)\n", s.name.c_str(), s.dir.c_str());
    const auto start = std::chrono::steady_clock::now();
    for (const std::string& dir : cases[si]) {
      const std::string name = fs::path(dir).filename().string();
      CaseResult r;
      if (!fs::exists(dir + "/model.onnx") && fs::exists(dir + "/data.json")) {
        // Debian ships the 'real' suite as data.json files naming a download
        // URL: the model is not there, which is a failure, not a skip.
        r.outcome = CaseResult::Outcome::kFailed;
        r.reason = "no model.onnx: data.json names a model to download (not in the package)";
      } else {
        r = run_case(session, dir);
      }
      switch (r.outcome) {
        case CaseResult::Outcome::kPassed:
          ++s.attempted;
          ++s.passed;
          if (!r.bound_inputs.empty()) ++s.bound;
          if (verbose) {
            std::string b;
            for (const auto& i : r.bound_inputs) b += (b.empty() ? " (bound as constants: " : ", ") + i;
            std::printf("PASS %s%s\n", name.c_str(), b.empty() ? "" : (b + ")").c_str());
          }
          break;
        case CaseResult::Outcome::kFailed:
          ++s.attempted;
          ++s.failed;
          if (r.reason.rfind("refused", 0) == 0) ++s.refused;
          if (r.reason.rfind("unreadable model", 0) == 0 || r.reason.rfind("no model.onnx", 0) == 0) ++s.unreadable;
          ++s.failure_groups[reason_group(r.reason)];
          std::printf("FAIL %s: %s\n", name.c_str(), r.reason.c_str());
          break;
        case CaseResult::Outcome::kSkipped:
          ++s.skipped;
          for (const auto& op : r.unsupported_ops) {
            ++s.missing_ops[op];
            if (kCoreOps.count(op) != 0) core_missing.insert(op);
          }
          if (verbose) std::printf("SKIP %s: %s\n", name.c_str(), r.reason.c_str());
          break;
      }
      std::fflush(stdout);
    }
    s.secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("\nONNX %s conformance: %zu cases, attempted %zu, passed %zu, failed %zu (pass rate %.1f%%), "
                "skipped %zu, %.1f s\n",
                s.name.c_str(), s.all, s.attempted, s.passed, s.failed, s.pass_rate(), s.skipped, s.secs);
    std::printf("of all %zu cases: %.1f%% passed\n", s.all, s.all_rate());
    std::printf("failed: %zu refused at import (a form QNN or the importer cannot express), %zu unreadable or "
                "missing model, %zu wrong or no output\n",
                s.refused, s.unreadable, s.failed - s.refused - s.unreadable);
    if (!s.failure_groups.empty()) {
      std::vector<std::pair<size_t, std::string>> g;
      for (const auto& [why, n] : s.failure_groups) g.emplace_back(n, why);
      std::stable_sort(g.begin(), g.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      std::printf("failures by reason:\n");
      for (const auto& [n, why] : g) std::printf("  %3zu  %s\n", n, why.c_str());
    }
    std::printf("passed with parameter inputs bound to the case's values: %zu\n", s.bound);
    std::printf("skipped (op type not in the importer): %s\n\n", count_list(s.missing_ops).c_str());
    results.push_back(std::move(s));
  }
  if (results.size() > 1) {
    std::printf("%-20s %6s %10s %7s %7s %8s %12s %7s\n", "suite", "all", "attempted", "passed", "failed", "skipped",
                "% attempted", "% all");
    for (const auto& s : results) {
      std::printf("%-20s %6zu %10zu %7zu %7zu %8zu %11.1f%% %6.1f%%\n", s.name.c_str(), s.all, s.attempted, s.passed,
                  s.failed, s.skipped, s.pass_rate(), s.all_rate());
    }
  }
  int rc = 0;
  for (const auto& s : results) {
    if (s.pass_rate() < min_pass) {
      std::printf("FAILED: %s: pass rate %.1f%% of attempted is below %.1f%%\n", s.name.c_str(), s.pass_rate(),
                  min_pass);
      rc = 1;
    }
    if (s.all_rate() < min_all) {
      std::printf("FAILED: %s: %.1f%% of all cases passed, below %.1f%%\n", s.name.c_str(), s.all_rate(), min_all);
      rc = 1;
    }
  }
  if (!core_missing.empty()) {
    std::string s;
    for (const auto& op : core_missing) s += " " + op;
    std::printf("FAILED: cases of core op types were not attempted (op type missing):%s\n", s.c_str());
    rc = 1;
  }
  return rc;
}
