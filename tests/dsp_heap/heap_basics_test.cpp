// The DSP heap's malloc-like API: 32-bit addresses, alignment, realloc,
// limits and bad input.
#include <gtest/gtest.h>

#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "heap_test_support.h"

namespace openhtp::dsp_heap::testing {
namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

TEST(DspHeap, PointersAndTheirBytesLieBelow4GiB) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{24}, size_t{4096}, size_t{1} << 20, size_t{64} << 20}) {
    void* p = openhtp_dsp_heap_alloc(size, 0);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_LE(addr(p) + openhtp_dsp_heap_usable_size(p), k4GiB) << size;
    EXPECT_GE(openhtp_dsp_heap_usable_size(p), size);
    EXPECT_EQ(openhtp_dsp_heap_contains(p), 1);
    std::memset(p, 0xab, size);  // the memory is really there
    openhtp_dsp_heap_free(p);
  }
  openhtp_dsp_heap_stats_t s = stats();
  EXPECT_NE(s.region_base, 0u);
  EXPECT_EQ(s.region_size, kTestRegionMiB << 20);
  EXPECT_LE(s.region_base + s.region_size, k4GiB);
  EXPECT_EQ(openhtp_dsp_heap_present(), 1);
}

TEST(DspHeap, HonoursEveryPowerOfTwoAlignment) {
  std::vector<void*> blocks;
  for (size_t align = 1; align <= (size_t{1} << 20); align <<= 1) {
    for (size_t size : {size_t{1}, size_t{100}, size_t{5000}}) {
      void* p = openhtp_dsp_heap_alloc(size, align);
      ASSERT_NE(p, nullptr) << align << " " << size;
      EXPECT_EQ(addr(p) % (align < 16 ? 16 : align), 0u) << align;
      EXPECT_GE(openhtp_dsp_heap_usable_size(p), size);
      fill_pattern(p, size, align + size);
      blocks.push_back(p);
    }
  }
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
  size_t i = 0;
  for (size_t align = 1; align <= (size_t{1} << 20); align <<= 1) {
    for (size_t size : {size_t{1}, size_t{100}, size_t{5000}}) {
      EXPECT_TRUE(check_pattern(blocks[i], size, align + size)) << align << " " << size;
      openhtp_dsp_heap_free(blocks[i++]);
    }
  }
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeap, RejectsAlignmentsThatAreNoPowerOfTwo) {
  EXPECT_EQ(openhtp_dsp_heap_alloc(16, 3), nullptr);
  EXPECT_EQ(openhtp_dsp_heap_alloc(16, 48), nullptr);
  EXPECT_EQ(openhtp_dsp_heap_alloc(16, SIZE_MAX), nullptr);
}

