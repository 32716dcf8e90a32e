#include "dsp_heap/region.h"

#include <cerrno>
#include <cstdlib>
#include <initializer_list>
#include <sys/mman.h>
#include <unistd.h>

#include "dsp_heap/block_starts.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

namespace openhtp::dsp_heap {
namespace {

constexpr size_t kMiB = size_t{1} << 20;
// Tried in order. 256 MiB first: clear of a non-PIE executable's image and
// brk heap (from 4 MiB up), and leaves room for the default 2 GiB to end
// well below 4 GiB. The others let bigger regions, or processes that already
// use that range, find a place.
constexpr uintptr_t kHints[] = {0x10000000, 0x01000000, 0x40000000, 0x80000000, 0x20000000};

static_assert(kHints[0] + kDefaultRegionMiB * kMiB <= kAddressLimit, "the default region must fit below 4 GiB");
static_assert(0x01000000 + kMaxRegionMiB * kMiB <= kAddressLimit, "the biggest region must fit below 4 GiB");

void* map_at(uintptr_t hint, size_t bytes, int extra_flags) {
  void* p = ::mmap(reinterpret_cast<void*>(hint), bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | extra_flags, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

uintptr_t reserve_below_4g(size_t bytes) {
  for (uintptr_t hint : kHints) {
    if (hint + bytes > kAddressLimit) continue;
    void* p = map_at(hint, bytes, MAP_FIXED_NOREPLACE);
    if (p == nullptr) continue;
    // A kernel older than 4.17 ignores the flag and treats the address as a
    // plain hint: take the mapping only where it was asked for.
    if (reinterpret_cast<uintptr_t>(p) == hint) return hint;
    ::munmap(p, bytes);
  }
  void* p = map_at(0, bytes, MAP_32BIT);
  if (p == nullptr) return 0;
  uintptr_t base = reinterpret_cast<uintptr_t>(p);
  if (base + bytes > kAddressLimit) {  // the one promise this region makes
    ::munmap(p, bytes);
    return 0;
  }
  return base;
}

}  // namespace

size_t region_bytes_from_env(ReportLine* warning) {
  const char* s = ::getenv("OPENHTP_DSP_HEAP_MB");
  if (s == nullptr || *s == '\0') return 0;
  uint64_t mib = 0;
  const char* p = s;
  for (; *p >= '0' && *p <= '9' && mib <= kMaxRegionMiB; ++p) mib = mib * 10 + static_cast<uint64_t>(*p - '0');
  if (*p != '\0' || mib == 0 || mib > kMaxRegionMiB) {
    warning->text("openhtp-dsp-heap: OPENHTP_DSP_HEAP_MB=").text(s).text(" is not a size in MiB from 1 to ")
        .dec(kMaxRegionMiB).text(": using the default");
    return 0;
  }
  return static_cast<size_t>(mib) * kMiB;
}

bool reserve_region(size_t bytes, Region* out, ReportLine* error) {
  uintptr_t base = 0;
  if (bytes != 0) {
    base = reserve_below_4g(bytes);
  } else {
    for (size_t mib : {kDefaultRegionMiB, size_t{1024}, size_t{512}, size_t{256}}) {
      bytes = mib * kMiB;
      if ((base = reserve_below_4g(bytes)) != 0) break;
    }
  }
  if (base == 0) {
    error->text("openhtp-dsp-heap: cannot reserve ").dec(bytes / kMiB)
        .text(" MiB below 4 GiB for the DSP heap (set OPENHTP_DSP_HEAP_MB lower): every allocation fails");
    return false;
  }
  // The bitmap may live anywhere: only the heap reads it.
  void* bits = map_at(0, BlockStarts::bytes_for(bytes), 0);
  if (bits == nullptr) {
    ::munmap(reinterpret_cast<void*>(base), bytes);
    error->text("openhtp-dsp-heap: cannot map the DSP heap's block bitmap: every allocation fails");
    return false;
  }
  out->base = base;
  out->size = bytes;
  out->start_bits = static_cast<uint64_t*>(bits);
  return true;
}

void release_pages(uintptr_t lo, uintptr_t hi) {
  if (hi <= lo || hi - lo < kReleaseMinBytes) return;  // most frees: no system call at all
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  lo = (lo + page - 1) & ~(page - 1);
  hi &= ~(page - 1);
  if (hi <= lo || hi - lo < kReleaseMinBytes) return;
  int saved_errno = errno;
  ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
  errno = saved_errno;
}

}  // namespace openhtp::dsp_heap
