#include "dsp_heap/libc_next.h"

#include <atomic>
#include <cstdint>
#include <dlfcn.h>

namespace openhtp::dsp_heap {
namespace {

using FreeFn = void (*)(void*);
using ReallocFn = void* (*)(void*, size_t);
using UsableSizeFn = size_t (*)(void*);

constinit std::atomic<FreeFn> g_free{nullptr};
constinit std::atomic<ReallocFn> g_realloc{nullptr};
constinit std::atomic<UsableSizeFn> g_usable_size{nullptr};

// initial-exec: this library is preloaded, so its TLS is static, and reading
// the flag must not itself allocate (a dynamic TLS access may).
__attribute__((tls_model("initial-exec"))) constinit thread_local bool t_resolving = false;

constexpr size_t kBootstrapBytes = 16 * 1024;
constexpr size_t kBootstrapHeader = 16;  // each allocation's size, keeping 16-byte alignment
alignas(16) constinit unsigned char g_bootstrap[kBootstrapBytes] = {};
constinit std::atomic<size_t> g_bootstrap_used{0};

template <typename Fn>
Fn resolve(std::atomic<Fn>& slot, const char* name) {
  Fn fn = slot.load(std::memory_order_acquire);
  if (fn != nullptr) return fn;
  t_resolving = true;
  fn = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
  t_resolving = false;
  slot.store(fn, std::memory_order_release);  // racing threads store the same value
  return fn;
}

}  // namespace

void libc_free(void* p) {
  if (FreeFn fn = resolve(g_free, "free")) fn(p);
}

void* libc_realloc(void* p, size_t size) {
  ReallocFn fn = resolve(g_realloc, "realloc");
  return fn != nullptr ? fn(p, size) : nullptr;
}

size_t libc_usable_size(void* p) {
  UsableSizeFn fn = resolve(g_usable_size, "malloc_usable_size");
  return fn != nullptr ? fn(p) : 0;
}

bool resolving() { return t_resolving; }

void* bootstrap_alloc(size_t size) {
  size_t need = kBootstrapHeader + ((size + 15) & ~size_t{15});
  if (size > kBootstrapBytes) return nullptr;
  size_t at = g_bootstrap_used.fetch_add(need, std::memory_order_relaxed);
  if (at + need > kBootstrapBytes) return nullptr;
  *reinterpret_cast<size_t*>(g_bootstrap + at) = size;
  return g_bootstrap + at + kBootstrapHeader;
}

bool is_bootstrap(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto b = reinterpret_cast<uintptr_t>(g_bootstrap);
  return a >= b && a < b + kBootstrapBytes;
}

size_t bootstrap_size(const void* p) {
  return *reinterpret_cast<const size_t*>(static_cast<const unsigned char*>(p) - kBootstrapHeader);
}

}  // namespace openhtp::dsp_heap
