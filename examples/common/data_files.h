// Reading the examples' data files: whole files, non-empty lines, float32
// arrays of a known length. Each returns false with a one-line `error`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace examples {

bool read_file(const std::string& path, std::vector<uint8_t>* out, std::string* error);
bool read_lines(const std::string& path, std::vector<std::string>* lines, std::string* error);
// Exactly `count` float32 values, or an error naming both sizes.
bool read_floats(const std::string& path, size_t count, std::vector<float>* out, std::string* error);

}  // namespace examples
