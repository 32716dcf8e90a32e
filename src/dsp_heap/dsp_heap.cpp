// The DSP heap's C API (dsp_heap.h): the region, one lock, the program's
// view of blocks (live, freed-pending, pinned), statistics and reports.
//
// Locking: one process-wide pthread mutex around the allocator and the pin
// table. TLSF's operations are short and bounded, so a single lock costs an
// uncontended lock/unlock per call (~20 ns) and is easy to get right; a
// per-thread cache would be the next step if contention ever showed up.
// Copies (realloc) and report lines happen outside it. pthread_atfork
// handlers take it around fork() so the child never inherits it held.
//
// Nothing here allocates: this code runs under malloc itself.
#include "dsp_heap/dsp_heap.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

#include "dsp_heap/pin_table.h"
#include "dsp_heap/region.h"
#include "dsp_heap/report_line.h"
#include "dsp_heap/tlsf.h"

namespace openhtp::dsp_heap {
namespace {

// Every global here is constinit: malloc may be called before this
// library's constructors run (by ld.so, or by another library's
// constructor), so nothing may depend on dynamic initialization.
constinit pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
constinit pthread_once_t g_once = PTHREAD_ONCE_INIT;

// Written once by reserve_once(), then read-only; contains() reads them
// without the lock, so they are atomics published after the region is ready.
constinit std::atomic<uintptr_t> g_base{0};
constinit std::atomic<uintptr_t> g_end{0};

// Lines reserve_once() could not emit itself: it runs inside pthread_once,
// where a report sink that allocates would re-enter the once and deadlock.
// The first caller that sees the flag after the once emits them.
constinit ReportLine g_init_reports[2];
constinit std::atomic<bool> g_init_reports_pending{false};

// Under g_lock.
constinit Tlsf g_tlsf;
constinit PinTable g_pins{&g_tlsf};
constinit openhtp_dsp_heap_stats_t g_stats{};

class Locked {
 public:
  Locked() { pthread_mutex_lock(&g_lock); }
  ~Locked() { pthread_mutex_unlock(&g_lock); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

void reserve_once() {
  size_t bytes = region_bytes_from_env(&g_init_reports[0]);
  Region r;
  if (reserve_region(bytes, &r, &g_init_reports[1])) {
    Locked lock;
    g_tlsf.init(r.base, r.size, r.start_bits, static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
    g_stats.region_base = r.base;
    g_stats.region_size = r.size;
    g_end.store(r.base + r.size, std::memory_order_relaxed);
    g_base.store(r.base, std::memory_order_release);
  }
  if (!g_init_reports[0].empty() || !g_init_reports[1].empty()) g_init_reports_pending.store(true);
}

// Reserves the region on first use. False when it could not be reserved.
bool ready() {
  if (g_base.load(std::memory_order_acquire) != 0) return true;
  pthread_once(&g_once, reserve_once);
  if (g_init_reports_pending.exchange(false)) {
    emit(g_init_reports[0]);
    emit(g_init_reports[1]);
  }
  return g_base.load(std::memory_order_acquire) != 0;
}

bool in_region(uintptr_t a) {
  uintptr_t base = g_base.load(std::memory_order_acquire);
  return base != 0 && a >= base && a < g_end.load(std::memory_order_relaxed);
}

// malloc's sizes to payload sizes; 0 when the request can never fit.
size_t payload_for(size_t size) {
  if (size > (size_t{1} << 32) - 2 * kHeaderBytes) return 0;
  size_t p = (size + kPayloadAlign - 1) & ~(kPayloadAlign - 1);
  return p < kMinPayload ? kMinPayload : p;
}

void count_taken(const BlockHeader* b) {
  g_stats.bytes_in_use += b->size();
  if (g_stats.bytes_in_use > g_stats.peak_bytes_in_use) g_stats.peak_bytes_in_use = g_stats.bytes_in_use;
  ++g_stats.live_blocks;
}

void give_back(BlockHeader* b) {
  FreedSpan s = g_tlsf.release(b);
  release_pages(s.lo, s.hi);
}

// Under the lock: the block p is the payload of, if it is the program's;
// otherwise describes why not in *line.
BlockHeader* program_block(const char* op, uintptr_t p, ReportLine* line) {
  BlockHeader* b = g_tlsf.block_at_payload(p);
  const char* why = nullptr;
  if (b == nullptr || b->has(kInternal)) {
    why = " of an address no allocation starts at (freed twice, or never returned by malloc): ignored";
  } else if (b->has(kFree)) {
    why = " of a block that is already free (freed twice): ignored";
  } else if (b->has(kPending)) {
    why = " of a block already freed while registered with QNN: ignored";
  }
  if (why == nullptr) return b;
  line->text("openhtp-dsp-heap: ").text(op).text("(").hex(p).text(")").text(why);
  return nullptr;
}

// Under the lock: frees the program's block b, or keeps it freed-pending
// while it is pinned and says so in *line.
void free_block(const char* op, BlockHeader* b, ReportLine* line) {
  --g_stats.live_blocks;
  if (b->pin_count == 0) {
    g_stats.bytes_in_use -= b->size();
    give_back(b);
    return;
  }
  b->size_flags |= kPending;
  ++g_stats.pending_blocks;
  line->text("openhtp-dsp-heap: ").text(op).text("(").hex(b->payload())
      .text(") of a block still registered with QNN (");
  const char* owner = PinTable::first_owner(b);
  line->text(*owner != '\0' ? owner : "owner not named");
  if (b->pin_count > 1) line->text("; and ").dec(b->pin_count - 1).text(" more");
  line->text("): kept until QNN deregisters it");
}

void free_impl(const char* op, void* p) {
  if (p == nullptr) return;
  ReportLine line;
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (!in_region(a)) {
    line.text("openhtp-dsp-heap: ").text(op).text("(").hex(a).text(") of a pointer outside the DSP heap: ignored");
  } else {
    Locked lock;
    if (BlockHeader* b = program_block(op, a, &line)) free_block(op, b, &line);
  }
  emit(line);
}

struct Classified {
  int result;
  BlockHeader* block;
};

// Under the lock, region reserved.
Classified classify(uint64_t addr, uint64_t size) {
  if (!in_region(addr)) return {OPENHTP_DSP_HEAP_OUTSIDE, nullptr};
  BlockHeader* b = g_tlsf.block_containing(addr);
  if (addr < b->payload() || b->has(kFree) || b->has(kInternal)) return {OPENHTP_DSP_HEAP_FREE, nullptr};
  if (b->has(kPending)) return {OPENHTP_DSP_HEAP_FREED_PENDING, b};
  uint64_t length = size == 0 ? 1 : size;
  if (length > b->end() - addr) return {OPENHTP_DSP_HEAP_TOO_SMALL, b};
  return {OPENHTP_DSP_HEAP_LIVE, b};
}

void fork_prepare() { pthread_mutex_lock(&g_lock); }
void fork_parent() { pthread_mutex_unlock(&g_lock); }
// The child has one thread, not the one that locked: start from a fresh mutex.
void fork_child() { pthread_mutex_init(&g_lock, nullptr); }

// Registered from a constructor, with no heap lock held: pthread_atfork may
// itself allocate, i.e. call back into this heap.
__attribute__((constructor)) void register_fork_handlers() {
  pthread_atfork(fork_prepare, fork_parent, fork_child);
}

}  // namespace
}  // namespace openhtp::dsp_heap

using namespace openhtp::dsp_heap;

extern "C" {

int openhtp_dsp_heap_present(void) { return 1; }

void* openhtp_dsp_heap_alloc(size_t size, size_t align) {
  if (align == 0) align = kPayloadAlign;
  if ((align & (align - 1)) != 0) return nullptr;
  size_t payload = payload_for(size);
  if (payload == 0 || !ready()) return nullptr;
  Locked lock;
  BlockHeader* b = g_tlsf.allocate(payload, align);
  if (b == nullptr) return nullptr;
  count_taken(b);
  return reinterpret_cast<void*>(b->payload());
}

void openhtp_dsp_heap_free(void* p) { free_impl("free", p); }

void* openhtp_dsp_heap_realloc(void* p, size_t size) {
  if (p == nullptr) return openhtp_dsp_heap_alloc(size, 0);
  if (size == 0) {
    free_impl("realloc", p);
    return nullptr;
  }
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  size_t payload = payload_for(size);
  size_t old_size = 0;
  {
    ReportLine line;
    if (!in_region(a)) {
      line.text("openhtp-dsp-heap: realloc(").hex(a).text(") of a pointer outside the DSP heap: returns NULL");
    } else {
      Locked lock;
      BlockHeader* b = program_block("realloc", a, &line);
      if (b != nullptr) {
        old_size = b->size();
        // A pinned block keeps its address and size: QNN holds that range.
        if (b->pin_count > 0 && payload != 0 && payload <= old_size) return p;
        FreedSpan s;
        if (b->pin_count == 0 && payload != 0 && g_tlsf.resize_in_place(b, payload, &s)) {
          g_stats.bytes_in_use = g_stats.bytes_in_use - old_size + b->size();
          if (g_stats.bytes_in_use > g_stats.peak_bytes_in_use) g_stats.peak_bytes_in_use = g_stats.bytes_in_use;
          release_pages(s.lo, s.hi);
          return p;
        }
      }
    }
    if (!line.empty()) {
      emit(line);
      return nullptr;
    }
  }
  // Moving: no lock is held while copying; p stays the caller's until freed.
  void* q = openhtp_dsp_heap_alloc(size, 0);
  if (q == nullptr) return nullptr;  // p is untouched, as realloc promises
  ::memcpy(q, p, old_size < size ? old_size : size);
  free_impl("realloc", p);
  return q;
}

size_t openhtp_dsp_heap_usable_size(const void* p) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (!in_region(a)) return 0;
  Locked lock;
  BlockHeader* b = g_tlsf.block_at_payload(a);
  if (b == nullptr || b->has(kFree) || b->has(kInternal)) return 0;
  return b->size();
}

int openhtp_dsp_heap_contains(const void* p) { return in_region(reinterpret_cast<uintptr_t>(p)) ? 1 : 0; }

int openhtp_dsp_heap_lookup(uint64_t addr, uint64_t size, openhtp_dsp_heap_block_t* out) {
  if (!in_region(addr)) return OPENHTP_DSP_HEAP_OUTSIDE;
  Locked lock;
  Classified c = classify(addr, size);
  if (out != nullptr && c.block != nullptr) *out = {c.block->payload(), c.block->size(), c.block->pin_count};
  return c.result;
}

int openhtp_dsp_heap_pin(uint64_t addr, uint64_t size, const char* owner, uint64_t* pin_id) {
  if (pin_id == nullptr) return OPENHTP_DSP_HEAP_INVALID;
  *pin_id = 0;
  if (!in_region(addr)) return OPENHTP_DSP_HEAP_OUTSIDE;
  Locked lock;
  Classified c = classify(addr, size);
  if (c.result != OPENHTP_DSP_HEAP_LIVE) return c.result;
  uint64_t id = g_pins.add(c.block, owner);
  if (id == 0) return OPENHTP_DSP_HEAP_NO_MEMORY;
  if (c.block->pin_count == 1) ++g_stats.pinned_blocks;
  ++g_stats.pins;
  *pin_id = id;
  return OPENHTP_DSP_HEAP_LIVE;
}

int openhtp_dsp_heap_unpin(uint64_t pin_id) {
  if (g_base.load(std::memory_order_acquire) != 0) {
    Locked lock;
    if (BlockHeader* b = g_pins.remove(pin_id)) {
      --g_stats.pins;
      if (b->pin_count == 0) {
        --g_stats.pinned_blocks;
        if (b->has(kPending)) {  // the program freed it already: now it goes
          --g_stats.pending_blocks;
          g_stats.bytes_in_use -= b->size();
          give_back(b);
        }
      }
      return 1;
    }
  }
  ReportLine line;
  line.text("openhtp-dsp-heap: unpin(").hex(pin_id).text(") of a pin that is not held: ignored");
  emit(line);
  return 0;
}

void openhtp_dsp_heap_set_report(void (*fn)(const char* line)) { set_report_sink(fn); }

void openhtp_dsp_heap_stats(openhtp_dsp_heap_stats_t* out) {
  if (out == nullptr) return;
  Locked lock;
  *out = g_stats;
}

int openhtp_dsp_heap_check(void) {
  if (g_base.load(std::memory_order_acquire) == 0) return 0;
  Locked lock;
  Tlsf::Census census;
  if (int broken = g_tlsf.check(&census)) return broken;
  // The statistics must agree with the walk.
  if (census.used_blocks != g_stats.live_blocks) return 8;
  if (census.pending_blocks != g_stats.pending_blocks) return 9;
  if (census.used_bytes != g_stats.bytes_in_use) return 10;
  return 0;
}

}  // extern "C"
