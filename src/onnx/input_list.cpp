#include "onnx/input_list.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_bytes.h"

namespace openhtp::onnx_import {

bool parse_input_list(const std::string& text, const std::vector<std::string>& input_names,
                      std::vector<InputListEntry>* out, std::string* error) {
  std::istringstream in(text);
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if ((line_no == 1 && line[0] == '#') || line[0] == '%') continue;
    std::istringstream words(line);
    std::string word;
    std::vector<std::string> plain;
    InputListEntry named(input_names.size());
    bool any_named = false;
    while (words >> word) {
      const size_t sep = word.find(":=");
      if (sep == std::string::npos) {
        plain.push_back(word);
        continue;
      }
      any_named = true;
      const std::string name = word.substr(0, sep);
      size_t k = 0;
      while (k < input_names.size() && input_names[k] != name) ++k;
      if (k == input_names.size()) {
        *error = "input list line " + std::to_string(line_no) + ": '" + name + "' is not a graph input";
        return false;
      }
      named[k] = word.substr(sep + 2);
    }
    if (any_named && !plain.empty()) {
      *error = "input list line " + std::to_string(line_no) + ": mixes name:=path and plain paths";
      return false;
    }
    InputListEntry entry = any_named ? named : plain;
    if (entry.size() != input_names.size()) {
      *error = "input list line " + std::to_string(line_no) + ": " + std::to_string(entry.size()) +
               " files for " + std::to_string(input_names.size()) + " graph inputs";
      return false;
    }
    for (size_t k = 0; k < entry.size(); ++k) {
      if (entry[k].empty()) {
        *error = "input list line " + std::to_string(line_no) + ": no file for input '" + input_names[k] + "'";
        return false;
      }
    }
    out->push_back(std::move(entry));
  }
  if (out->empty()) {
    *error = "input list has no inference lines";
    return false;
  }
  return true;
}

bool read_input_list(const std::string& path, const std::vector<std::string>& input_names,
                     std::vector<InputListEntry>* out, std::string* error) {
  std::string text, why;
  if (!read_file_text(path, &text, &why)) {  // a regular file only: never a device's endless bytes
    *error = path + ": cannot read the input list: " + why;
    return false;
  }
  if (!parse_input_list(text, input_names, out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  // Relative paths are relative to the list's directory, as in qnn-net-run.
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (auto& entry : *out) {
    for (auto& p : entry) {
      if (!p.empty() && p[0] != '/' && !std::filesystem::exists(p)) p = (dir / p).string();
    }
  }
  return true;
}

}  // namespace openhtp::onnx_import
