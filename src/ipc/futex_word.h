// A 32-bit sequence word in shared memory that one process bumps and another
// waits on: the cross-process wake-up primitive of the FastRPC channel.
//
// The waiter spins briefly before sleeping in FUTEX_WAIT (a shared futex, not
// FUTEX_PRIVATE, because the word lives in a memfd mapped by two processes),
// and announces itself in `waiters` first so that the publisher pays for a
// FUTEX_WAKE system call only when someone is really asleep. The bench's raw
// ping-pong baseline uses this same primitive with no protocol on top.
#pragma once

#include <atomic>
#include <cstdint>

namespace openhtp::ipc {

struct alignas(64) FutexWord {
  std::atomic<uint32_t> value{0};
  std::atomic<uint32_t> waiters{0};
};
static_assert(std::atomic<uint32_t>::is_always_lock_free);

// Stores `new_value` (release) and wakes sleepers if any.
void futex_publish(FutexWord& word, uint32_t new_value);

// Waits until word.value != `old` (acquire). Spins `spin_iterations` first.
// Returns the new value, or `old` when `timeout_ns` (> 0) elapsed first.
uint32_t futex_wait_change(FutexWord& word, uint32_t old, int spin_iterations, int64_t timeout_ns);

// Spin count that suits this machine: none on a single core (spinning would
// only delay the other side), a few microseconds' worth otherwise.
int default_spin_iterations();

}  // namespace openhtp::ipc
