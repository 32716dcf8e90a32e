// Shared by the DSP heap's tests: the region they run in, a report capture,
// and a content pattern that proves blocks do not overlap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dsp_heap/dsp_heap.h"

namespace openhtp::dsp_heap::testing {

// Every test runs in a 512 MiB region (set before the heap's first use;
// OPENHTP_DSP_HEAP_MB from the environment wins). Small enough for the
// address space an ASan build leaves below 2 GiB.
inline constexpr size_t kTestRegionMiB = 512;

inline constexpr uint64_t k4GiB = uint64_t{1} << 32;

openhtp_dsp_heap_stats_t stats();

// Collects the heap's report lines while it lives (one at a time).
class ReportCapture {
 public:
  ReportCapture();
  ~ReportCapture();
  ReportCapture(const ReportCapture&) = delete;
  ReportCapture& operator=(const ReportCapture&) = delete;
  std::vector<std::string> lines() const;
};

// Writes / checks bytes derived from (id, offset) in [p, p + size): all of
// the first and last 256 bytes and one byte per 16 KiB between, so big blocks
// cost little and any overlap of two blocks' ends is caught. check_pattern
// looks at the bytes fill_pattern(p, size, id) wrote below limit only (what
// a realloc to limit bytes keeps).
void fill_pattern(void* p, size_t size, uint64_t id);
bool check_pattern(const void* p, size_t size, uint64_t id, size_t limit = SIZE_MAX);

}  // namespace openhtp::dsp_heap::testing
