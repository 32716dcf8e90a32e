// htp::ShareChain (share_chain.h): which steps may start while the ones
// before them still run on the other threads. Each rule is checked by a
// step that keeps it and one that breaks it.
#include "htp/share_chain.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace openhtp::htp {
namespace {

// A fake address space: spans are [begin, end) byte numbers.
struct Spans {
  std::vector<std::pair<uintptr_t, uintptr_t>> reads, writes;
};
// One step on two threads: share 0 and share 1.
std::vector<ops::ShareAccess> step(const Spans& s0, const Spans& s1) {
  std::vector<ops::ShareAccess> shares(2);
  const Spans* s[] = {&s0, &s1};
  for (size_t t = 0; t < 2; ++t) {
    for (auto [b, e] : s[t]->reads) shares[t].read(reinterpret_cast<const void*>(b), e - b);
    for (auto [b, e] : s[t]->writes) shares[t].write(reinterpret_cast<const void*>(b), e - b);
  }
  return shares;
}

// Buffers A [1000, 2000), B [2000, 3000), C [3000, 4000), each split in halves.
constexpr uintptr_t A = 1000, B = 2000, C = 3000, H = 500;

TEST(ShareChain, StepsWhoseSharesLineUpChainWithoutWaiting) {
  ShareChain chain(2);
  // A -> B, then B -> C, each thread on its own half.
  EXPECT_FALSE(chain.add(step({{{A, A + H}}, {{B, B + H}}}, {{{A + H, A + 2 * H}}, {{B + H, B + 2 * H}}})).chained)
      << "the first step of a chain starts after a barrier";
  const ShareChain::Start s = chain.add(step({{{B, B + H}}, {{C, C + H}}}, {{{B + H, B + 2 * H}}, {{C + H, C + 2 * H}}}));
  EXPECT_TRUE(s.chained);
  EXPECT_EQ(s.wait_for, SIZE_MAX);
}

TEST(ShareChain, ReadingWhatAnotherThreadWroteNeedsTheBarrier) {
  ShareChain chain(2);
  chain.add(step({{{A, A + H}}, {{B, B + H}}}, {{{A + H, A + 2 * H}}, {{B + H, B + 2 * H}}}));
  // Share 1 reads one row of halo below B's middle, which share 0 wrote.
  EXPECT_FALSE(
      chain.add(step({{{B, B + H + 10}}, {{C, C + H}}}, {{{B + H - 10, B + 2 * H}}, {{C + H, C + 2 * H}}})).chained);
}

TEST(ShareChain, WritingOverAPendingReadOfTheStepBeforeNeedsTheBarrier) {
  ShareChain chain(2);
  chain.add(step({{{A, A + H + 10}}, {{B, B + H}}}, {{{A + H - 10, A + 2 * H}}, {{B + H, B + 2 * H}}}));
  // The next step's output takes A's place: share 0 writes A's first half,
  // which share 1 of the step before reads (its halo).
  EXPECT_FALSE(chain.add(step({{{B, B + H}}, {{A, A + H}}}, {{{B + H, B + 2 * H}}, {{A + H, A + 2 * H}}})).chained);
}

TEST(ShareChain, MeetingAnOlderStepWaitsForItAndDropsIt) {
  ShareChain chain(2);
  // Step 0 reads A (halo across the middle) and writes B.
  chain.add(step({{{A, A + H + 10}}, {{B, B + H}}}, {{{A + H - 10, A + 2 * H}}, {{B + H, B + 2 * H}}}));
  // Step 1: B -> C, lined up.
  EXPECT_TRUE(chain.add(step({{{B, B + H}}, {{C, C + H}}}, {{{B + H, B + 2 * H}}, {{C + H, C + 2 * H}}})).chained);
  // Step 2: C -> A. Share 0 writes over step 0's share-1 halo read: wait for
  // step 0, nothing more.
  const ShareChain::Start s =
      chain.add(step({{{C, C + H}}, {{A, A + H}}}, {{{C + H, C + 2 * H}}, {{A + H, A + 2 * H}}}));
  EXPECT_TRUE(s.chained);
  EXPECT_EQ(s.wait_for, 0u);
  // Step 3 writes B's halves crosswise: it meets step 1 (reads of B) — a
  // wait, not a barrier, as step 2 is the one right before.
  const ShareChain::Start s3 =
      chain.add(step({{{A, A + H}}, {{B + H, B + 2 * H}}}, {{{A + H, A + 2 * H}}, {{B, B + H}}}));
  EXPECT_TRUE(s3.chained);
  EXPECT_EQ(s3.wait_for, 1u);
}

TEST(ShareChain, AStepThatDoesNotChainEmptiesTheChain) {
  ShareChain chain(2);
  chain.add(step({{{A, A + H}}, {{B, B + H}}}, {{{A + H, A + 2 * H}}, {{B + H, B + 2 * H}}}));
  EXPECT_FALSE(chain.add({}).chained);
  // The first chainable step after it starts after a barrier: its share 0
  // reads B's second half, which share 1 of the first step wrote, and
  // that is fine now.
  EXPECT_FALSE(chain.add(step({{{B + H, B + 2 * H}}, {{C, C + H}}}, {{{B, B + H}}, {{C + H, C + 2 * H}}})).chained);
  // The step after: chained, no wait; the first step's writes of B no
  // longer count (share 1 reads B's first half, which share 0 wrote there).
  const ShareChain::Start s = chain.add(step({{{C, C + H}}, {}}, {{{C + H, C + 2 * H}, {B, B + H}}, {}}));
  EXPECT_TRUE(s.chained) << "after a barrier, only the steps since count";
  EXPECT_EQ(s.wait_for, SIZE_MAX);
}

// A share that gave more spans than ShareAccess holds is not known: its step
// does not chain, and the chain starts again after it.
TEST(ShareChain, AShareWhoseSpansOverflowedDoesNotChain) {
  ShareChain chain(2);
  chain.add(step({{{A, A + H}}, {{B, B + H}}}, {{{A + H, A + 2 * H}}, {{B + H, B + 2 * H}}}));
  std::vector<ops::ShareAccess> many = step({{{B, B + H}}, {{C, C + H}}}, {{{B + H, B + 2 * H}}, {{C + H, C + 2 * H}}});
  for (size_t i = 0; i < ops::ShareAccess::kMaxSpans; ++i) many[1].read(reinterpret_cast<const void*>(C + 10 * i), 10);
  EXPECT_TRUE(many[1].overflowed);
  EXPECT_FALSE(chain.add(many).chained);
  EXPECT_FALSE(chain.add(step({{{C, C + H}}, {}}, {{{C + H, C + 2 * H}}, {}})).chained) << "after it, a barrier";
}

TEST(ShareChain, ThreeThreadsCheckEveryOtherThread) {
  ShareChain chain(3);
  std::vector<ops::ShareAccess> w(3), r(3);
  for (size_t t = 0; t < 3; ++t) w[t].write(reinterpret_cast<const void*>(A + 100 * t), 100);
  chain.add(w);
  // Thread 2 reads what thread 0 wrote.
  for (size_t t = 0; t < 3; ++t) r[t].read(reinterpret_cast<const void*>(A + 100 * (t == 2 ? 0 : t)), 100);
  EXPECT_FALSE(chain.add(r).chained);
  EXPECT_FALSE(chain.add(std::vector<ops::ShareAccess>(2)).chained) << "a step of another thread count";
}

}  // namespace
}  // namespace openhtp::htp
