// Pins (blocks QNN holds registered) and the reports of bad frees: a free of
// a pinned block keeps it, says so once, and the last unpin releases it; a
// double or wild free is reported and ignored.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "heap_test_support.h"

namespace openhtp::dsp_heap::testing {
namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

TEST(DspHeapPin, PinsTheLiveBlockHoldingARange) {
  char* p = static_cast<char*>(openhtp_dsp_heap_alloc(4096, 0));
  ASSERT_NE(p, nullptr);
  uint64_t id = 0;
  ASSERT_EQ(openhtp_dsp_heap_pin(addr(p) + 100, 200, "context 0x1", &id), OPENHTP_DSP_HEAP_LIVE);
  EXPECT_NE(id, 0u);
  openhtp_dsp_heap_block_t block{};
  EXPECT_EQ(openhtp_dsp_heap_lookup(addr(p) + 4000, 96, &block), OPENHTP_DSP_HEAP_LIVE);
  EXPECT_EQ(block.start, addr(p));
  EXPECT_EQ(block.size, 4096u);
  EXPECT_EQ(block.pins, 1u);
  EXPECT_EQ(stats().pinned_blocks, 1u);
  EXPECT_EQ(stats().pins, 1u);
  EXPECT_EQ(openhtp_dsp_heap_unpin(id), 1);
  EXPECT_EQ(stats().pinned_blocks, 0u);
  // Unpinned, it is an ordinary block again: free releases it silently.
  ReportCapture reports;
  openhtp_dsp_heap_free(p);
  EXPECT_TRUE(reports.lines().empty());
  EXPECT_EQ(openhtp_dsp_heap_lookup(addr(p), 1, nullptr), OPENHTP_DSP_HEAP_FREE);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeapPin, RefusesRangesThatAreNotInOneLiveBlock) {
  char* p = static_cast<char*>(openhtp_dsp_heap_alloc(256, 0));
  ASSERT_NE(p, nullptr);
  uint64_t id = 1;
  EXPECT_EQ(openhtp_dsp_heap_pin(addr(p), 257, "x", &id), OPENHTP_DSP_HEAP_TOO_SMALL);
  EXPECT_EQ(id, 0u);
  EXPECT_EQ(openhtp_dsp_heap_pin(addr(p) - 8, 4, "x", &id), OPENHTP_DSP_HEAP_FREE) << "the block's header";
  EXPECT_EQ(openhtp_dsp_heap_pin(0x1000, 4, "x", &id), OPENHTP_DSP_HEAP_OUTSIDE);
  EXPECT_EQ(openhtp_dsp_heap_pin(addr(p), 4, "x", nullptr), OPENHTP_DSP_HEAP_INVALID);
  openhtp_dsp_heap_free(p);
  EXPECT_EQ(openhtp_dsp_heap_pin(addr(p), 4, "x", &id), OPENHTP_DSP_HEAP_FREE);
  EXPECT_EQ(stats().pins, 0u);
}

TEST(DspHeapPin, FreeOfAPinnedBlockKeepsItUntilTheLastUnpin) {
  const size_t size = 1 << 20;  // big enough that a real release would give its pages back
  char* p = static_cast<char*>(openhtp_dsp_heap_alloc(size, 0));
  ASSERT_NE(p, nullptr);
  fill_pattern(p, size, 42);
  uint64_t first = 0;
  uint64_t second = 0;
  ASSERT_EQ(openhtp_dsp_heap_pin(addr(p), size, "context 0x3, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER", &first),
            OPENHTP_DSP_HEAP_LIVE);
  ASSERT_EQ(openhtp_dsp_heap_pin(addr(p) + 64, 64, "context 0x4", &second), OPENHTP_DSP_HEAP_LIVE);
  openhtp_dsp_heap_stats_t before = stats();

  ReportCapture reports;
  ::testing::internal::CaptureStderr();
  openhtp_dsp_heap_free(p);
  std::string err = ::testing::internal::GetCapturedStderr();

  const std::string expected = "openhtp-dsp-heap: free(" + hex(addr(p)) +
                               ") of a block still registered with QNN (context 0x3, "
                               "QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER; and 1 more): kept until QNN deregisters it";
  ASSERT_EQ(reports.lines().size(), 1u);
  EXPECT_EQ(reports.lines()[0], expected);
  EXPECT_EQ(err, expected + "\n") << "stderr gets the same single line";

  EXPECT_TRUE(check_pattern(p, size, 42)) << "kept means untouched";
  openhtp_dsp_heap_block_t block{};
  EXPECT_EQ(openhtp_dsp_heap_lookup(addr(p) + 10, 10, &block), OPENHTP_DSP_HEAP_FREED_PENDING);
  EXPECT_EQ(block.start, addr(p));
  EXPECT_EQ(block.pins, 2u);
  uint64_t third = 0;
  EXPECT_EQ(openhtp_dsp_heap_pin(addr(p), 1, "late", &third), OPENHTP_DSP_HEAP_FREED_PENDING);
  EXPECT_EQ(stats().pending_blocks, 1u);
  EXPECT_EQ(stats().live_blocks, before.live_blocks - 1);
  EXPECT_EQ(stats().bytes_in_use, before.bytes_in_use) << "still held";
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);

