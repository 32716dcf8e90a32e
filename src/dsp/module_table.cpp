#include "dsp/module_table.h"

#include <dlfcn.h>
#include <unistd.h>

#include <vector>

#include "common/log.h"

namespace openhtp::dsp {
namespace {

constexpr const char* kInvokeSuffix = "_skel_handle_invoke";

std::string executable_dir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  auto slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

ModuleTable::ModuleTable() : exe_dir_(executable_dir()) {}

ModuleTable::~ModuleTable() {
  // Libraries stay loaded until the process exits: a skel may have threads or
  // static state that outlive its handles.
}

std::string ModuleTable::find_library(const std::string& name) const {
  std::vector<std::string> dirs;
  if (const char* env = getenv("ADSP_LIBRARY_PATH"); env != nullptr) dirs = split(env, ';');
  dirs.push_back(exe_dir_);
  for (const auto& d : dirs) {
    std::string p = d + "/" + name;
    if (access(p.c_str(), R_OK) == 0) return p;
  }
  return {};
}

int ModuleTable::open(const std::string& uri, uint64_t* handle) {
  // file:///libname.so?function&_modver=1.0&_dom=cdsp
  const std::string scheme = "file:///";
  if (uri.compare(0, scheme.size(), scheme) != 0) {
    log(LogLevel::kError, "cdsp", "open: URI '%s' does not start with file:///", uri.c_str());
    return AEE_EINVALIDFORMAT;
  }
  const size_t q = uri.find('?');
  if (q == std::string::npos) {
    log(LogLevel::kError, "cdsp", "open: URI '%s' names no invoke function", uri.c_str());
    return AEE_EINVALIDFORMAT;
  }
  const std::string lib = uri.substr(scheme.size(), q - scheme.size());
  const std::string fn = uri.substr(q + 1, uri.find('&', q) - q - 1);
  if (lib.empty() || lib.find('/') != std::string::npos || fn.empty()) {
    log(LogLevel::kError, "cdsp", "open: malformed URI '%s'", uri.c_str());
    return AEE_EINVALIDFORMAT;
  }
  std::lock_guard lock(mu_);
  void*& dl = libraries_[lib];
  if (dl == nullptr) {
    const std::string path = find_library(lib);
    if (path.empty()) {
      log(LogLevel::kError, "cdsp", "open: %s not found in ADSP_LIBRARY_PATH or %s", lib.c_str(), exe_dir_.c_str());
      libraries_.erase(lib);
      return AEE_ENOSUCH;
    }
    dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (dl == nullptr) {
      log(LogLevel::kError, "cdsp", "open: dlopen(%s): %s", path.c_str(), dlerror());
      libraries_.erase(lib);
      return AEE_ENOSUCH;
    }
  }
  auto invoke = reinterpret_cast<InvokeFn>(dlsym(dl, fn.c_str()));
  if (invoke == nullptr) {
    log(LogLevel::kError, "cdsp", "open: %s has no function %s", lib.c_str(), fn.c_str());
    return AEE_ENOSUCH;
  }
  Handle h{invoke, nullptr, 0};
  if (fn.size() > std::string(kInvokeSuffix).size() &&
      fn.compare(fn.size() - std::string(kInvokeSuffix).size(), std::string::npos, kInvokeSuffix) == 0) {
    const std::string prefix = fn.substr(0, fn.size() - std::string(kInvokeSuffix).size());
    auto open_fn = reinterpret_cast<OpenFn>(dlsym(dl, (prefix + "_open").c_str()));
    h.close = reinterpret_cast<CloseFn>(dlsym(dl, (prefix + "_close").c_str()));
    if (open_fn != nullptr) {
      int rc = open_fn(uri.c_str(), &h.module_handle);
      if (rc != 0) return rc;
    }
  }
  *handle = next_handle_++;
  handles_[*handle] = h;
  return AEE_SUCCESS;
}

int ModuleTable::invoke(uint64_t handle, uint32_t scalars, remote_arg* args, InvokeMemo* memo) {
  // A close racing with this call orders after it, as it would had the call
  // taken the lock first; a call that starts after a close sees the new count.
  if (memo->handle != handle || memo->closes != closes_.load(std::memory_order_acquire)) {
    std::lock_guard lock(mu_);
    auto it = handles_.find(handle);
    if (it == handles_.end()) return AEE_EBADHANDLE;
    memo->handle = handle;
    memo->closes = closes_.load(std::memory_order_relaxed);
    memo->h = it->second;
  }
  return memo->h.invoke(memo->h.module_handle, scalars, args);
}

int ModuleTable::close(uint64_t handle) {
  Handle h;
  {
    std::lock_guard lock(mu_);
    auto it = handles_.find(handle);
    if (it == handles_.end()) return AEE_EBADHANDLE;
    h = it->second;
    handles_.erase(it);
    closes_.fetch_add(1, std::memory_order_release);
  }
  return h.close != nullptr ? h.close(h.module_handle) : AEE_SUCCESS;
}

}  // namespace openhtp::dsp
