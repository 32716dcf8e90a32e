// Progress reports for long imports: the importer calls this per stage
// ("lowering", "adding nodes", "calibrating", ...) with done/total counts.
// The converter prints a progress line on stderr; the conformance runner and
// tests pass none.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace openhtp::onnx_import {

using ProgressFn = std::function<void(const std::string& stage, size_t done, size_t total)>;

inline void report_progress(const ProgressFn& fn, const std::string& stage, size_t done, size_t total) {
  if (fn) fn(stage, done, total);
}

}  // namespace openhtp::onnx_import
