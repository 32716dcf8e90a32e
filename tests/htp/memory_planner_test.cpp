// The greedy planner: reuse along a chain, never below the live peak, and no
// two simultaneously live buffers overlapping — checked on random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "htp/memory_planner.h"
#include "random_requests.h"

using openhtp::htp::BufferRequest;
using openhtp::htp::peak_live_bytes;
using openhtp::htp::plan_memory;

TEST(MemoryPlanner, ChainReusesTwoBuffers) {
  // t0 -> op0 -> t1 -> op1 -> t2 -> op2 -> t3 ...: each tensor lives from its
  // producer to its consumer, so only two are ever alive together.
  std::vector<BufferRequest> chain;
  for (int i = 0; i < 10; ++i) chain.push_back({1000, i, i + 1});
  auto plan = plan_memory(chain, 64);
  EXPECT_EQ(plan.total_size, 2u * 1024);  // 1000 aligned to 64 is 1024
  EXPECT_EQ(peak_live_bytes(chain, 64), 2u * 1024);
}

TEST(MemoryPlanner, DisjointLifetimesShareAndOverlappingOnesDoNot) {
  std::vector<BufferRequest> r = {{4096, 0, 1}, {4096, 2, 3}, {100, 0, 3}};
  auto plan = plan_memory(r, 64);
  EXPECT_EQ(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.total_size, 4096u + 128);
}

TEST(MemoryPlanner, RandomPlansAreValidAndNearThePeak) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<BufferRequest> r = planner_test::random_requests(rng, 1, 30, 20, 5000);
    const int n = static_cast<int>(r.size());
    auto plan = plan_memory(r, 64);
    const size_t peak = peak_live_bytes(r, 64);
    ASSERT_GE(plan.total_size, peak);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(plan.offsets[i] % 64, 0u);
      EXPECT_LE(plan.offsets[i] + r[i].size, plan.total_size);
      for (int j = i + 1; j < n; ++j) {
        const bool live_together = r[i].first_use <= r[j].last_use && r[j].first_use <= r[i].last_use;
        const bool overlap = plan.offsets[i] < plan.offsets[j] + r[j].size && plan.offsets[j] < plan.offsets[i] + r[i].size;
        ASSERT_FALSE(live_together && overlap) << "trial " << trial << " buffers " << i << "," << j;
      }
    }
  }
}

// Layout::kThreadHalves (memory_planner.h): valid like the packed plan, and
// any two buffers that share a byte have their middles within one alignment
// of each other — so a byte below one's middle is below the other's too, and
// each cache line is only ever in first halves or only in second halves.
// Read slack stays inside the arena.
TEST(MemoryPlanner, ThreadHalvesKeepEveryByteOnOneSideOfEveryMiddle) {
  using openhtp::htp::end_with_slack;
  using openhtp::htp::Layout;
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<BufferRequest> r = planner_test::random_requests(rng, 1, 30, 20, 5000, /*with_slack=*/true);
    const int n = static_cast<int>(r.size());
    const auto plan = plan_memory(r, 64, {}, Layout::kThreadHalves);
    ASSERT_GE(plan.total_size, peak_live_bytes(r, 64));
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(plan.offsets[i] % 64, 0u);
      EXPECT_LE(end_with_slack(r[i], plan.offsets[i], 64), plan.total_size);
      const double mid_i = plan.offsets[i] + r[i].size / 2.0;
      for (int j = i + 1; j < n; ++j) {
        const bool live_together = r[i].first_use <= r[j].last_use && r[j].first_use <= r[i].last_use;
        const bool overlap = plan.offsets[i] < plan.offsets[j] + r[j].size && plan.offsets[j] < plan.offsets[i] + r[i].size;
        ASSERT_FALSE(live_together && overlap) << "trial " << trial << " buffers " << i << "," << j;
        if (overlap) {
          const double mid_j = plan.offsets[j] + r[j].size / 2.0;
          ASSERT_LT(std::abs(mid_i - mid_j), 64.0) << "trial " << trial << " buffers " << i << "," << j;
        }
      }
    }
  }
}

// With any offset fixed, plan_memory packs the others around them whatever
// the layout; without, the layouts differ (the 1000-byte buffer is centred
// in the 4096-byte lane the others share).
TEST(MemoryPlanner, ThreadHalvesWithFixedOffsetsIsThePackedPlan) {
  using openhtp::htp::kNotFixed;
  using openhtp::htp::Layout;
  const std::vector<BufferRequest> r = {{4096, 0, 1}, {1000, 1, 2}, {3000, 2, 3}};
  const std::vector<size_t> fixed = {8192, kNotFixed, kNotFixed};
  const auto halves = plan_memory(r, 64, fixed, Layout::kThreadHalves);
  EXPECT_EQ(halves.offsets, plan_memory(r, 64, fixed).offsets);
  EXPECT_EQ(halves.offsets[0], 8192u);
  EXPECT_NE(plan_memory(r, 64, {}, Layout::kThreadHalves).offsets, plan_memory(r, 64).offsets);
}
