// Command line of qnn-context-binary-generator, with QNN's option names.
// Both "--opt value" and "--opt=value" are accepted.
#pragma once

#include <string>
#include <vector>

#include "QnnLog.h"

namespace openhtp::generator {

struct Options {
  std::vector<std::string> models;    // --model, split at ','
  std::string backend;                // --backend
  std::string binary_file;            // --binary_file (".bin" is appended)
  std::string output_dir = "./output";
  std::string model_prefix = "QnnModel";
  QnnLog_Level_t log_level = QNN_LOG_LEVEL_ERROR;
  bool log_level_given = false;
  std::string config_file;            // --config_file; empty: none
  bool help = false;
  bool version = false;
};

// Returns false with a one-line reason in *error for unknown options, missing
// values, a bad --log_level and missing required options (unless --help or
// --version is given).
bool parse_options(int argc, char** argv, Options* out, std::string* error);

const char* usage_text();

}  // namespace openhtp::generator
