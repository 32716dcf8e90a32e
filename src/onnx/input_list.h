// qnn-net-run's input list: one line per inference, space-separated raw
// float32 files, either "name:=path" or plain paths in graph input order.
// Empty lines are skipped, a first line starting with '#' and lines starting
// with '%' (output-name lines) are ignored.
#pragma once

#include <string>
#include <vector>

namespace openhtp::onnx_import {

// One inference: a path per graph input, ordered like `input_names`.
using InputListEntry = std::vector<std::string>;

bool parse_input_list(const std::string& text, const std::vector<std::string>& input_names,
                      std::vector<InputListEntry>* out, std::string* error);
bool read_input_list(const std::string& path, const std::vector<std::string>& input_names,
                     std::vector<InputListEntry>* out, std::string* error);

}  // namespace openhtp::onnx_import
