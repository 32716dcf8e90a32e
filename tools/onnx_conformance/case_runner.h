// One ONNX backend test case (model.onnx + test_data_set_*/input_K.pb,
// output_K.pb): support check, import into a fresh context, run, compare.
//
// A case is skipped only when one of its op types has no lowering in the
// importer. Every other case is attempted, and a refusal (a data type,
// attribute or shape the importer or QNN cannot express) counts as a
// failure with its reason. Graph inputs that only feed what QNN takes as
// static op parameters (Pad's pads, Slice's starts, Resize's scales, ...)
// are bound to the case's own values when the model is refused otherwise,
// or when an op with no lowering (Range, ConstantOfShape) folds with them;
// also inputs that reach such parameters only through other nodes (a
// window size cast and fed to Range).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "onnx/backend_session.h"

namespace openhtp::onnx_conformance {

struct CaseResult {
  enum class Outcome { kPassed, kFailed, kSkipped } outcome = Outcome::kSkipped;
  std::string reason;                     // failure or skip reason
  std::set<std::string> unsupported_ops;  // skipped: op types the importer has no lowering for
  std::set<std::string> op_types;         // every op type of the original model
  // Graph inputs that feed only QNN op parameters (pads, axes, scales, ...)
  // and were bound to the case's values as constants.
  std::vector<std::string> bound_inputs;
};

// ONNX backend-test tolerance: |got - want| <= atol + rtol * |want| for
// floats (rtol 1e-3, atol 1e-7), exact for integers and bools.
inline constexpr double kRtol = 1e-3;
inline constexpr double kAtol = 1e-7;

CaseResult run_case(onnx_import::BackendSession& session, const std::string& dir);

}  // namespace openhtp::onnx_conformance
