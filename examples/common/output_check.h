// Bookkeeping shared by the examples: compares each backend output with the
// reference, checks each execute's copy accounting against what the memory
// route promises, and prints the one-line summary.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "report.h"
#include "tiny_cnn_weights.h"

namespace examples {

// Largest |a - b| over the classes; +inf if the backend output holds a NaN.
double max_abs_diff(const float* backend_output, const std::array<float, tiny_cnn::kClasses>& reference);

class OutputCheck {
 public:
  static constexpr double kTolerance = 1e-5;  // on softmax probabilities

  OutputCheck(std::string example_name, CopyAccounting expected_per_execute)
      : name_(std::move(example_name)), expected_(expected_per_execute) {}

  // Prints "  input i: top class c (p=...), max |diff| ... ok|MISMATCH".
  void check_output(size_t index, const float* backend_output, const std::array<float, tiny_cnn::kClasses>& reference);
  // `read_ok` is what ExecuteReport::read_last returned (with its error).
  void check_accounting(const CopyAccounting& actual, bool read_ok, const std::string& read_error);
  // Records a failure that stopped the batch (e.g. graphExecute failed).
  void fail(const std::string& why);

  bool all_passed() const { return failures_ == 0 && matched_ == checked_ && checked_ > 0; }
  // "<name>: 8/8 outputs match the reference (max |diff| 3.1e-08); per
  // execute: 0 B copied, 3112 B by reference", then 0 or 1 for main().
  int finish() const;

 private:
  std::string name_;
  CopyAccounting expected_;
  size_t checked_ = 0, matched_ = 0, failures_ = 0;
  double worst_diff_ = 0.0;
  bool have_accounting_ = false, accounting_varies_ = false;
  CopyAccounting seen_{};
};

}  // namespace examples
