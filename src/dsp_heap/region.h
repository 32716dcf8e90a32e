// The DSP heap's address range: one reservation below 4 GiB, so that every
// address in it is a valid 32-bit QURT address (QnnHtpMem_QurtAddress_t).
//
// The range is reserved, not committed (MAP_NORESERVE): pages cost memory
// only once touched, and release_pages() gives them back. Its size comes from
// OPENHTP_DSP_HEAP_MB (MiB, default 2048, at most kMaxRegionMiB).
#pragma once

#include <cstddef>
#include <cstdint>

#include "dsp_heap/report_line.h"

namespace openhtp::dsp_heap {

inline constexpr uint64_t kAddressLimit = uint64_t{1} << 32;  // QURT addresses are 32-bit
inline constexpr size_t kDefaultRegionMiB = 2048;
// The lowest hint is 16 MiB (below it sit a non-PIE executable and the
// kernel's mmap_min_addr), so this is the most that can end at 4 GiB.
inline constexpr size_t kMaxRegionMiB = 4080;

struct Region {
  uintptr_t base = 0;
  size_t size = 0;               // bytes, a multiple of the page size
  uint64_t* start_bits = nullptr;  // BlockStarts' words, a separate mapping
};

// The size OPENHTP_DSP_HEAP_MB asks for, in bytes, or 0 when it is not set.
// A value that is not a number in [1, kMaxRegionMiB] is described in
// *warning and treated as not set.
size_t region_bytes_from_env(ReportLine* warning);

// Reserves the region at the first free hint that fits below 4 GiB (then
// anywhere MAP_32BIT allows). bytes 0 means the default size, or, where that
// does not fit (under ASan, whose shadow memory starts just below 2 GiB),
// the largest of 1024, 512, 256 MiB that does: a program that did not ask
// for a size still runs. A size that was asked for is never shrunk. On
// failure describes why in *error.
bool reserve_region(size_t bytes, Region* out, ReportLine* error);

// Gives the whole pages inside [lo, hi) back to the OS if they add up to at
// least kReleaseMinBytes (smaller spans are not worth a system call per free;
// this is the threshold at which glibc serves malloc from mmap, too). The
// pages read as zero when next touched. errno is preserved.
inline constexpr size_t kReleaseMinBytes = 128 * 1024;
void release_pages(uintptr_t lo, uintptr_t hi);

}  // namespace openhtp::dsp_heap
