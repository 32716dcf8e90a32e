/* The DSP heap: the memory a Non-RPC program's malloc/new hands out when it
 * runs under openhtp-dsp-run (docs/dsp-heap.md).
 *
 * On a real Hexagon DSP a Non-RPC program passes QNN its buffers by their
 * 32-bit QURT virtual address (QnnHtpMem_QurtAddress_t). openhtp serves the
 * whole process's heap from one region below 4 GiB so that every pointer the
 * program owns is such an address, and lets libQnnHtp ask whether an address
 * range lies inside one live allocation and keep ("pin") the blocks it holds
 * registered.
 *
 * Plain C ABI: libQnnHtp finds these functions with dlsym(RTLD_DEFAULT, ...)
 * (openhtp_dsp_heap_present tells it the heap is there), and the malloc
 * interposer calls them from under every malloc of the process. No function
 * here allocates, throws or crashes on bad input; all are thread-safe. */
#ifndef OPENHTP_DSP_HEAP_H
#define OPENHTP_DSP_HEAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPENHTP_DSP_HEAP_API __attribute__((visibility("default")))

/* What an address range is, as far as the heap knows (lookup and pin). */
typedef enum openhtp_dsp_heap_result {
  OPENHTP_DSP_HEAP_LIVE = 0,          /* inside one live allocation (pin: pinned) */
  OPENHTP_DSP_HEAP_FREE = 1,          /* in the region, not in a live allocation: a free
                                         block or the heap's own bookkeeping */
  OPENHTP_DSP_HEAP_TOO_SMALL = 2,     /* starts in a live allocation, runs past its end */
  OPENHTP_DSP_HEAP_FREED_PENDING = 3, /* in a block the program freed while it was
                                         pinned; released when its last pin goes */
  OPENHTP_DSP_HEAP_OUTSIDE = 4,       /* not in the region (or no region yet) */
  OPENHTP_DSP_HEAP_NO_MEMORY = 5,     /* pin: no room for the pin record */
  OPENHTP_DSP_HEAP_INVALID = 6        /* pin: pin_id is NULL */
} openhtp_dsp_heap_result;

/* The allocation a range lies in (lookup's LIVE, TOO_SMALL, FREED_PENDING). */
typedef struct openhtp_dsp_heap_block {
  uint64_t start;  /* the pointer malloc returned */
  uint64_t size;   /* its usable size (>= the size asked for) */
  uint32_t pins;   /* how many pins hold it */
} openhtp_dsp_heap_block_t;

typedef struct openhtp_dsp_heap_stats {
  uint64_t region_base;       /* 0 until the region is reserved (first allocation) */
  uint64_t region_size;
  uint64_t bytes_in_use;      /* usable bytes of live and freed-pending blocks */
  uint64_t peak_bytes_in_use;
  uint64_t live_blocks;       /* allocations the program holds */
  uint64_t pinned_blocks;     /* blocks with at least one pin (live or freed-pending) */
  uint64_t pending_blocks;    /* freed while pinned, not released yet */
  uint64_t pins;              /* pins held, over all blocks */
} openhtp_dsp_heap_stats_t;

/* 1: the heap is in this process (it always is when this library is). */
OPENHTP_DSP_HEAP_API int openhtp_dsp_heap_present(void);

/* malloc-like. align: 0 means the malloc default (16); otherwise a power of
 * two (any size). NULL when out of memory or align is not a power of two.
 * size 0 gives a unique minimum-size block. */
OPENHTP_DSP_HEAP_API void* openhtp_dsp_heap_alloc(size_t size, size_t align);
/* NULL is a no-op. A pinned block is not released (see the pin functions);
 * a double free or a pointer that is no allocation is reported and ignored. */
OPENHTP_DSP_HEAP_API void openhtp_dsp_heap_free(void* p);
/* realloc semantics (NULL p: alloc; size 0: free and return NULL). The
 * returned block keeps the 16-byte alignment only. A pinned block never
 * moves in place or shrinks: growing it allocates a new block and frees the
 * old one as free() would (kept and reported). */
OPENHTP_DSP_HEAP_API void* openhtp_dsp_heap_realloc(void* p, size_t size);
/* Usable bytes of the allocation starting at p; 0 if p is none. */
OPENHTP_DSP_HEAP_API size_t openhtp_dsp_heap_usable_size(const void* p);
/* 1 if p lies in the heap's region (whether or not it is allocated). */
OPENHTP_DSP_HEAP_API int openhtp_dsp_heap_contains(const void* p);

/* Where [addr, addr + size) lies (size 0 counts as 1). out (may be NULL) is
 * filled for LIVE, TOO_SMALL and FREED_PENDING. Interior addresses work.
 * Cost: a backward scan of the heap's block-start bitmap from addr to the
 * start of the block holding it, one 64-bit word per 64 KiB of that
 * distance (8 MiB into a block: 1 KiB read; 1 GiB: 128 KiB); meant for
 * registration time, not for every access. */
OPENHTP_DSP_HEAP_API int openhtp_dsp_heap_lookup(uint64_t addr, uint64_t size, openhtp_dsp_heap_block_t* out);

/* Pins the live block holding [addr, addr + size): until every pin on it is
 * gone, free() does not release it. owner (may be NULL) is a short text
 * naming who holds it, quoted when the program frees the block; it is copied
 * (up to 191 bytes). A block may be pinned any number of times. Returns LIVE
 * and sets *pin_id, or the lookup result that made it fail (or NO_MEMORY,
 * INVALID). */
OPENHTP_DSP_HEAP_API int openhtp_dsp_heap_pin(uint64_t addr, uint64_t size, const char* owner, uint64_t* pin_id);
/* Removes a pin; the last pin of a freed-pending block releases the block.
 * Returns 1, or 0 (reported) when pin_id is not a pin held now. */
OPENHTP_DSP_HEAP_API int openhtp_dsp_heap_unpin(uint64_t pin_id);

/* Every error line (a free of a pinned block, a double or wild free, an
 * unknown pin, a region that cannot be reserved) goes to stderr, and also to
 * fn when one is set (NULL unsets). fn gets the line without its newline and
 * is called with no heap lock held, so it may allocate. Unset it before the
 * code of fn is unloaded (dlclose). */
OPENHTP_DSP_HEAP_API void openhtp_dsp_heap_set_report(void (*fn)(const char* line));

OPENHTP_DSP_HEAP_API void openhtp_dsp_heap_stats(openhtp_dsp_heap_stats_t* out);

/* Walks every block and checks the allocator's invariants (tlsf.h).
 * 0 when they hold; otherwise the number of the first one broken. O(blocks):
 * for tests. */
OPENHTP_DSP_HEAP_API int openhtp_dsp_heap_check(void);

#ifdef __cplusplus
}
#endif

#endif /* OPENHTP_DSP_HEAP_H */
