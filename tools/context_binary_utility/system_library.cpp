#include "system_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <vector>

namespace openhtp::tools {
namespace {

constexpr const char* kLibName = "libQnnSystem.so";

std::string exe_relative_library() {
  std::vector<char> buf(4096);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return {};
  std::string exe(buf.data(), static_cast<size_t>(n));
  const size_t slash = exe.rfind('/');
  if (slash == std::string::npos) return {};
  return exe.substr(0, slash) + "/../lib/" + kLibName;
}

// The log callback has no user pointer: one capture at a time, process-wide.
std::mutex g_mu;
std::string g_last_error;

void capture_callback(const char* fmt, QnnLog_Level_t level, uint64_t, va_list args) {
  if (level != QNN_LOG_LEVEL_ERROR) return;
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, fmt, args);
  std::lock_guard lock(g_mu);
  g_last_error = buf;
}

}  // namespace

SystemLibrary::~SystemLibrary() {
  // Left loaded on purpose: the library may still own memory the caller
  // references until exit, and unloading buys nothing in a one-shot tool.
}

bool SystemLibrary::load(std::string* error) {
  std::string why;
  for (const std::string& candidate : {std::string(kLibName), exe_relative_library()}) {
    if (candidate.empty()) continue;
    handle_ = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) {
      path_ = candidate;
      break;
    }
    const char* e = dlerror();
    why += std::string(why.empty() ? "" : "; ") + (e != nullptr ? e : candidate);
  }
  if (handle_ == nullptr) {
    *error = "cannot load " + std::string(kLibName) + ": " + why;
    return false;
  }
  using GetProvidersFn = Qnn_ErrorHandle_t (*)(const QnnSystemInterface_t***, uint32_t*);
  auto get_providers = reinterpret_cast<GetProvidersFn>(dlsym(handle_, "QnnSystemInterface_getProviders"));
  if (get_providers == nullptr) {
    *error = path_ + " has no QnnSystemInterface_getProviders";
    return false;
  }
  const QnnSystemInterface_t** providers = nullptr;
  uint32_t n = 0;
  if (const Qnn_ErrorHandle_t e = get_providers(&providers, &n); e != QNN_SUCCESS || providers == nullptr) {
    *error = "QnnSystemInterface_getProviders failed with error " + std::to_string(e);
    return false;
  }
  // Same major; any minor, since the four system-context entries this tool
  // calls are the first four of every 1.x table.
  for (uint32_t i = 0; i < n && api_ == nullptr; ++i) {
    const QnnSystemInterface_t* p = providers[i];
    if (p != nullptr && p->systemApiVersion.major == QNN_SYSTEM_API_VERSION_MAJOR) api_ = &p->QNN_SYSTEM_INTERFACE_VER_NAME;
  }
  if (api_ == nullptr || api_->systemContextCreate == nullptr || api_->systemContextGetBinaryInfo == nullptr ||
      api_->systemContextFree == nullptr) {
    *error = path_ + " offers no usable system API " + std::to_string(QNN_SYSTEM_API_VERSION_MAJOR) + ".x provider";
    api_ = nullptr;
    return false;
  }
  get_weights_size_ = reinterpret_cast<OpenHtpSystemContext_GetWeightsSizeFn_t>(
      dlsym(handle_, OPENHTP_SYSTEM_CONTEXT_GET_WEIGHTS_SIZE_SYMBOL));
  return true;
}

SystemLogCapture::SystemLogCapture(const SystemLibrary& lib) : lib_(lib) {
  {
    std::lock_guard lock(g_mu);
    g_last_error.clear();
  }
  // Optional: without a log the tool still reports the error code.
  if (lib_.api().systemLogCreate == nullptr ||
      lib_.api().systemLogCreate(capture_callback, QNN_LOG_LEVEL_ERROR, &log_) != QNN_SUCCESS) {
    log_ = nullptr;
  }
}

SystemLogCapture::~SystemLogCapture() {
  if (log_ != nullptr && lib_.api().systemLogFree != nullptr) lib_.api().systemLogFree(log_);
}

std::string SystemLogCapture::last_error() const {
  std::lock_guard lock(g_mu);
  return g_last_error;
}

}  // namespace openhtp::tools
