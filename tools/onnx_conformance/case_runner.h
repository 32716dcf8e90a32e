// One ONNX backend test case (model.onnx + test_data_set_*/input_K.pb,
// output_K.pb): support check, import into a fresh context, run, compare.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "onnx/backend_session.h"

namespace openhtp::onnx_conformance {

struct CaseResult {
  enum class Outcome { kPassed, kFailed, kSkipped } outcome = Outcome::kSkipped;
  std::string reason;                       // failure or skip reason
  std::set<std::string> unsupported_ops;    // skipped: op types the importer lacks entirely
  std::set<std::string> variant_ops;        // skipped: op types present but this use unsupported
  std::set<std::string> op_types;           // every op type of the original model
};

// ONNX backend-test tolerance: |got - want| <= atol + rtol * |want| for
// floats (rtol 1e-3, atol 1e-7), exact for integers and bools.
inline constexpr double kRtol = 1e-3;
inline constexpr double kAtol = 1e-7;

CaseResult run_case(onnx_import::BackendSession& session, const std::string& dir);

}  // namespace openhtp::onnx_conformance
