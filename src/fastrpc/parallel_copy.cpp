#include "fastrpc/parallel_copy.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>

#include "ipc/futex_word.h"

namespace openhtp::fastrpc {
namespace {

// The copy goes in chunks claimed from both ends of one word: the caller
// takes chunks from the front, the helper from the back, until they meet.
// Why not two fixed halves: the vCPUs of a shared host are not equally fast
// (one ran memory-bound work 1.2-2.4x slower than the other in the same
// hour, bench_cpu_balance), and with halves a copy finished when the slower
// core did. Claimed chunks let the faster core copy more, and a helper that
// wakes late finds less, or nothing, left instead of holding the caller up
// for a whole half (docs/performance.md, "Session 11").
//
// The word: job number (32 bits) | next chunk from the front (16) | end of
// the chunks not claimed yet (16). A claim is one compare-and-swap, so no
// chunk is copied twice or never. The protocol that keeps a claim and the
// buffers it copies in the same job, however late the helper runs:
//   - the caller writes the job's buffers, then the word (the job's number,
//     all chunks unclaimed), then publishes the job number; it claims until
//     none is left, then waits until `copying` is 0 before it returns (and
//     so before it writes another job's buffers);
//   - the helper raises `copying`, reads the buffers, and goes on only if
//     the published job is still the one it woke for (so it read them after
//     that job's caller wrote them all); it claims only with that job's
//     number and lowers `copying` after its last claim. A claim succeeds
//     only while the word holds that number with chunks left, i.e. while
//     that job runs, and its caller then waits for the helper.
// A copy of more than 65535 chunks (16 GiB) is not shared.
constexpr size_t kChunkBytes = 256u << 10;  // 64 claims for 16 MiB
constexpr int kIndexBits = 16;
constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;

uint64_t pack(uint32_t job, uint64_t front, uint64_t back) {
  return (uint64_t{job} << (2 * kIndexBits)) | (front << kIndexBits) | back;
}

struct Helper {
  alignas(64) ipc::FutexWord job;  // bumped by the caller when a copy is there to share
  alignas(64) std::atomic<uint64_t> chunks{0};
  alignas(64) std::atomic<uint32_t> copying{0};  // the helper is reading buffers or copying
  std::atomic<char*> dst{nullptr};
  std::atomic<const char*> src{nullptr};
  std::atomic<size_t> n{0};
  std::mutex busy;  // one shared copy at a time; others copy alone
  bool started = false;
  uint32_t seq = 0;
};

Helper& helper() {
  static auto* h = new Helper;  // the thread outlives static destruction
  return *h;
}

// One chunk of job `job`, from the front or the back; false when none is
// left or the word is another job's.
bool claim(Helper& h, uint32_t job, bool front, size_t* chunk) {
  uint64_t w = h.chunks.load();
  for (;;) {
    const uint64_t b = (w >> kIndexBits) & kIndexMask, e = w & kIndexMask;
    if ((w >> (2 * kIndexBits)) != job || b >= e) return false;
    if (h.chunks.compare_exchange_weak(w, front ? pack(job, b + 1, e) : pack(job, b, e - 1))) {
      *chunk = front ? b : e - 1;
      return true;
    }
  }
}

void copy_chunk(char* dst, const char* src, size_t n, size_t chunk) {
  const size_t at = chunk * kChunkBytes;
  std::memcpy(dst + at, src + at, std::min(kChunkBytes, n - at));
}

std::atomic<void (*)()> g_helper_hook{nullptr};

void helper_loop(Helper* h) {
  uint32_t seen = 0;
  for (;;) {
    const uint32_t v = ipc::futex_wait_change(h->job, seen, ipc::default_spin_ns(), 0);
    if (v == seen) continue;
    seen = v;
    h->copying.fetch_add(1);
    char* dst = h->dst.load();
    const char* src = h->src.load();
    const size_t n = h->n.load();
    if (h->job.value.load() == v) {
      for (size_t c; claim(*h, v, /*front=*/false, &c);) {
        if (void (*hook)() = g_helper_hook.load(std::memory_order_relaxed)) hook();
        copy_chunk(dst, src, n, c);
      }
    }
    h->copying.fetch_sub(1);
  }
}

}  // namespace

void parallel_copy(void* dst, const void* src, size_t n) {
  Helper& h = helper();
  const size_t chunks = (n + kChunkBytes - 1) / kChunkBytes;
  if (n < kParallelCopyThreshold || chunks > kIndexMask || std::thread::hardware_concurrency() < 2 ||
      !h.busy.try_lock()) {
    std::memcpy(dst, src, n);
    return;
  }
  std::lock_guard lock(h.busy, std::adopt_lock);
  if (!h.started) {
    std::thread(helper_loop, &h).detach();
    h.started = true;
  }
  const uint32_t job = ++h.seq;
  h.dst.store(static_cast<char*>(dst));
  h.src.store(static_cast<const char*>(src));
  h.n.store(n);
  h.chunks.store(pack(job, 0, chunks));
  ipc::futex_publish(h.job, job);
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  for (size_t c; claim(h, job, /*front=*/true, &c);) copy_chunk(d, s, n, c);
  // Every chunk is claimed; the helper may still be copying its last one.
  for (uint32_t i = 1; h.copying.load() != 0; ++i) {
    if ((i & 1023) == 0) std::this_thread::yield();
  }
}

void parallel_copy_after_fork() {
  Helper& h = helper();
  new (&h.busy) std::mutex();
  h.started = false;
  h.seq = 0;
  h.job.value.store(0);
  h.chunks.store(0);
  h.copying.store(0);
}

void parallel_copy_set_helper_hook(void (*hook)()) { g_helper_hook.store(hook); }

}  // namespace openhtp::fastrpc
