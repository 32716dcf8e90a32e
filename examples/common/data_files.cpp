#include "data_files.h"

#include <cstring>
#include <fstream>
#include <iterator>

namespace examples {

bool read_file(const std::string& path, std::vector<uint8_t>* out, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot open " + path;
    return false;
  }
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

bool read_lines(const std::string& path, std::vector<std::string>* lines, std::string* error) {
  std::ifstream f(path);
  if (!f) {
    *error = "cannot open " + path;
    return false;
  }
  for (std::string line; std::getline(f, line);) {
    if (!line.empty()) lines->push_back(line);
  }
  return true;
}

bool read_floats(const std::string& path, size_t count, std::vector<float>* out, std::string* error) {
  std::vector<uint8_t> bytes;
  if (!read_file(path, &bytes, error)) return false;
  if (bytes.size() != count * sizeof(float)) {
    *error = path + " holds " + std::to_string(bytes.size()) + " bytes, expected " +
             std::to_string(count * sizeof(float)) + " (" + std::to_string(count) + " float32 values)";
    return false;
  }
  out->resize(count);
  std::memcpy(out->data(), bytes.data(), bytes.size());
  return true;
}


}  // namespace examples