  // A second free of it is a double free: reported, nothing changes.
  openhtp_dsp_heap_free(p);
  ASSERT_EQ(reports.lines().size(), 2u);
  EXPECT_NE(reports.lines()[1].find("already freed while registered with QNN: ignored"), std::string::npos);

  EXPECT_EQ(openhtp_dsp_heap_unpin(first), 1);
  EXPECT_EQ(openhtp_dsp_heap_lookup(addr(p), 1, nullptr), OPENHTP_DSP_HEAP_FREED_PENDING);
  EXPECT_TRUE(check_pattern(p, size, 42));
  EXPECT_EQ(openhtp_dsp_heap_unpin(second), 1);  // the last pin: released now
  EXPECT_EQ(openhtp_dsp_heap_lookup(addr(p), 1, nullptr), OPENHTP_DSP_HEAP_FREE);
  EXPECT_EQ(stats().pending_blocks, 0u);
  EXPECT_EQ(stats().pinned_blocks, 0u);
  EXPECT_EQ(stats().bytes_in_use, before.bytes_in_use - size);
  EXPECT_EQ(reports.lines().size(), 2u) << "the release itself says nothing";
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeapPin, UnpinOfAnUnknownPinIsReported) {
  ReportCapture reports;
  EXPECT_EQ(openhtp_dsp_heap_unpin(0), 0);
  EXPECT_EQ(openhtp_dsp_heap_unpin(0x123456789abcdefull), 0);
  char* p = static_cast<char*>(openhtp_dsp_heap_alloc(64, 0));
  uint64_t id = 0;
  ASSERT_EQ(openhtp_dsp_heap_pin(addr(p), 64, "once", &id), OPENHTP_DSP_HEAP_LIVE);
  EXPECT_EQ(openhtp_dsp_heap_unpin(id), 1);
  EXPECT_EQ(openhtp_dsp_heap_unpin(id), 0) << "a stale id";
  EXPECT_EQ(openhtp_dsp_heap_unpin(id + (uint64_t{1} << 32)), 0) << "another generation";
  ASSERT_EQ(reports.lines().size(), 4u);
  EXPECT_NE(reports.lines()[3].find("of a pin that is not held: ignored"), std::string::npos);
  openhtp_dsp_heap_free(p);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeapPin, ReallocOfAPinnedBlockNeverMovesItsBytes) {
  char* p = static_cast<char*>(openhtp_dsp_heap_alloc(1000, 0));
  ASSERT_NE(p, nullptr);
  fill_pattern(p, 1000, 5);
  uint64_t id = 0;
  ASSERT_EQ(openhtp_dsp_heap_pin(addr(p), 1000, "ctx", &id), OPENHTP_DSP_HEAP_LIVE);
  ReportCapture reports;
  EXPECT_EQ(openhtp_dsp_heap_realloc(p, 10), p) << "shrinking keeps it as it is";
  EXPECT_EQ(openhtp_dsp_heap_usable_size(p), 1008u);
  char* q = static_cast<char*>(openhtp_dsp_heap_realloc(p, 100000));
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q, p);
  EXPECT_TRUE(check_pattern(q, 1000, 5));
  EXPECT_TRUE(check_pattern(p, 1000, 5)) << "the old block is kept for QNN";
  ASSERT_EQ(reports.lines().size(), 1u);
  EXPECT_EQ(reports.lines()[0].rfind("openhtp-dsp-heap: realloc(" + hex(addr(p)) + ") of a block still registered", 0), 0u)
      << reports.lines()[0];
  EXPECT_EQ(openhtp_dsp_heap_unpin(id), 1);
  openhtp_dsp_heap_free(q);
  EXPECT_EQ(stats().pending_blocks, 0u);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeapPin, LongOwnerTextsAreCut) {
  char* p = static_cast<char*>(openhtp_dsp_heap_alloc(64, 0));
  std::string owner(1000, 'o');
  uint64_t id = 0;
  ASSERT_EQ(openhtp_dsp_heap_pin(addr(p), 1, owner.c_str(), &id), OPENHTP_DSP_HEAP_LIVE);
  ReportCapture reports;
  openhtp_dsp_heap_free(p);
  ASSERT_EQ(reports.lines().size(), 1u);
  EXPECT_NE(reports.lines()[0].find(std::string(191, 'o')), std::string::npos);
  EXPECT_EQ(reports.lines()[0].find(std::string(192, 'o')), std::string::npos);
  EXPECT_EQ(openhtp_dsp_heap_unpin(id), 1);
  uint64_t unnamed = 0;
  p = static_cast<char*>(openhtp_dsp_heap_alloc(64, 0));
  ASSERT_EQ(openhtp_dsp_heap_pin(addr(p), 1, nullptr, &unnamed), OPENHTP_DSP_HEAP_LIVE);
  openhtp_dsp_heap_free(p);
  ASSERT_EQ(reports.lines().size(), 2u);
  EXPECT_NE(reports.lines()[1].find("(owner not named)"), std::string::npos);
  EXPECT_EQ(openhtp_dsp_heap_unpin(unnamed), 1);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeapBadFree, DoubleFreeIsReportedAndIgnored) {
  void* keep_before = openhtp_dsp_heap_alloc(64, 0);  // neighbours that must survive
  void* p = openhtp_dsp_heap_alloc(64, 0);
  void* keep_after = openhtp_dsp_heap_alloc(64, 0);
  ASSERT_TRUE(keep_before && p && keep_after);
  // Carved one after another from the free region (the tests leave none of
  // their blocks behind), so p's neighbours are these two.
  ASSERT_EQ(addr(p), addr(keep_before) + 64 + 16);
  ASSERT_EQ(addr(keep_after), addr(p) + 64 + 16);
  fill_pattern(keep_before, 64, 1);
  fill_pattern(keep_after, 64, 2);
  openhtp_dsp_heap_free(p);
  openhtp_dsp_heap_stats_t before = stats();
  ReportCapture reports;
  openhtp_dsp_heap_free(p);
  ASSERT_EQ(reports.lines().size(), 1u);
  EXPECT_EQ(reports.lines()[0], "openhtp-dsp-heap: free(" + hex(addr(p)) +
                                    ") of a block that is already free (freed twice): ignored");
  EXPECT_EQ(stats().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(stats().live_blocks, before.live_blocks);
  EXPECT_TRUE(check_pattern(keep_before, 64, 1));
  EXPECT_TRUE(check_pattern(keep_after, 64, 2));
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
  openhtp_dsp_heap_free(keep_before);
  openhtp_dsp_heap_free(keep_after);
  // Merged into its free neighbour now: still recognised as no allocation.
  openhtp_dsp_heap_free(p);
  ASSERT_EQ(reports.lines().size(), 2u);
  EXPECT_NE(reports.lines()[1].find("no allocation starts at"), std::string::npos) << reports.lines()[1];
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeapBadFree, WildFreesAreReportedAndIgnored) {
  char* p = static_cast<char*>(openhtp_dsp_heap_alloc(256, 0));
  ASSERT_NE(p, nullptr);
  fill_pattern(p, 256, 9);
  openhtp_dsp_heap_stats_t before = stats();
  ReportCapture reports;
  ::testing::internal::CaptureStderr();
  openhtp_dsp_heap_free(p + 16);  // inside the block, where a header would sit
  openhtp_dsp_heap_free(p + 3);   // misaligned
  openhtp_dsp_heap_free(p - 16);  // the block's own header
  int on_stack = 0;
  openhtp_dsp_heap_free(&on_stack);  // not in the region at all
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(reports.lines().size(), 4u);
  EXPECT_EQ(reports.lines()[0], "openhtp-dsp-heap: free(" + hex(addr(p + 16)) +
                                    ") of an address no allocation starts at (freed twice, or never returned by "
                                    "malloc): ignored");
  EXPECT_NE(reports.lines()[3].find("outside the DSP heap: ignored"), std::string::npos);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 4);
  EXPECT_EQ(stats().bytes_in_use, before.bytes_in_use);
  EXPECT_TRUE(check_pattern(p, 256, 9));
  EXPECT_EQ(openhtp_dsp_heap_realloc(p + 16, 10), nullptr) << "realloc of a wild pointer fails";
  EXPECT_EQ(reports.lines().size(), 5u);
  openhtp_dsp_heap_free(p);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeapBadFree, APinRecordIsNoProgramBlock) {
  char* p = static_cast<char*>(openhtp_dsp_heap_alloc(64, 0));
  uint64_t id = 0;
  ASSERT_EQ(openhtp_dsp_heap_pin(addr(p), 1, "ctx", &id), OPENHTP_DSP_HEAP_LIVE);
  // The id's low half is the record's address: freeing it must not work.
  void* record = reinterpret_cast<void*>(static_cast<uintptr_t>(static_cast<uint32_t>(id)));
  ReportCapture reports;
  openhtp_dsp_heap_free(record);
  EXPECT_EQ(reports.lines().size(), 1u);
  EXPECT_EQ(openhtp_dsp_heap_usable_size(record), 0u);
  EXPECT_EQ(openhtp_dsp_heap_lookup(addr(record), 1, nullptr), OPENHTP_DSP_HEAP_FREE);
  EXPECT_EQ(openhtp_dsp_heap_unpin(id), 1) << "the pin is intact";
  openhtp_dsp_heap_free(p);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

}  // namespace
}  // namespace openhtp::dsp_heap::testing
