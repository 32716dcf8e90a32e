// libopenhtp_dsp_malloc.so: the C library's allocation functions, all served
// from the DSP heap, so that every pointer a program run under
// openhtp-dsp-run gets from malloc, new or any library is a 32-bit address.
//
// glibc lets a preloaded library replace malloc by defining these functions
// (its "Replacing malloc" rules: malloc, free, calloc and realloc at least,
// the aligned and usable-size variants so nothing mixes allocators); its own
// internal allocations and libstdc++'s operator new then land here too.
// Pointers from outside the heap (allocated before this library was in
// place) are passed to the C library's own free/realloc (libc_next.h).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <unistd.h>

#include "dsp_heap/dsp_heap.h"
#include "dsp_heap/libc_next.h"

using namespace openhtp::dsp_heap;

namespace {

bool is_power_of_two(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

void* allocate(size_t size, size_t align) {
  if (resolving()) return bootstrap_alloc(size);
  void* p = openhtp_dsp_heap_alloc(size, align);
  if (p == nullptr) errno = ENOMEM;
  return p;
}

size_t page_size() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

// A block from elsewhere (libc or the bootstrap buffer) moves into the heap:
// after one realloc it, too, has a 32-bit address.
void* move_into_heap(void* p, size_t old_size, size_t size) {
  void* q = allocate(size, 0);
  if (q != nullptr) ::memcpy(q, p, old_size < size ? old_size : size);
  return q;
}

}  // namespace

#define OPENHTP_EXPORT extern "C" __attribute__((visibility("default")))

OPENHTP_EXPORT void* malloc(size_t size) noexcept { return allocate(size, 0); }

OPENHTP_EXPORT void free(void* p) noexcept {
  if (p == nullptr || is_bootstrap(p)) return;
  if (openhtp_dsp_heap_contains(p)) {
    openhtp_dsp_heap_free(p);
  } else {
    libc_free(p);
  }
}

OPENHTP_EXPORT void* calloc(size_t count, size_t size) noexcept {
  size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* p = allocate(total, 0);
  if (p != nullptr) ::memset(p, 0, total);
  return p;
}

OPENHTP_EXPORT void* realloc(void* p, size_t size) noexcept {
  if (p == nullptr) return allocate(size, 0);
  if (is_bootstrap(p)) return move_into_heap(p, bootstrap_size(p), size);
  if (!openhtp_dsp_heap_contains(p)) {
    if (size == 0) {
      libc_free(p);
      return nullptr;
    }
    void* q = move_into_heap(p, libc_usable_size(p), size);
    if (q != nullptr) libc_free(p);
    return q;
  }
  void* q = openhtp_dsp_heap_realloc(p, size);
  if (q == nullptr && size != 0) errno = ENOMEM;
  return q;
}

OPENHTP_EXPORT void* reallocarray(void* p, size_t count, size_t size) noexcept {
  size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, total);
}

OPENHTP_EXPORT int posix_memalign(void** out, size_t align, size_t size) noexcept {
  if (!is_power_of_two(align) || align % sizeof(void*) != 0) return EINVAL;
  void* p = openhtp_dsp_heap_alloc(size, align);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

OPENHTP_EXPORT void* aligned_alloc(size_t align, size_t size) noexcept {
  if (!is_power_of_two(align)) {
    errno = EINVAL;
    return nullptr;
  }
  return allocate(size, align);
}

// glibc's memalign takes any alignment and rounds it up to a power of two.
OPENHTP_EXPORT void* memalign(size_t align, size_t size) noexcept {
  if (align > (size_t{1} << 31)) {
    errno = EINVAL;
    return nullptr;
  }
  size_t pow2 = 16;
  while (pow2 < align) pow2 <<= 1;
  return allocate(size, pow2);
}

OPENHTP_EXPORT void* valloc(size_t size) noexcept { return allocate(size, page_size()); }

OPENHTP_EXPORT void* pvalloc(size_t size) noexcept {
  size_t page = page_size();
  if (size > SIZE_MAX - page) {
    errno = ENOMEM;
    return nullptr;
  }
  return allocate((size + page - 1) & ~(page - 1), page);
}

OPENHTP_EXPORT size_t malloc_usable_size(void* p) noexcept {
  if (p == nullptr) return 0;
  if (is_bootstrap(p)) return bootstrap_size(p);
  if (openhtp_dsp_heap_contains(p)) return openhtp_dsp_heap_usable_size(p);
  return libc_usable_size(p);
}
