// Several threads allocating, writing, checking and freeing at once, plus
// one pinning and unpinning: the single lock keeps the heap consistent and
// no thread ever sees another's bytes in its blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <thread>
#include <vector>

#include "heap_test_support.h"

namespace openhtp::dsp_heap::testing {
namespace {

TEST(DspHeapThreads, ConcurrentAllocFreeReallocStayConsistent) {
  openhtp_dsp_heap_stats_t before = stats();
  constexpr int kThreads = 6;
  constexpr int kOps = 20000;
  std::atomic<int> failures{0};
  auto worker = [&](int t) {
    std::mt19937_64 rng(1000 + t);
    std::vector<std::pair<void*, std::pair<size_t, uint64_t>>> live;
    uint64_t next_id = uint64_t(t) << 40;
    for (int op = 0; op < kOps; ++op) {
      if (live.empty() || (rng() % 3 != 0 && live.size() < 200)) {
        size_t size = rng() % 8 == 0 ? 1 + rng() % (256 << 10) : 1 + rng() % 512;
        void* p = rng() % 4 == 0 ? openhtp_dsp_heap_alloc(size, size_t{32} << (rng() % 6)) : openhtp_dsp_heap_alloc(size, 0);
        if (p == nullptr || reinterpret_cast<uint64_t>(p) + size > k4GiB) {
          ++failures;
          continue;
        }
        fill_pattern(p, size, ++next_id);
        live.push_back({p, {size, next_id}});
      } else {
        size_t i = rng() % live.size();
        auto [p, meta] = live[i];
        if (!check_pattern(p, meta.first, meta.second)) ++failures;
        if (rng() % 4 == 0) {
          size_t size = 1 + rng() % 4096;
          void* q = openhtp_dsp_heap_realloc(p, size);
          if (q == nullptr || !check_pattern(q, meta.first, meta.second, size)) ++failures;
          fill_pattern(q, size, ++next_id);
          live[i] = {q, {size, next_id}};
        } else {
          openhtp_dsp_heap_free(p);
          live[i] = live.back();
          live.pop_back();
        }
      }
    }
    for (auto& [p, meta] : live) {
      if (!check_pattern(p, meta.first, meta.second)) ++failures;
      openhtp_dsp_heap_free(p);
    }
  };
  auto pinner = [&] {
    for (int i = 0; i < 2000; ++i) {
      void* p = openhtp_dsp_heap_alloc(128, 0);
      uint64_t id = 0;
      if (openhtp_dsp_heap_pin(reinterpret_cast<uint64_t>(p), 128, "thread", &id) != OPENHTP_DSP_HEAP_LIVE) ++failures;
      if (i % 2 == 0) openhtp_dsp_heap_free(p);  // freed while pinned: the unpin releases it
      if (openhtp_dsp_heap_unpin(id) != 1) ++failures;
      if (i % 2 == 1) openhtp_dsp_heap_free(p);
    }
  };
  ReportCapture reports;  // the pinned frees' lines go here, not only to the log
  ::testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  threads.emplace_back(pinner);
  for (auto& th : threads) th.join();
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(reports.lines().size(), 1000u);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1000);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
  openhtp_dsp_heap_stats_t after = stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.live_blocks, before.live_blocks);
  EXPECT_EQ(after.pins, 0u);
  EXPECT_EQ(after.pending_blocks, 0u);
}

TEST(DspHeapThreads, ForkedChildCanAllocateWhileParentThreadsDo) {
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    while (!stop.load()) openhtp_dsp_heap_free(openhtp_dsp_heap_alloc(64, 0));
  });
  bool all_ok = true;
  for (int i = 0; i < 20; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::alarm(2);  // a hang fails the test instead of stalling it
      // Would hang here if fork() had copied the lock held by `busy`.
      void* p = openhtp_dsp_heap_alloc(1000, 0);
      _exit(p != nullptr && openhtp_dsp_heap_check() == 0 ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    all_ok = all_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  stop = true;
  busy.join();
  EXPECT_TRUE(all_ok);
}

}  // namespace
}  // namespace openhtp::dsp_heap::testing
