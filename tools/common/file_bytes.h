// A whole file as bytes, for the tools that read context binaries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace openhtp::tools {

// False + *error ("cannot open for reading", "read error", "file is empty")
// when the file cannot be read whole or holds nothing; the caller names it.
bool read_file_bytes(const std::string& path, std::vector<uint8_t>* out, std::string* error);

}  // namespace openhtp::tools
