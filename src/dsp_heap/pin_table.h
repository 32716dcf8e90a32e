// Pins: the registrations that keep a DSP heap block from being released.
//
// libQnnHtp pins a block while QNN holds it registered (memRegister of a
// QURT address); free() of a pinned block only marks it freed-pending. Each
// pin is a record allocated from the heap itself (a block flagged
// kInternal), so there is no fixed limit and no second allocator; a block's
// records form a list in registration order from its header's first_pin.
//
// A pin id is (generation << 32) | record address: unpin finds the record in
// O(1), and a stale or made-up id is recognised (no record there, or one
// with another generation) instead of dropping someone else's pin.
//
// Not thread-safe: dsp_heap.cpp calls it under its lock.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dsp_heap/tlsf.h"

namespace openhtp::dsp_heap {

class PinTable {
 public:
  static constexpr size_t kOwnerMax = 191;  // longer owner texts are cut

  explicit constexpr PinTable(Tlsf* tlsf) : tlsf_(tlsf) {}

  // Adds a pin on b (a used or pending block of the program). 0 when there
  // is no room for the record.
  uint64_t add(BlockHeader* b, const char* owner);

  // Removes pin id and returns the block it held (whose pin_count is now one
  // less), or nullptr when id is not a pin held now.
  BlockHeader* remove(uint64_t id);

  // The owner text of b's first pin ("" when b has none).
  static const char* first_owner(const BlockHeader* b);

 private:
  Tlsf* tlsf_;
  uint32_t generation_ = 0;
};

}  // namespace openhtp::dsp_heap
