#include "dsp_heap/tlsf.h"

#include <algorithm>
#include <iterator>

namespace openhtp::dsp_heap {
namespace {

// The first bytes of a free block's payload: its neighbours in its list.
struct FreeLinks {
  uint32_t next;
  uint32_t prev;
};

BlockHeader* at(uintptr_t a) { return reinterpret_cast<BlockHeader*>(a); }
FreeLinks* links(const BlockHeader* b) { return reinterpret_cast<FreeLinks*>(b->payload()); }
uint32_t addr32(const BlockHeader* b) { return static_cast<uint32_t>(b->start()); }
BlockHeader* next_of(const BlockHeader* b) { return at(b->end()); }
unsigned fls64(uint64_t x) { return 63u - static_cast<unsigned>(__builtin_clzll(x)); }
void set_size(BlockHeader* b, size_t size) { b->size_flags = static_cast<uint32_t>(size) | b->flags(); }

}  // namespace

Tlsf::Index Tlsf::index_of(uint64_t size) {
  if (size < (uint64_t{1} << kFlShift)) return {0, static_cast<unsigned>(size >> 4)};
  unsigned f = fls64(size);
  return {f - (kFlShift - 1), static_cast<unsigned>(size >> (f - kSlLog2)) ^ kSlCount};
}

Tlsf::Index Tlsf::search_index(uint64_t size) {
  // Level 0 classes hold one size each, so they need no rounding.
  if (size >= (uint64_t{1} << kFlShift)) size += (uint64_t{1} << (fls64(size) - kSlLog2)) - 1;
  return index_of(size);
}

void Tlsf::init(uintptr_t base, size_t size, uint64_t* start_bits, size_t page_size) {
  base_ = base;
  end_ = base + size;
  page_ = page_size;
  starts_.attach(start_bits, base, size);
  fl_bits_ = 0;
  std::fill(std::begin(sl_bits_), std::end(sl_bits_), 0u);
  for (auto& row : heads_) std::fill(std::begin(row), std::end(row), 0u);

  BlockHeader* first = at(base);
  *first = BlockHeader{0, static_cast<uint32_t>(size - 2 * kHeaderBytes), 0, 0};
  BlockHeader* sentinel = at(end_ - kHeaderBytes);
  *sentinel = BlockHeader{addr32(first), 0, 0, 0};
  starts_.set(first->start());
  starts_.set(sentinel->start());
  insert_free(first);
}

void Tlsf::insert_free(BlockHeader* b) {
  Index i = index_of(b->size());
  FreeLinks* l = links(b);
  l->prev = 0;
  l->next = heads_[i.fl][i.sl];
  if (l->next != 0) links(at(l->next))->prev = addr32(b);
  heads_[i.fl][i.sl] = addr32(b);
  fl_bits_ |= 1u << i.fl;
  sl_bits_[i.fl] |= 1u << i.sl;
  b->size_flags |= kFree;
}

void Tlsf::remove_free(BlockHeader* b) {
  Index i = index_of(b->size());
  FreeLinks* l = links(b);
  if (l->prev != 0) {
    links(at(l->prev))->next = l->next;
  } else {
    heads_[i.fl][i.sl] = l->next;
  }
  if (l->next != 0) links(at(l->next))->prev = l->prev;
  if (heads_[i.fl][i.sl] == 0) {
    sl_bits_[i.fl] &= ~(1u << i.sl);
    if (sl_bits_[i.fl] == 0) fl_bits_ &= ~(1u << i.fl);
  }
  b->size_flags &= ~kFree;
}

BlockHeader* Tlsf::find_free(uint64_t size) const {
  Index i = search_index(size);
  if (i.fl < kFlCount) {
    unsigned fl = i.fl;
    uint32_t sl_map = sl_bits_[fl] & (~0u << i.sl);
    if (sl_map == 0) {
      uint32_t fl_map = fl + 1 < 32 ? fl_bits_ & (~0u << (fl + 1)) : 0;
      if (fl_map != 0) {
        fl = static_cast<unsigned>(__builtin_ctz(fl_map));
        sl_map = sl_bits_[fl];
      }
    }
    if (sl_map != 0) return at(heads_[fl][static_cast<unsigned>(__builtin_ctz(sl_map))]);
  }
  // Good fit found nothing bigger; a block of size's own class may still be
  // big enough (see "Why TLSF" in tlsf.h).
  Index e = index_of(size);
  if (e.fl >= kFlCount) return nullptr;
  unsigned scanned = 0;
  for (uint32_t a = heads_[e.fl][e.sl]; a != 0 && scanned < kExactScanLimit; a = links(at(a))->next, ++scanned) {
    if (at(a)->size() >= size) return at(a);
  }
  return nullptr;
}

BlockHeader* Tlsf::carve(BlockHeader* b, size_t offset, uint32_t flags) {
  BlockHeader* after = next_of(b);
  BlockHeader* n = at(b->start() + offset);
  *n = BlockHeader{addr32(b), static_cast<uint32_t>(b->size() - offset) | flags, 0, 0};
  set_size(b, offset - kHeaderBytes);
  after->prev_phys = addr32(n);
  starts_.set(n->start());
  return n;
}

void Tlsf::absorb_next(BlockHeader* b) {
  BlockHeader* n = next_of(b);
  set_size(b, b->size() + kHeaderBytes + n->size());
  starts_.clear(n->start());
  next_of(b)->prev_phys = addr32(b);
}

FreedSpan Tlsf::trim_tail(BlockHeader* b, size_t payload) {
  if (b->size() < payload + kHeaderBytes + kMinPayload) return {};
  return release(carve(b, kHeaderBytes + payload, 0));
}

BlockHeader* Tlsf::allocate(size_t payload, size_t align) {
  if (align <= kPayloadAlign) {
    BlockHeader* b = find_free(payload);
    if (b == nullptr) return nullptr;
    remove_free(b);
    trim_tail(b, payload);  // the tail was free already: nothing to give back
    return b;
  }
  // Room for the payload at any alignment offset: the gap before the aligned
  // payload is 0, or at least a minimal free block (so it can be cut off).
  uint64_t need = uint64_t{payload} + align + kHeaderBytes;
  if (need >= uint64_t{1} << 32) return nullptr;
  BlockHeader* b = find_free(need);
  if (b == nullptr) return nullptr;
  remove_free(b);
  uintptr_t p = (b->payload() + align - 1) & ~(uintptr_t{align} - 1);
  if (p != b->payload() && p - b->payload() < kHeaderBytes + kMinPayload) p += align;
  if (p != b->payload()) {
    BlockHeader* aligned = carve(b, p - b->payload(), 0);
    insert_free(b);  // its previous block is used (invariant 3): nothing to merge
    b = aligned;
  }
  trim_tail(b, payload);
  return b;
}

FreedSpan Tlsf::release(BlockHeader* b) {
  const uintptr_t lo = b->start();
  const uintptr_t hi = b->end() + kHeaderBytes;  // the next header too, if it is merged away
  b->size_flags = static_cast<uint32_t>(b->size());
  b->first_pin = 0;
  b->pin_count = 0;
  if (next_of(b)->has(kFree)) {
    remove_free(next_of(b));
    absorb_next(b);
  }
  if (b->prev_phys != 0 && at(b->prev_phys)->has(kFree)) {
    BlockHeader* p = at(b->prev_phys);
    remove_free(p);
    absorb_next(p);
    b = p;
  }
  insert_free(b);
  // Pages touching the freed bytes, cut to the merged block; never the one
  // holding the merged block's header and list links.
  FreedSpan s;
  s.lo = std::max(b->payload() + sizeof(FreeLinks), lo & ~(page_ - 1));
  s.hi = std::min(b->end(), (hi + page_ - 1) & ~(page_ - 1));
  return s;
}

bool Tlsf::resize_in_place(BlockHeader* b, size_t payload, FreedSpan* freed) {
  *freed = {};
  if (payload <= b->size()) {
    *freed = trim_tail(b, payload);
    return true;
  }
  BlockHeader* n = next_of(b);
  if (!n->has(kFree) || b->size() + kHeaderBytes + n->size() < payload) return false;
  remove_free(n);
  absorb_next(b);
  trim_tail(b, payload);  // what is left of the free neighbour: free already
  return true;
}

BlockHeader* Tlsf::block_at_payload(uintptr_t p) const {
  if (p < base_ + kHeaderBytes || p >= end_ || (p & (kPayloadAlign - 1)) != 0) return nullptr;
  return starts_.test(p - kHeaderBytes) ? at(p - kHeaderBytes) : nullptr;
}

BlockHeader* Tlsf::block_containing(uintptr_t addr) const { return at(starts_.at_or_before(addr)); }

int Tlsf::check(Census* census) const {
  *census = {};
  uint64_t blocks = 0;
  uint64_t free_blocks = 0;
  const BlockHeader* prev = nullptr;
  for (uintptr_t a = base_;;) {
    if (a < base_ || a > end_ - kHeaderBytes || (a & (kPayloadAlign - 1)) != 0) return 1;
    const BlockHeader* b = at(a);
    if (!starts_.test(a)) return 5;
    if (b->prev_phys != (prev != nullptr ? addr32(prev) : 0)) return 2;
    ++blocks;
    if (a == end_ - kHeaderBytes) {
      if (b->size_flags != 0) return 1;
      break;
    }
    if (b->size() < kMinPayload || b->end() > end_ - kHeaderBytes) return 1;
    if (b->has(kFree)) {
      if (prev != nullptr && prev->has(kFree)) return 3;
      if (b->flags() != kFree || b->pin_count != 0 || b->first_pin != 0) return 6;
      ++free_blocks;
    } else if (b->has(kPending)) {
      if (b->pin_count == 0) return 6;
      ++census->pending_blocks;
      census->used_bytes += b->size();
    } else if (!b->has(kInternal)) {
      ++census->used_blocks;
      census->used_bytes += b->size();
    }
    prev = b;
    a = b->end();
  }
  bool summary_ok = false;
  if (starts_.count(end_ - base_, &summary_ok) != blocks || !summary_ok) return 5;

  uint64_t listed = 0;
  for (unsigned fl = 0; fl < kFlCount; ++fl) {
    if (((fl_bits_ >> fl) & 1u) != (sl_bits_[fl] != 0 ? 1u : 0u)) return 4;
    for (unsigned sl = 0; sl < kSlCount; ++sl) {
      if (((sl_bits_[fl] >> sl) & 1u) != (heads_[fl][sl] != 0 ? 1u : 0u)) return 4;
      uint32_t expected_prev = 0;
      for (uint32_t a = heads_[fl][sl]; a != 0; a = links(at(a))->next) {
        if (++listed > free_blocks || !in_region(a) || !starts_.test(a)) return 7;
        const BlockHeader* b = at(a);
        Index i = index_of(b->size());
        if (!b->has(kFree) || i.fl != fl || i.sl != sl) return 4;
        if (links(b)->prev != expected_prev) return 7;
        expected_prev = a;
      }
    }
  }
  return listed == free_blocks ? 0 : 4;
}

}  // namespace openhtp::dsp_heap
