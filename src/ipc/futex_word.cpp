#include "ipc/futex_word.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "common/cpu_relax.h"

namespace openhtp::ipc {
namespace {

long futex(std::atomic<uint32_t>* addr, int op, uint32_t val, const timespec* ts) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), op, val, ts, nullptr, 0);
}

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

void futex_publish(FutexWord& word, uint32_t new_value) {
  word.value.store(new_value, std::memory_order_seq_cst);
  if (word.waiters.load(std::memory_order_seq_cst) != 0) {
    futex(&word.value, FUTEX_WAKE, INT32_MAX, nullptr);
  }
}

uint32_t futex_wait_change(FutexWord& word, uint32_t old, int64_t spin_ns, int64_t timeout_ns) {
  if (spin_ns > 0) {
    const int64_t start = now_ns();
    for (uint32_t i = 1;; ++i) {
      uint32_t v = word.value.load(std::memory_order_acquire);
      if (v != old) return v;
      cpu_relax();
      if ((i & 63) == 0) {
        if (now_ns() - start >= spin_ns) break;
        if ((i & 255) == 0) sched_yield();  // a peer on this CPU runs now, not at our next tick
      }
    }
  }
  const int64_t deadline = timeout_ns > 0 ? now_ns() + timeout_ns : 0;
  for (;;) {
    word.waiters.fetch_add(1, std::memory_order_seq_cst);
    uint32_t v = word.value.load(std::memory_order_seq_cst);
    if (v != old) {
      word.waiters.fetch_sub(1, std::memory_order_seq_cst);
      return v;
    }
    timespec ts{};
    const timespec* tsp = nullptr;
    if (timeout_ns > 0) {
      int64_t left = deadline - now_ns();
      if (left <= 0) {
        word.waiters.fetch_sub(1, std::memory_order_seq_cst);
        return word.value.load(std::memory_order_acquire);
      }
      ts.tv_sec = left / 1000000000;
      ts.tv_nsec = left % 1000000000;
      tsp = &ts;
    }
    futex(&word.value, FUTEX_WAIT, old, tsp);  // EAGAIN/EINTR/ETIMEDOUT: re-check
    word.waiters.fetch_sub(1, std::memory_order_seq_cst);
    v = word.value.load(std::memory_order_acquire);
    if (v != old) return v;
    if (timeout_ns > 0 && now_ns() >= deadline) return v;
  }
}

int64_t default_spin_ns() {
  static const int64_t spin = std::thread::hardware_concurrency() > 1 ? kDefaultSpinNs : 0;
  return spin;
}

}  // namespace openhtp::ipc
