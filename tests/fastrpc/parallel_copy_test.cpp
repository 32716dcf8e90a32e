// parallel_copy: the caller and the helper thread claim chunks of one copy
// from its two ends. Every byte must arrive exactly once whatever the sizes,
// alignments and timing, with callers racing for the helper.
#include "fastrpc/parallel_copy.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

using openhtp::fastrpc::kParallelCopyThreshold;
using openhtp::fastrpc::parallel_copy;

// A pattern that differs from byte to byte and from one fill to the next, so
// a chunk copied from the wrong place, twice or not at all shows.
void fill(std::vector<uint8_t>* v, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (uint8_t& b : *v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x);
  }
}

// Copies n bytes from src + src_off to dst + dst_off and checks them, and
// that the bytes around the destination range were left alone.
void copy_and_check(size_t n, size_t src_off, size_t dst_off, uint32_t seed) {
  std::vector<uint8_t> src(n + src_off), dst(n + dst_off + 64, 0xA5);
  fill(&src, seed);
  parallel_copy(dst.data() + dst_off, src.data() + src_off, n);
  ASSERT_EQ(std::memcmp(dst.data() + dst_off, src.data() + src_off, n), 0)
      << "n " << n << " src_off " << src_off << " dst_off " << dst_off;
  for (size_t i = 0; i < dst_off; ++i) ASSERT_EQ(dst[i], 0xA5) << "before the range, n " << n;
  for (size_t i = dst_off + n; i < dst.size(); ++i) ASSERT_EQ(dst[i], 0xA5) << "after the range, n " << n;
}

TEST(ParallelCopy, EveryByteOnceAtSizesAroundTheThresholdAndTheChunks) {
  const size_t sizes[] = {0,
                          1,
                          kParallelCopyThreshold - 1,
                          kParallelCopyThreshold,
                          kParallelCopyThreshold + 1,
                          (3u << 20) + 12345,
                          (16u << 20) - 1,
                          16u << 20,
                          (16u << 20) + 1,
                          (17u << 20) + 777};
  uint32_t seed = 1;
  for (size_t n : sizes) {
    for (size_t off : {size_t{0}, size_t{1}, size_t{63}}) {
      copy_and_check(n, off, (off * 7) % 64, seed++);
      if (HasFatalFailure()) return;
    }
  }
}

// Many copies in a row: the helper wakes early, late or not at all for a
// given one, and must never copy into a copy that has ended.
TEST(ParallelCopy, BackToBackCopiesStayApart) {
  std::mt19937 rng(7);
  std::vector<uint8_t> a(5u << 20), b(5u << 20);
  for (uint32_t round = 0; round < 60; ++round) {
    const size_t n = kParallelCopyThreshold + rng() % (3u << 20);
    fill(&a, round);
    std::memset(b.data(), 0, b.size());
    parallel_copy(b.data(), a.data(), n);
    ASSERT_EQ(std::memcmp(b.data(), a.data(), n), 0) << "round " << round;
    for (size_t i = n; i < b.size(); ++i) ASSERT_EQ(b[i], 0) << "round " << round << " wrote past n";
  }
}

// Callers on several threads: one shares the helper, the others copy alone.
TEST(ParallelCopy, ConcurrentCallersEachGetTheirOwnBytes) {
  constexpr int kThreads = 4, kRounds = 8;
  std::vector<std::thread> threads;
  std::vector<int> bad(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &bad] {
      std::vector<uint8_t> src((3u << 20) + 4096 * t), dst(src.size());
      for (int r = 0; r < kRounds; ++r) {
        fill(&src, static_cast<uint32_t>(t * 100 + r));
        parallel_copy(dst.data(), src.data(), src.size());
        if (std::memcmp(dst.data(), src.data(), src.size()) != 0) ++bad[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

// The caller's last step, waiting for the helper's chunk in flight, is what
// keeps a copy from returning with bytes still to come. A hook holds the
// helper for 20 ms inside each chunk it claims: without the wait, the
// caller would return long before that chunk is written. On a one-CPU
// machine the copy is never shared (parallel_copy.h): there the helper must
// take no chunk at all.
std::atomic<int> g_held_chunks{0};

TEST(ParallelCopy, ReturnsOnlyAfterTheHelpersChunkIsIn) {
  const bool one_cpu = std::thread::hardware_concurrency() < 2;
  openhtp::fastrpc::parallel_copy_set_helper_hook([] {
    g_held_chunks.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  std::vector<uint8_t> src(8u << 20), dst(src.size());
  int shared = 0;
  for (uint32_t round = 0; round < 200 && shared < 3; ++round) {
    fill(&src, 1000 + round);
    std::memset(dst.data(), 0, dst.size());
    const int before = g_held_chunks.load();
    parallel_copy(dst.data(), src.data(), src.size());
    const bool helper_took_one = g_held_chunks.load() != before;
    ASSERT_EQ(std::memcmp(dst.data(), src.data(), src.size()), 0) << "round " << round << " returned early";
    shared += helper_took_one ? 1 : 0;
  }
  openhtp::fastrpc::parallel_copy_set_helper_hook(nullptr);
  if (one_cpu) {
    EXPECT_EQ(shared, 0) << "one CPU, yet the helper took chunks";
  } else {
    EXPECT_GT(shared, 0) << "the helper never took a chunk in 200 copies: nothing was tested";
  }
}

}  // namespace
