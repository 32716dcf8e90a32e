#include "dsp_heap/pin_table.h"

#include <cstring>

namespace openhtp::dsp_heap {
namespace {

// A pin record, the payload of a kInternal block; the owner text follows it.
struct PinRecord {
  uint64_t id;
  uint32_t block;  // the pinned block's header
  uint32_t next;   // the block's next pin record, 0 at the end
};
static_assert(sizeof(PinRecord) == 16);

PinRecord* record_at(uintptr_t a) { return reinterpret_cast<PinRecord*>(a); }
char* owner_of(PinRecord* r) { return reinterpret_cast<char*>(r + 1); }

}  // namespace

uint64_t PinTable::add(BlockHeader* b, const char* owner) {
  size_t len = owner != nullptr ? ::strnlen(owner, kOwnerMax) : 0;
  size_t payload = (sizeof(PinRecord) + len + 1 + kPayloadAlign - 1) & ~(kPayloadAlign - 1);
  BlockHeader* h = tlsf_->allocate(payload, kPayloadAlign);
  if (h == nullptr) return 0;
  h->size_flags |= kInternal;
  if (++generation_ == 0) generation_ = 1;  // an id is never 0
  PinRecord* r = record_at(h->payload());
  r->id = (uint64_t{generation_} << 32) | h->payload();
  r->block = static_cast<uint32_t>(b->start());
  r->next = 0;
  if (len > 0) ::memcpy(owner_of(r), owner, len);
  owner_of(r)[len] = '\0';
  // Appended, so that first_owner() is the first registration.
  uint32_t* link = &b->first_pin;
  while (*link != 0) link = &record_at(*link)->next;
  *link = static_cast<uint32_t>(h->payload());
  ++b->pin_count;
  return r->id;
}

BlockHeader* PinTable::remove(uint64_t id) {
  BlockHeader* h = tlsf_->block_at_payload(static_cast<uint32_t>(id));
  if (h == nullptr || h->flags() != kInternal) return nullptr;
  PinRecord* r = record_at(h->payload());
  if (r->id != id) return nullptr;
  BlockHeader* b = reinterpret_cast<BlockHeader*>(uintptr_t{r->block});
  for (uint32_t* link = &b->first_pin; *link != 0; link = &record_at(*link)->next) {
    if (*link == h->payload()) {
      *link = r->next;
      break;
    }
  }
  --b->pin_count;
  tlsf_->release(h);  // a record is small: no pages to give back
  return b;
}

const char* PinTable::first_owner(const BlockHeader* b) {
  return b->first_pin != 0 ? owner_of(record_at(b->first_pin)) : "";
}

}  // namespace openhtp::dsp_heap
