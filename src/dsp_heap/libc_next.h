// The C library's own free/realloc/malloc_usable_size, for the few pointers
// the DSP heap did not hand out (memory allocated before the interposer was
// in place, e.g. by ld.so's early bootstrap allocator).
//
// They are found with dlsym(RTLD_NEXT, ...) on first use. dlsym may itself
// allocate (glibc's dlerror state uses calloc); while it runs on a thread,
// that thread's allocations are served from a small static bootstrap buffer
// instead, so resolving never depends on the heap or on itself.
#pragma once

#include <cstddef>

namespace openhtp::dsp_heap {

void libc_free(void* p);
void* libc_realloc(void* p, size_t size);
size_t libc_usable_size(void* p);

// True on a thread that is inside dlsym for one of the above.
bool resolving();
// Bootstrap allocations (never freed: a few hundred bytes, once).
void* bootstrap_alloc(size_t size);
bool is_bootstrap(const void* p);
size_t bootstrap_size(const void* p);

}  // namespace openhtp::dsp_heap
