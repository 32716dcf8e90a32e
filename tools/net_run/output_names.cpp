#include "output_names.h"

namespace openhtp::netrun {

std::string sanitize_tensor_name(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!keep) c = '_';
  }
  if (!s.empty() && s[0] >= '0' && s[0] <= '9') s.insert(s.begin(), '_');
  return s;
}

std::string output_file_name(const std::string& name, size_t index, bool native) {
  const std::string base = name.empty() ? "Output_" + std::to_string(index) : sanitize_tensor_name(name);
  return base + (native ? "_native.raw" : ".raw");
}

}  // namespace openhtp::netrun