TEST(DspHeap, FailsRequestsBiggerThanTheRegion) {
  EXPECT_EQ(openhtp_dsp_heap_alloc(SIZE_MAX, 0), nullptr);
  EXPECT_EQ(openhtp_dsp_heap_alloc((kTestRegionMiB + 1) << 20, 0), nullptr);
  EXPECT_EQ(openhtp_dsp_heap_alloc(1, size_t{1} << 40), nullptr);
  void* p = openhtp_dsp_heap_alloc(16, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(openhtp_dsp_heap_realloc(p, SIZE_MAX), nullptr);
  EXPECT_TRUE(openhtp_dsp_heap_usable_size(p) >= 16) << "a failed realloc keeps the block";
  openhtp_dsp_heap_free(p);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeap, ReallocKeepsContentsWhileGrowingAndShrinking) {
  void* p = openhtp_dsp_heap_realloc(nullptr, 10);
  ASSERT_NE(p, nullptr);
  fill_pattern(p, 10, 7);
  size_t kept = 10;
  for (size_t size : {size_t{100}, size_t{5000}, size_t{3} << 20, size_t{64}, size_t{2} << 20, size_t{17}}) {
    void* q = openhtp_dsp_heap_realloc(p, size);
    ASSERT_NE(q, nullptr) << size;
    EXPECT_TRUE(check_pattern(q, kept, 7, size)) << size;
    fill_pattern(q, size, 7);
    kept = size;
    p = q;
    EXPECT_EQ(openhtp_dsp_heap_check(), 0);
  }
  EXPECT_EQ(openhtp_dsp_heap_realloc(p, 0), nullptr);  // frees, like glibc
  EXPECT_EQ(stats().live_blocks, 0u);
}

TEST(DspHeap, ReallocGrowsInPlaceIntoAFreeNeighbour) {
  void* a = openhtp_dsp_heap_alloc(1000, 0);
  void* b = openhtp_dsp_heap_alloc(1000, 0);
  void* c = openhtp_dsp_heap_alloc(1000, 0);
  ASSERT_TRUE(a && b && c);
  openhtp_dsp_heap_free(b);
  EXPECT_EQ(openhtp_dsp_heap_realloc(a, 1800), a);
  openhtp_dsp_heap_free(a);
  openhtp_dsp_heap_free(c);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeap, UsableSizeIsZeroForWhatIsNoAllocation) {
  void* p = openhtp_dsp_heap_alloc(64, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(openhtp_dsp_heap_usable_size(static_cast<char*>(p) + 16), 0u);
  EXPECT_EQ(openhtp_dsp_heap_usable_size(nullptr), 0u);
  int on_stack = 0;
  EXPECT_EQ(openhtp_dsp_heap_usable_size(&on_stack), 0u);
  EXPECT_EQ(openhtp_dsp_heap_contains(&on_stack), 0);
  openhtp_dsp_heap_free(p);
  EXPECT_EQ(openhtp_dsp_heap_usable_size(p), 0u);
  openhtp_dsp_heap_free(nullptr);  // a no-op, no report
}

TEST(DspHeap, StatisticsFollowAllocations) {
  openhtp_dsp_heap_stats_t before = stats();
  void* p = openhtp_dsp_heap_alloc(1 << 20, 0);
  ASSERT_NE(p, nullptr);
  openhtp_dsp_heap_stats_t during = stats();
  EXPECT_EQ(during.live_blocks, before.live_blocks + 1);
  EXPECT_EQ(during.bytes_in_use, before.bytes_in_use + (1 << 20));
  EXPECT_GE(during.peak_bytes_in_use, during.bytes_in_use);
  openhtp_dsp_heap_free(p);
  openhtp_dsp_heap_stats_t after = stats();
  EXPECT_EQ(after.live_blocks, before.live_blocks);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_GE(after.peak_bytes_in_use, before.bytes_in_use + (1 << 20));
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

// Resident pages in [p, p + size) (whole pages inside it).
size_t resident_pages(const void* p, size_t size) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + size) & ~(page - 1);
  std::vector<unsigned char> in_core((hi - lo) / page);
  if (::mincore(reinterpret_cast<void*>(lo), hi - lo, in_core.data()) != 0) return SIZE_MAX;
  size_t n = 0;
  for (unsigned char c : in_core) n += c & 1u;
  return n;
}

TEST(DspHeap, FreeingABigBlockGivesItsPagesBack) {
  const size_t size = 32 << 20;
  const size_t pages = size / static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* p = openhtp_dsp_heap_alloc(size, 0);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, size);
  EXPECT_GE(resident_pages(p, size), pages - 1);
  openhtp_dsp_heap_free(p);
  EXPECT_LE(resident_pages(p, size), 2u) << "only the page with the free block's header and links stays";
  // Small blocks are not worth a system call each: their pages stay.
  char* small = static_cast<char*>(openhtp_dsp_heap_alloc(64 << 10, 0));
  ASSERT_NE(small, nullptr);
  std::memset(small, 1, 64 << 10);
  openhtp_dsp_heap_free(small);
  EXPECT_GE(resident_pages(small, 64 << 10), (64u << 10) / ::sysconf(_SC_PAGESIZE) - 2);
}

}  // namespace
}  // namespace openhtp::dsp_heap::testing
