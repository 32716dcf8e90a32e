#include "common/library_location.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

namespace openhtp {
namespace {

std::string parent_dir(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void add_unique(std::vector<std::string>* dirs, std::string dir) {
  if (dir.empty()) return;
  for (const std::string& d : *dirs) {
    if (d == dir) return;
  }
  dirs->push_back(std::move(dir));
}

}  // namespace

LoadedFrom loaded_from(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr || info.dli_fname[0] == '\0') return {};
  LoadedFrom out;
  out.as_loaded = parent_dir(info.dli_fname);
  char resolved[PATH_MAX];
  out.resolved = ::realpath(info.dli_fname, resolved) != nullptr ? parent_dir(resolved) : out.as_loaded;
  return out;
}

std::vector<std::string> sdk_search_dirs(const void* address) {
  std::vector<std::string> dirs;
  const LoadedFrom from = loaded_from(address);
  add_unique(&dirs, from.resolved);
  add_unique(&dirs, from.as_loaded);
  if (const char* root = getenv("QNN_SDK_ROOT"); root != nullptr && root[0] != '\0') {
    add_unique(&dirs, std::string(root) + "/lib/x86_64-linux-clang");
    add_unique(&dirs, std::string(root) + "/lib");
  }
#ifdef OPENHTP_INSTALL_LIBDIR
  add_unique(&dirs, OPENHTP_INSTALL_LIBDIR);
#endif
  return dirs;
}

std::string find_sdk_file(const void* address, std::string_view relative, std::string* searched) {
  const std::vector<std::string> dirs = sdk_search_dirs(address);
  for (const std::string& d : dirs) {
    std::string path = d + "/" + std::string(relative);
    if (::access(path.c_str(), R_OK) == 0) return path;
  }
  if (searched != nullptr) {
    searched->clear();
    for (const std::string& d : dirs) *searched += (searched->empty() ? "" : ", ") + d;
    if (searched->empty()) *searched = "(no directory could be told)";
  }
  return {};
}

}  // namespace openhtp
