#include "output_check.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace examples {

double max_abs_diff(const float* backend_output, const std::array<float, tiny_cnn::kClasses>& reference) {
  double worst = 0.0;
  for (size_t i = 0; i < reference.size(); ++i) {
    const double d = std::fabs(static_cast<double>(backend_output[i]) - reference[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();  // NaN would compare as "small"
    worst = std::fmax(worst, d);
  }
  return worst;
}

void OutputCheck::check_output(size_t index, const float* backend_output,
                               const std::array<float, tiny_cnn::kClasses>& reference) {
  const double diff = max_abs_diff(backend_output, reference);
  size_t top = 0;
  for (size_t i = 1; i < reference.size(); ++i) {
    if (backend_output[i] > backend_output[top]) top = i;
  }
  const bool ok = diff <= kTolerance;
  ++checked_;
  matched_ += ok ? 1 : 0;
  worst_diff_ = std::fmax(worst_diff_, diff);
  std::printf("  input %zu: top class %zu (p=%.4f), max |diff| vs reference %.1e: %s\n", index, top,
              static_cast<double>(backend_output[top]), diff, ok ? "ok" : "MISMATCH");
  if (!ok) {
    std::printf("    backend  :");
    for (size_t i = 0; i < reference.size(); ++i) std::printf(" %.6f", static_cast<double>(backend_output[i]));
    std::printf("\n    reference:");
    for (float r : reference) std::printf(" %.6f", static_cast<double>(r));
    std::printf("\n");
  }
}

void OutputCheck::check_accounting(const CopyAccounting& actual, bool read_ok, const std::string& read_error) {
  if (!read_ok) fail("copy accounting: " + read_error);
  if (!(actual == expected_))
    fail("copy accounting is {" + to_string(actual) + "}, expected {" + to_string(expected_) + "}");
  if (have_accounting_ && !(actual == seen_)) accounting_varies_ = true;
  have_accounting_ = true;
  seen_ = actual;
}

void OutputCheck::fail(const std::string& why) {
  ++failures_;
  std::printf("    FAILED: %s\n", why.c_str());
}

int OutputCheck::finish() const {
  std::string per_execute = "n/a";
  if (have_accounting_) {
    per_execute = accounting_varies_
                      ? "varies between executes"
                      : std::to_string(seen_.copied_in + seen_.copied_out) + " B copied (" +
                            std::to_string(seen_.copied_in) + " in, " + std::to_string(seen_.copied_out) + " out), " +
                            std::to_string(seen_.by_reference) + " B by reference";
  }
  std::printf("%s: %zu/%zu outputs match the reference (max |diff| %.1e); per execute: %s%s\n", name_.c_str(), matched_,
              checked_, worst_diff_, per_execute.c_str(),
              failures_ == 0 ? "" : (" -- " + std::to_string(failures_) + " check(s) FAILED").c_str());
  return all_passed() ? 0 : 1;
}

}  // namespace examples
