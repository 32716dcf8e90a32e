// Command line of qnn-net-run, with QNN's option names and meanings
// (docs/tools.md, "qnn-net-run"). Parsed once into typed values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "QnnLog.h"
#include "QnnProfile.h"

namespace openhtp::netrun {

// --native_input_tensor_names: "a,b" (any graph) or "graphA:a,b;graphB:c".
struct NativeInputName {
  std::string graph;  // empty: every graph
  std::string tensor;
};

struct Options {
  std::string backend;                 // --backend
  std::vector<std::string> models;     // --model, split at ','
  std::string retrieve_context;        // --retrieve_context
  std::string system_library;          // --system_library; empty: next to the backend
  std::string model_prefix = "QnnModel";
  std::vector<std::string> input_lists;  // --input_list, split at ','; "__" skips a graph
  std::string output_dir = "./output";
  bool use_native_output_files = false;
  bool use_native_input_files = false;
  std::vector<NativeInputName> native_input_tensor_names;
  std::optional<uint64_t> num_inferences;
  std::optional<double> duration_s;
  std::optional<uint64_t> keep_num_outputs;
  uint32_t batch_multiplier = 1;
  bool synchronous = false;
  QnnLog_Level_t log_level = QNN_LOG_LEVEL_ERROR;
  bool log_level_given = false;
  std::optional<QnnProfile_Level_t> profiling_level;  // unset: no profiling
  std::string profiling_level_name;                 // basic | detailed | backend | client
  std::string perf_profile;            // --perf_profile; empty: not given
  std::string config_file;             // --config_file; empty: none
  bool shared_buffer = false;          // --shared_buffer (or memory.mem_type in the HTP extension file)
  bool help = false;
  bool version = false;
};

// Returns false with a one-line reason in *error: unknown options (by name),
// missing or malformed values, contradicting options, missing required ones
// (unless --help or --version is given).
bool parse_options(int argc, char** argv, Options* out, std::string* error);

const char* usage_text();

}  // namespace openhtp::netrun
