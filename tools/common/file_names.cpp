#include "common/file_names.h"

namespace openhtp::tools {

std::string safe_file_name(const std::string& name) {
  std::string s;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    s += ok ? c : '_';
  }
  if (s.empty() || s == "." || s == "..") s = "_" + s;
  return s;
}

std::string UniqueNames::take(const std::string& stem, const std::string& ext) {
  std::string name = stem + ext;
  for (size_t k = 1; !used_.insert(name).second; ++k) name = stem + "-" + std::to_string(k) + ext;
  return name;
}

}  // namespace openhtp::tools
