// A 32-bit sequence word in shared memory that one process bumps and another
// waits on: the cross-process wake-up primitive of the FastRPC channel (and,
// in one process, how a thread team's threads wait for the next loop,
// threads/team.cpp).
//
// The waiter spins for a bounded TIME before sleeping in FUTEX_WAIT (a shared
// futex, not FUTEX_PRIVATE, because the word lives in a memfd mapped by two
// processes), yielding the CPU every few microseconds while it spins so that a
// peer that shares its CPU still runs at once. It announces itself in
// `waiters` before sleeping so that the publisher pays for a FUTEX_WAKE system
// call only when someone is really asleep. The bench's raw ping-pong baseline
// uses this same primitive with no protocol on top.
//
// Why a time bound: a PAUSE costs anywhere from 1 to 40 ns depending on the
// CPU, so an iteration count means nothing; and a long spin on a hyperthread
// slows the very kernel it waits for.
#pragma once

#include <atomic>
#include <cstdint>

namespace openhtp::ipc {

// Not cache-line aligned on purpose: a word is best placed in the same line as
// the data that travels with the signal (see ipc::SlotControl), so the reader
// gets both in one transfer. Align the containing struct instead.
struct FutexWord {
  std::atomic<uint32_t> value{0};
  std::atomic<uint32_t> waiters{0};
};
static_assert(std::atomic<uint32_t>::is_always_lock_free);

// Stores `new_value` (release) and wakes sleepers if any.
void futex_publish(FutexWord& word, uint32_t new_value);

// Waits until word.value != `old` (acquire), spinning for up to `spin_ns`
// first. Returns the new value, or `old` when `timeout_ns` (> 0) elapsed first.
uint32_t futex_wait_change(FutexWord& word, uint32_t old, int64_t spin_ns, int64_t timeout_ns);

// Spin budget that suits this machine: none on a single CPU (spinning would
// only delay the other side), kDefaultSpinNs otherwise.
inline constexpr int64_t kDefaultSpinNs = 30'000;
int64_t default_spin_ns();

}  // namespace openhtp::ipc
