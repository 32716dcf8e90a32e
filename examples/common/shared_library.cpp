#include "shared_library.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <filesystem>

namespace examples {
namespace {

std::string loaded_file_of(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

// <directory of the running executable>/../lib, or "" if it cannot be found.
std::string lib_dir_next_to_executable() {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return {};
  exe[n] = '\0';
  return (std::filesystem::path(exe).parent_path() / ".." / "lib").lexically_normal().string();
}

}  // namespace

void* open_shared_library(const std::string& name, std::string* opened_path, std::string* error) {
  std::string why;
  if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    *opened_path = loaded_file_of(h, name);
    return h;
  }
  why = std::string("dlopen(\"") + name + "\"): " + dlerror();

  // dlopen only honours the RUNPATH of the object that calls it; be robust to
  // a build where that is missing and look where the build tree puts it.
  if (const std::string dir = lib_dir_next_to_executable(); !dir.empty()) {
    const std::string candidate = dir + "/" + name;
    if (void* h = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      *opened_path = loaded_file_of(h, candidate);
      return h;
    }
    why += std::string("; dlopen(\"") + candidate + "\"): " + dlerror();
  }
  *error = why;
  return nullptr;
}

}  // namespace examples
