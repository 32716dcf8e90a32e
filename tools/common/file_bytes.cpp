#include "common/file_bytes.h"

#include <fstream>
#include <iterator>

namespace openhtp::tools {

bool read_file_bytes(const std::string& path, std::vector<uint8_t>* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open for reading";
    return false;
  }
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    *error = "read error";
    return false;
  }
  if (out->empty()) {
    *error = "file is empty";
    return false;
  }
  return true;
}

}  // namespace openhtp::tools
