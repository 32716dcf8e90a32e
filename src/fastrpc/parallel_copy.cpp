#include "fastrpc/parallel_copy.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include "ipc/futex_word.h"

namespace openhtp::fastrpc {
namespace {

struct Helper {
  alignas(64) ipc::FutexWord job;   // bumped by the caller to hand over a half
  alignas(64) ipc::FutexWord done;  // set to the job's number when the half is copied
  void* dst = nullptr;
  const void* src = nullptr;
  size_t n = 0;
  std::mutex busy;      // one split copy at a time; others copy alone
  bool started = false;
  uint32_t seq = 0;
};

Helper& helper() {
  static auto* h = new Helper;  // the thread outlives static destruction
  return *h;
}

void helper_loop(Helper* h) {
  uint32_t seen = 0;
  for (;;) {
    uint32_t v = ipc::futex_wait_change(h->job, seen, ipc::default_spin_ns(), 0);
    if (v == seen) continue;
    seen = v;
    std::memcpy(h->dst, h->src, h->n);
    ipc::futex_publish(h->done, v);
  }
}

}  // namespace

void parallel_copy(void* dst, const void* src, size_t n) {
  Helper& h = helper();
  if (n < kParallelCopyThreshold || std::thread::hardware_concurrency() < 2 || !h.busy.try_lock()) {
    std::memcpy(dst, src, n);
    return;
  }
  std::lock_guard lock(h.busy, std::adopt_lock);
  if (!h.started) {
    std::thread(helper_loop, &h).detach();
    h.started = true;
  }
  // Cache-line aligned split so the two halves never share a line.
  const size_t first = (n / 2) & ~size_t{63};
  h.dst = static_cast<char*>(dst) + first;
  h.src = static_cast<const char*>(src) + first;
  h.n = n - first;
  const uint32_t job = ++h.seq;
  ipc::futex_publish(h.job, job);
  std::memcpy(dst, src, first);
  while (ipc::futex_wait_change(h.done, job - 1, ipc::default_spin_ns(), 0) != job) {
  }
}

void parallel_copy_after_fork() {
  Helper& h = helper();
  new (&h.busy) std::mutex();
  h.started = false;
  h.seq = 0;
  h.job.value.store(0);
  h.done.value.store(0);
}

}  // namespace openhtp::fastrpc
