// The DSP heap's allocator: TLSF (two-level segregated fit) over one region.
//
// Algorithm
//   The region is cut into blocks that tile it exactly. Each block starts
//   with a 16-byte header (BlockHeader) followed by its payload, the bytes
//   the program gets. Free blocks are kept in 24 x 32 doubly linked lists,
//   one per size class: the first level is the power of two of the size
//   (sizes below 512 bytes share level 0), the second splits that power of
//   two into 32 equal steps (16 bytes apart at level 0). Two bitmaps say
//   which lists are non-empty.
//   - allocate(n): round n up to the next class boundary, so that every
//     block of the class found is big enough ("good fit"), find the first
//     non-empty class at or above it with two find-first-set instructions,
//     take that list's head, and cut off what the request does not need as a
//     new free block. Aligned requests ask for n + align and cut the leading
//     gap off as a free block too.
//   - release(b): mark b free, merge it with a free physical neighbour on
//     either side (the header of the next block is at b + 16 + size, the
//     previous one's address is in b's header), put the result in its list.
//   Both are O(1): no loop depends on how many blocks exist.
//
// Invariants (check() verifies all of them)
//   1. Blocks tile [base, end - 16) with no gap: the first block is at base,
//      the next of b is at b + 16 + size(b), and the last header, at end - 16,
//      is a used, empty sentinel, so merging never runs off the region.
//   2. prev_phys of every block but the first is the start of the block
//      before it (kept up to date on every split and merge).
//   3. No two free blocks are adjacent (merging is immediate), so a free
//      block's neighbours are used and the free space is never fragmented
//      into pieces that could have been one.
//   4. A block is in free list (fl, sl) = index_of(size) iff it is free; a
//      bitmap bit is set iff its list is non-empty.
//   5. A BlockStarts bit is set iff a block header starts at that granule
//      (and its summary bit iff its bitmap word is non-zero).
//   6. A free block has no pins; a freed-pending block has at least one.
//
// Why TLSF
//   Bounded time for every malloc and free, which matters because all of a
//   process's allocations go through one lock here; boundary tags give
//   coalescing without a search, so long runs do not fragment the region;
//   and its metadata is a few KiB of lists plus 16 bytes per block, all of
//   it inside or beside the region, so it needs no allocator of its own.
//   One known weakness is handled explicitly: good fit can miss the only
//   block big enough when it sits in the request's own class (blocks of one
//   class differ by up to 1/32), so a failed search looks through the first
//   kExactScanLimit blocks of that class too. Without it, one allocation of
//   nearly the whole (empty) region would fail.
//
// Not thread-safe: the caller (dsp_heap.cpp) holds one lock around it.
// Addresses are kept as uint32_t: every block lies below 4 GiB.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dsp_heap/block_starts.h"

namespace openhtp::dsp_heap {

inline constexpr size_t kHeaderBytes = 16;
inline constexpr size_t kMinPayload = 16;  // room for a free block's list links, keeps 16-byte alignment
inline constexpr size_t kPayloadAlign = 16;

enum BlockFlag : uint32_t {
  kFree = 1,      // in a free list
  kPending = 2,   // freed by the program while pinned
  kInternal = 4,  // the heap's own (a pin record), never the program's
};
inline constexpr uint32_t kFlagMask = 0xf;

struct BlockHeader {
  uint32_t prev_phys;   // start of the physically previous block, 0 for the first
  uint32_t size_flags;  // payload bytes (a multiple of 16) | BlockFlag bits
  uint32_t first_pin;   // the block's first pin record (pin_table.h), 0 when none
  uint32_t pin_count;

  size_t size() const { return size_flags & ~kFlagMask; }
  uint32_t flags() const { return size_flags & kFlagMask; }
  bool has(BlockFlag f) const { return (size_flags & f) != 0; }
  uintptr_t start() const { return reinterpret_cast<uintptr_t>(this); }
  uintptr_t payload() const { return start() + kHeaderBytes; }
  uintptr_t end() const { return payload() + size(); }  // where the next header starts
};
static_assert(sizeof(BlockHeader) == kHeaderBytes);

// A span of bytes that just became free, for release_pages().
struct FreedSpan {
  uintptr_t lo = 0;
  uintptr_t hi = 0;
};

class Tlsf {
 public:
  static constexpr unsigned kSlLog2 = 5;
  static constexpr unsigned kSlCount = 1u << kSlLog2;
  static constexpr unsigned kFlShift = kSlLog2 + 4;  // level 0 holds sizes below 1 << 9
  static constexpr unsigned kFlCount = 32 - kFlShift + 1;
  static constexpr unsigned kExactScanLimit = 32;

  // Tiles [base, base + size) with one free block and the sentinel. base
  // and size are multiples of the page size (a power of two >= 16);
  // base + size <= 4 GiB; start_bits is BlockStarts::bytes_for(size) zeroed
  // bytes.
  void init(uintptr_t base, size_t size, uint64_t* start_bits, size_t page_size);

  // A used block with at least payload bytes (a multiple of 16, >= 16) whose
  // payload is aligned to align (a power of two), or nullptr.
  BlockHeader* allocate(size_t payload, size_t align);

  // Frees a used block (flags and pins are dropped) and merges it. The span
  // returned covers the pages that touch b and are now wholly free: those
  // that held the program's data, not the ones an earlier free released.
  FreedSpan release(BlockHeader* b);

  // Grows b into a free next block or shrinks it (payload as in allocate()).
  // False, with b untouched, when it cannot grow in place.
  bool resize_in_place(BlockHeader* b, size_t payload, FreedSpan* freed);

  // The block whose payload starts at p, in any state, or nullptr when no
  // block does (a wild or stale pointer). p may be any value.
  BlockHeader* block_at_payload(uintptr_t p) const;
  // The block containing addr (header or payload); addr in the region.
  BlockHeader* block_containing(uintptr_t addr) const;

  bool in_region(uintptr_t a) const { return a >= base_ && a < end_; }
  uintptr_t base() const { return base_; }
  uintptr_t end() const { return end_; }

  // Walks the region: 0 when invariants 1-6 hold, else the first one broken
  // (1-6, or 7 for a corrupt free list). Counts the program's blocks.
  struct Census {
    uint64_t used_blocks = 0;  // not free, not internal, not pending
    uint64_t pending_blocks = 0;
    uint64_t used_bytes = 0;   // payload of used and pending blocks
  };
  int check(Census* census) const;

 private:
  struct Index {
    unsigned fl;
    unsigned sl;
  };
  static Index index_of(uint64_t size);
  static Index search_index(uint64_t size);

  BlockHeader* find_free(uint64_t size) const;
  void insert_free(BlockHeader* b);
  void remove_free(BlockHeader* b);
  BlockHeader* carve(BlockHeader* b, size_t offset, uint32_t flags);
  void absorb_next(BlockHeader* b);
  FreedSpan trim_tail(BlockHeader* b, size_t payload);

  uintptr_t base_ = 0;
  uintptr_t page_ = 4096;
  uintptr_t end_ = 0;
  BlockStarts starts_;
  uint32_t fl_bits_ = 0;
  uint32_t sl_bits_[kFlCount] = {};
  uint32_t heads_[kFlCount][kSlCount] = {};
};

}  // namespace openhtp::dsp_heap
