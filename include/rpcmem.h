/* rpcmem: shareable memory for FastRPC clients (openhtp implementation).
 *
 * Memory from rpcmem_alloc is a real kernel object (a DMA-BUF from
 * /dev/dma_heap/system when the machine has one, a memfd otherwise) so the
 * DSP process maps the very same pages: a buffer passed to the DSP by
 * reference is never copied. Heap ids and flags are accepted for source
 * compatibility; like the Linux FastRPC library, placement ignores them. */
#ifndef RPCMEM_H
#define RPCMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define RPCMEM_API __attribute__((visibility("default")))
#else
#define RPCMEM_API
#endif

/* Heap ids. */
#define RPCMEM_DEFAULT_HEAP (-1)
#define RPCMEM_HEAP_ID_SECURE 9
#define RPCMEM_HEAP_ID_CONTIG 22
#define RPCMEM_HEAP_ID_SYSTEM 25

/* Flags. */
#define RPCMEM_DEFAULT_FLAGS 1
#define RPCMEM_FLAG_UNCACHED 0
#define RPCMEM_FLAG_CACHED RPCMEM_DEFAULT_FLAGS
#define RPCMEM_FORCE_NOFLUSH 0x01000000
#define RPCMEM_FORCE_NOINVALIDATE 0x02000000
#define RPCMEM_TRY_MAP_STATIC 0x04000000
/* Deprecated heap bits: tolerated and ignored. */
#define RPCMEM_HEAP_NONCOHERENT 0x08000000
#define RPCMEM_HEAP_NOVA 0x10000000
#define RPCMEM_HEAP_UNCACHED 0x20000000
#define RPCMEM_HEAP_NOREG 0x40000000

/* Optional: the library initialises itself on first use. */
RPCMEM_API void rpcmem_init(void);
RPCMEM_API void rpcmem_deinit(void);

/* Allocates `size` bytes (> 0). Returns NULL on failure. */
RPCMEM_API void* rpcmem_alloc(int heapid, uint32_t flags, int size);
/* Same with a 64-bit size, for buffers over 2 GiB. */
RPCMEM_API void* rpcmem_alloc2(int heapid, uint32_t flags, size_t size);
/* Frees a buffer; an unknown pointer is ignored (and logged). */
RPCMEM_API void rpcmem_free(void* po);
/* The buffer's file descriptor; -1 for memory rpcmem did not allocate. An
 * interior pointer resolves to its allocation. */
RPCMEM_API int rpcmem_to_fd(void* po);

#ifdef __cplusplus
}
#endif

#endif /* RPCMEM_H */
