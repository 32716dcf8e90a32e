// The graph's pool (src/threads): pthreadpool's C API on OpenMP. Each
// parallelize function must call its task once per tile with the start
// indices and sizes pthreadpool.h's reference loops give, for a null pool and
// pools of 1-3 threads, spread the tiles over the pool's threads, honour
// PTHREADPOOL_FLAG_DISABLE_DENORMALS on every thread, and count its calls —
// called plainly and inside a thread team (team.h), where the team's waiting
// threads serve the calls.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/interval_clock.h"
#include "threads/share_times.h"
#include "threads/team.h"
#include "threads/threadpool.h"

namespace {

using openhtp::threads::create_pool;
using openhtp::threads::destroy_pool;

// What a task saw: one record per call, {start..., sizes...}.
struct Calls {
  std::mutex mu;
  std::multiset<std::vector<size_t>> seen;
  std::set<int> threads;
  void add(std::vector<size_t> v) {
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(std::move(v));
    threads.insert(omp_get_thread_num());
  }
};

// The calls pthreadpool's documented serial loop makes over `ranges`, tiled
// by `tiles` on the last dimensions: every start index of each dimension,
// sizes min(tile, range - start), the last dimension fastest.
std::multiset<std::vector<size_t>> expected(const std::vector<size_t>& ranges, const std::vector<size_t>& tiles,
                                            bool with_sizes) {
  std::vector<size_t> tile(ranges.size(), 1);
  for (size_t i = 0; i < tiles.size(); ++i) tile[ranges.size() - tiles.size() + i] = tiles[i];
  std::multiset<std::vector<size_t>> out;
  std::vector<size_t> at(ranges.size(), 0);
  for (size_t r : ranges) {
    if (r == 0) return out;
  }
  while (true) {
    std::vector<size_t> rec = at;
    if (with_sizes) {
      for (size_t d = ranges.size() - tiles.size(); d < ranges.size(); ++d) rec.push_back(std::min(tile[d], ranges[d] - at[d]));
    }
    out.insert(rec);
    int d = static_cast<int>(ranges.size()) - 1;
    for (; d >= 0; --d) {
      at[d] += tile[d];
      if (at[d] < ranges[d]) break;
      at[d] = 0;
    }
    if (d < 0) return out;
  }
}

// {threads (0: a null pool), inside a team}
class ThreadPool : public ::testing::TestWithParam<std::tuple<size_t, bool>> {
 protected:
  void SetUp() override { pool_ = threads() == 0 ? nullptr : create_pool(threads()); }
  void TearDown() override { destroy_pool(pool_); }
  size_t threads() const { return std::get<0>(GetParam()); }
  // Runs the test's calls plainly or inside a team of the pool's threads.
  template <typename Body>
  void calls(Body body) {
    if (!std::get<1>(GetParam())) return body();
    openhtp::threads::run_with_team(pool_, body);
  }
  pthreadpool_t pool_ = nullptr;
};

TEST_P(ThreadPool, CountsItsThreads) {
  EXPECT_EQ(pthreadpool_get_threads_count(pool_), threads() == 0 ? 1u : threads());
  EXPECT_EQ(openhtp::threads::pool_threads(pool_), threads() == 0 ? 1u : threads());
}

void every_tile_once(pthreadpool_t pool_) {
  Calls c;
  // One call of each function XNNPACK uses, on ranges that do not divide by
  // their tiles (partial last tiles), and one empty range.
  pthreadpool_parallelize_1d(pool_, [](void* p, size_t i) { static_cast<Calls*>(p)->add({i}); }, &c, 37, 0);
  EXPECT_EQ(c.seen, expected({37}, {}, false)) << "1d";

  c.seen.clear();
  pthreadpool_parallelize_1d_tile_1d(
      pool_, [](void* p, size_t i, size_t n) { static_cast<Calls*>(p)->add({i, n}); }, &c, 37, 5, 0);
  EXPECT_EQ(c.seen, expected({37}, {5}, true)) << "1d_tile_1d";

  c.seen.clear();
  pthreadpool_parallelize_2d(pool_, [](void* p, size_t i, size_t j) { static_cast<Calls*>(p)->add({i, j}); }, &c, 5,
                             7, 0);
  EXPECT_EQ(c.seen, expected({5, 7}, {}, false)) << "2d";

  c.seen.clear();
  pthreadpool_parallelize_2d_tile_1d(
      pool_, [](void* p, size_t i, size_t j, size_t n) { static_cast<Calls*>(p)->add({i, j, n}); }, &c, 5, 11, 4, 0);
  EXPECT_EQ(c.seen, expected({5, 11}, {4}, true)) << "2d_tile_1d";

  c.seen.clear();
  pthreadpool_parallelize_2d_tile_2d(
      pool_, [](void* p, size_t i, size_t j, size_t ni, size_t nj) { static_cast<Calls*>(p)->add({i, j, ni, nj}); },
      &c, 9, 11, 2, 4, 0);
  EXPECT_EQ(c.seen, expected({9, 11}, {2, 4}, true)) << "2d_tile_2d";

  c.seen.clear();
  pthreadpool_parallelize_3d(
      pool_, [](void* p, size_t i, size_t j, size_t k) { static_cast<Calls*>(p)->add({i, j, k}); }, &c, 3, 4, 5, 0);
  EXPECT_EQ(c.seen, expected({3, 4, 5}, {}, false)) << "3d";

  c.seen.clear();
  pthreadpool_parallelize_3d_tile_2d(
      pool_,
      [](void* p, size_t i, size_t j, size_t k, size_t nj, size_t nk) {
        static_cast<Calls*>(p)->add({i, j, k, nj, nk});
      },
      &c, 3, 7, 10, 3, 4, 0);
  EXPECT_EQ(c.seen, expected({3, 7, 10}, {3, 4}, true)) << "3d_tile_2d";

  c.seen.clear();
  pthreadpool_parallelize_4d(
      pool_, [](void* p, size_t i, size_t j, size_t k, size_t l) { static_cast<Calls*>(p)->add({i, j, k, l}); }, &c,
      2, 3, 4, 5, 0);
  EXPECT_EQ(c.seen, expected({2, 3, 4, 5}, {}, false)) << "4d";

  c.seen.clear();
  pthreadpool_parallelize_4d_tile_2d(
      pool_,
      [](void* p, size_t i, size_t j, size_t k, size_t l, size_t nk, size_t nl) {
        static_cast<Calls*>(p)->add({i, j, k, l, nk, nl});
      },
      &c, 2, 3, 7, 9, 2, 4, 0);
  EXPECT_EQ(c.seen, expected({2, 3, 7, 9}, {2, 4}, true)) << "4d_tile_2d";

  c.seen.clear();
  pthreadpool_parallelize_5d(
      pool_,
      [](void* p, size_t i, size_t j, size_t k, size_t l, size_t m) { static_cast<Calls*>(p)->add({i, j, k, l, m}); },
      &c, 2, 2, 3, 2, 3, 0);
  EXPECT_EQ(c.seen, expected({2, 2, 3, 2, 3}, {}, false)) << "5d";

  c.seen.clear();
  pthreadpool_parallelize_5d_tile_2d(
      pool_,
      [](void* p, size_t i, size_t j, size_t k, size_t l, size_t m, size_t nl, size_t nm) {
        static_cast<Calls*>(p)->add({i, j, k, l, m, nl, nm});
      },
      &c, 2, 2, 3, 5, 7, 2, 3, 0);
  EXPECT_EQ(c.seen, expected({2, 2, 3, 5, 7}, {2, 3}, true)) << "5d_tile_2d";

  c.seen.clear();
  pthreadpool_parallelize_6d_tile_2d(
      pool_,
      [](void* p, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n, size_t nm, size_t nn) {
        static_cast<Calls*>(p)->add({i, j, k, l, m, n, nm, nn});
      },
      &c, 2, 1, 2, 3, 5, 6, 4, 4, 0);
  EXPECT_EQ(c.seen, expected({2, 1, 2, 3, 5, 6}, {4, 4}, true)) << "6d_tile_2d";

  c.seen.clear();
  pthreadpool_parallelize_2d(pool_, [](void* p, size_t i, size_t j) { static_cast<Calls*>(p)->add({i, j}); }, &c, 5,
                             0, 0);
  EXPECT_TRUE(c.seen.empty()) << "an empty range calls nothing";
}

TEST_P(ThreadPool, EveryTileOnceWithItsStartAndSize) {
  calls([&] { every_tile_once(pool_); });
}

TEST_P(ThreadPool, SpreadsTilesOverItsThreads) {
  Calls c;
  calls([&] {
    pthreadpool_parallelize_1d(
        pool_,
        [](void* p, size_t i) {
          static_cast<Calls*>(p)->add({i});
          std::this_thread::sleep_for(std::chrono::microseconds(50));  // long enough that one thread cannot take all
        },
        &c, 64, 0);
  });
  EXPECT_EQ(c.seen.size(), 64u);
  EXPECT_EQ(c.threads.size(), threads() == 0 ? 1u : std::min<size_t>(threads(), 64));
}

// A product that is subnormal unless flush-to-zero is on.
float subnormal_product() {
  volatile float a = 1e-30f, b = 1e-10f;
  return a * b;
}

TEST_P(ThreadPool, DisableDenormalsHoldsOnEveryThreadAndIsRestored) {
  ASSERT_NE(subnormal_product(), 0.0f) << "this CPU flushes denormals already";
  struct Seen {
    std::atomic<int> flushed{0}, kept{0};
  } seen;
  auto task = [](void* p, size_t) {
    auto* s = static_cast<Seen*>(p);
    (subnormal_product() == 0.0f ? s->flushed : s->kept)++;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  };
  calls([&] {
    pthreadpool_parallelize_1d(pool_, task, &seen, 16, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
    EXPECT_EQ(seen.flushed.load(), 16);
    EXPECT_EQ(seen.kept.load(), 0);
    EXPECT_NE(subnormal_product(), 0.0f) << "the caller's mode is restored";
    seen.flushed = seen.kept = 0;
    pthreadpool_parallelize_1d(pool_, task, &seen, 16, 0);
    EXPECT_EQ(seen.kept.load(), 16) << "without the flag, denormals are kept";
  });
}

TEST_P(ThreadPool, CountsDispatches) {
  const uint64_t before = openhtp::threads::dispatches();
  calls([&] {
    pthreadpool_parallelize_1d(pool_, [](void*, size_t) {}, nullptr, 3, 0);
    openhtp::threads::parallelize_1d_tile_1d(pool_, [](void*, size_t, size_t) {}, nullptr, 3, 2, 0);
  });
  EXPECT_EQ(openhtp::threads::dispatches(), before + 2);
}

TEST_P(ThreadPool, CountsSplitDispatchesOnlyWhereSeveralThreadsRan) {
  const uint64_t before = openhtp::threads::split_dispatches();
  calls([&] {
    pthreadpool_parallelize_1d(pool_, [](void*, size_t) {}, nullptr, 3, 0);  // splits on 2+ threads
    pthreadpool_parallelize_1d(pool_, [](void*, size_t) {}, nullptr, 1, 0);  // one tile: never splits
  });
  EXPECT_EQ(openhtp::threads::split_dispatches(), before + (threads() >= 2 ? 1 : 0));
}

// With a ShareTimes installed (node profiling), each share's wall time goes
// to the thread number that ran it, and only there: tile t of a loop of one
// tile per thread sleeps 40 ms on the last thread and not at all on the
// others, so the last thread's slot holds at least 40 ms and the others' far
// less (the caller's wait for it is its wait, not its work).
TEST_P(ThreadPool, SharesAreTimedOnTheThreadThatRanThem) {
  const size_t n = std::max<size_t>(threads(), 1);
  constexpr uint64_t kSleepNs = 40'000'000;
  openhtp::threads::ShareTimes times;
  struct Ctx {
    size_t last;
    std::vector<int> who;
  } ctx{n - 1, std::vector<int>(n, -1)};
  calls([&] {
    const openhtp::threads::ScopedShareTimes timed(&times);
    pthreadpool_parallelize_1d(
        pool_,
        [](void* p, size_t i) {
          auto* c = static_cast<Ctx*>(p);
          c->who[i] = omp_get_thread_num();
          if (i == c->last) std::this_thread::sleep_for(std::chrono::milliseconds(40));
        },
        &ctx, n, 0);
  });
  EXPECT_EQ(openhtp::threads::installed_share_times(), nullptr) << "uninstalled when the scope ended";
  if (n == 1) {  // the caller ran the loop itself: no share was handed out
    for (const auto& slot : times.busy) EXPECT_EQ(slot.ticks, 0u);
    return;
  }
  for (size_t t = 0; t < n; ++t) {
    EXPECT_EQ(ctx.who[t], static_cast<int>(t)) << "one tile per thread, in order";
    if (t == n - 1) {
      // 1 % below: the execute clock's rate is calibrated against the
      // sleep's clock, not equal to it.
      EXPECT_GE(openhtp::interval_ns(times.busy[t].ticks), kSleepNs * 99 / 100) << "thread " << t;
    } else {
      EXPECT_LT(openhtp::interval_ns(times.busy[t].ticks), kSleepNs / 2) << "thread " << t << " did not sleep";
    }
  }
  for (size_t t = n; t < openhtp::threads::kMaxTimedThreads; ++t) EXPECT_EQ(times.busy[t].ticks, 0u) << t;
  EXPECT_GT(times.caller_wait_ticks, 0u) << "the caller waited for the last thread";
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPool, ::testing::Combine(::testing::Values(0, 1, 2, 3), ::testing::Bool()),
                         [](const auto& info) {
                           const size_t n = std::get<0>(info.param);
                           return (n == 0 ? std::string("NullPool") : std::to_string(n) + "Threads") +
                                  (std::get<1>(info.param) ? "InATeam" : "");
                         });

// ---- Thread teams (team.h) ----------------------------------------------------

// Which thread ran each tile of a 1d loop over n.
std::vector<int> owners(pthreadpool_t pool, size_t n) {
  std::vector<int> who(n, -1);
  pthreadpool_parallelize_1d(
      pool, [](void* p, size_t i) { (*static_cast<std::vector<int>*>(p))[i] = omp_get_thread_num(); }, &who, n, 0);
  return who;
}

// A team hands out the same shares an OpenMP static schedule does, so a
// loop after a split node reads what the same thread wrote
// (parallel_tiles.h run_in_shares relies on it), and a thread that ran one
// loop's share t runs share t of the next.
TEST(ThreadTeam, SharesAreTheStaticScheduleShares) {
  for (size_t threads : {2, 3}) {
    pthreadpool_t pool = create_pool(threads);
    for (size_t n : {1, 2, 5, 7, 64}) {
      const std::vector<int> plain = owners(pool, n);
      std::vector<int> teamed;
      auto body = [&] { teamed = owners(pool, n); };
      openhtp::threads::run_with_team(pool, body);
      EXPECT_EQ(teamed, plain) << threads << " threads, " << n << " tiles";
      for (size_t i = 1; i < n; ++i) EXPECT_LE(teamed[i - 1], teamed[i]) << "contiguous shares";
    }
    destroy_pool(pool);
  }
}

// Between loops the team's threads spin, then sleep (after team.cpp's
// kSpinNs, 5 ms); a loop after a longer pause must wake them, and many
// short loops in a row must each run every tile once.
TEST(ThreadTeam, ManyLoopsAndLoopsAfterThreadsSlept) {
  pthreadpool_t pool = create_pool(2);
  std::atomic<size_t> tiles{0};
  std::set<int> threads_seen;
  std::mutex mu;
  auto body = [&] {
    for (int loop = 0; loop < 2000; ++loop) {
      pthreadpool_parallelize_1d(pool, [](void* p, size_t) { ++*static_cast<std::atomic<size_t>*>(p); }, &tiles, 7, 0);
    }
    for (int loop = 0; loop < 3; ++loop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(8));  // past the spin: the other thread sleeps
      struct Ctx {
        std::mutex* mu;
        std::set<int>* seen;
        std::atomic<size_t>* tiles;
      } ctx{&mu, &threads_seen, &tiles};
      pthreadpool_parallelize_1d(
          pool,
          [](void* p, size_t) {
            auto* c = static_cast<Ctx*>(p);
            ++*c->tiles;
            std::lock_guard<std::mutex> lock(*c->mu);
            c->seen->insert(omp_get_thread_num());
          },
          &ctx, 2, 0);
    }
  };
  openhtp::threads::run_with_team(pool, body);
  EXPECT_EQ(tiles.load(), 2000u * 7 + 3 * 2);
  EXPECT_EQ(threads_seen, (std::set<int>{0, 1})) << "the woken thread ran its share";
  destroy_pool(pool);
}

// An exception leaves the team's region as an exception_ptr and is thrown
// again where run_with_team was called, from the body (the master) or from a
// task another thread ran; the team's threads are not left waiting.
TEST(ThreadTeam, ExceptionsFromTheBodyOrATaskReachTheCaller) {
  pthreadpool_t pool = create_pool(2);
  auto throws = [] { throw std::runtime_error("body"); };
  EXPECT_THROW(openhtp::threads::run_with_team(pool, throws), std::runtime_error);
  auto task_throws = [&] {
    pthreadpool_parallelize_1d(
        pool,
        [](void*, size_t i) {
          if (i == 1) throw std::logic_error("task on thread " + std::to_string(omp_get_thread_num()));
        },
        nullptr, 2, 0);
  };
  EXPECT_THROW(openhtp::threads::run_with_team(pool, task_throws), std::logic_error);
  // The pool works as before, plainly and in a new team.
  EXPECT_EQ(owners(pool, 2), (std::vector<int>{0, 1}));
  std::vector<int> again;
  auto body = [&] { again = owners(pool, 2); };
  openhtp::threads::run_with_team(pool, body);
  EXPECT_EQ(again, (std::vector<int>{0, 1}));
  destroy_pool(pool);
}

// Inside a team, another team or an OpenMP region of the caller's is not
// started: the body runs plainly, its loops still run every tile.
TEST(ThreadTeam, NoTeamInsideATeamOrARegion) {
  pthreadpool_t pool = create_pool(2);
  size_t inner_tiles = 0;
  auto inner = [&] {
    std::atomic<size_t> n{0};
    pthreadpool_parallelize_1d(pool, [](void* p, size_t) { ++*static_cast<std::atomic<size_t>*>(p); }, &n, 9, 0);
    inner_tiles += n.load();
  };
  auto outer = [&] { openhtp::threads::run_with_team(pool, inner); };
  openhtp::threads::run_with_team(pool, outer);
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    openhtp::threads::run_with_team(pool, inner);
  }
  EXPECT_EQ(inner_tiles, 18u);
  destroy_pool(pool);
}

// Unjoined shares (team.h UnjoinedShares): a loop left unjoined returns
// once the master's share ran, while the others still run theirs; each
// thread runs its shares in the order the loops were handed out, on the
// same thread number; a joined loop, join_team() or the team's end waits for
// them all. 20 loops outrun the team's ring of jobs (team.cpp kRing 8), so
// the master must also wait for slots to come free.
struct OrderCtx {
  int loop = 0;
  std::vector<std::vector<int>>* seen;  // [share]: the loops it ran, in order
};
TEST(ThreadTeam, UnjoinedLoopsRunInOrderOnEachThread) {
  for (size_t threads : {2, 3}) {
    pthreadpool_t pool = create_pool(threads);
    std::vector<std::vector<int>> seen(threads);
    std::vector<OrderCtx> ctx(20);
    const uint64_t unjoined_before = openhtp::threads::unjoined_dispatches();
    auto body = [&] {
      for (int loop = 0; loop < 20; ++loop) {
        ctx[loop] = {loop, &seen};  // its own context: it outlives the call
        std::optional<openhtp::threads::UnjoinedShares> unjoined;
        if (loop % 5 != 4) unjoined.emplace();  // loops 4, 9, 14, 19 join
        pthreadpool_parallelize_1d(
            pool,
            [](void* p, size_t i) {
              auto* c = static_cast<OrderCtx*>(p);
              (*c->seen)[i].push_back(c->loop);  // share i only: thread i only
            },
            &ctx[loop], threads, 0);
      }
    };
    openhtp::threads::run_with_team(pool, body);
    std::vector<int> all(20);
    std::iota(all.begin(), all.end(), 0);
    for (size_t t = 0; t < threads; ++t) EXPECT_EQ(seen[t], all) << "share " << t << " of " << threads;
    EXPECT_EQ(openhtp::threads::unjoined_dispatches() - unjoined_before, 16u);
    destroy_pool(pool);
  }
}

// An unjoined loop really returns before the other thread's share ends: the
// worker's share waits (up to 5 s) for a flag the master sets only after
// the call returned. Joined, the call could only return after the wait
// timed out.
TEST(ThreadTeam, AnUnjoinedLoopReturnsBeforeTheOtherShare) {
  pthreadpool_t pool = create_pool(2);
  struct Ctx {
    std::atomic<bool> go{false};
    std::atomic<bool> saw_go{false};
  } ctx;
  auto body = [&] {
    {
      const openhtp::threads::UnjoinedShares unjoined;
      pthreadpool_parallelize_1d(
          pool,
          [](void* p, size_t i) {
            auto* c = static_cast<Ctx*>(p);
            if (i == 0) return;
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            while (!c->go.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
            c->saw_go.store(c->go.load());
          },
          &ctx, 2, 0);
    }
    ctx.go.store(true);
    openhtp::threads::join_team();
  };
  openhtp::threads::run_with_team(pool, body);
  EXPECT_TRUE(ctx.saw_go.load());
  destroy_pool(pool);
}

// What an unjoined share throws reaches the master at the next join (here
// the next, joined, loop), and the team goes on working after it.
TEST(ThreadTeam, AnUnjoinedShareThrowsAtTheNextJoin) {
  pthreadpool_t pool = create_pool(2);
  bool caught = false;
  std::vector<int> after;
  auto body = [&] {
    {
      const openhtp::threads::UnjoinedShares unjoined;
      pthreadpool_parallelize_1d(
          pool,
          [](void*, size_t i) {
            if (i == 1) throw std::logic_error("unjoined share");
          },
          nullptr, 2, 0);
    }
    try {
      owners(pool, 2);
    } catch (const std::logic_error&) {
      caught = true;
    }
    after = owners(pool, 2);
  };
  openhtp::threads::run_with_team(pool, body);
  EXPECT_TRUE(caught);
  EXPECT_EQ(after, (std::vector<int>{0, 1}));
  destroy_pool(pool);
}

// Fenced shares (team.h FencedShares): a fenced loop's shares each start
// only after every share of the loop before, left unjoined, ended, so each
// reads what the other threads wrote there. The last thread's share of the
// loop before writes late (after 2 ms), so a share that did not wait would
// read the round before's value. The ints are plain so that TSan, run by
// hand on this test, reports a missing wait as a race on them too (among
// reports on libgomp's own hand-offs, which it cannot see: why CI's TSan
// stage leaves threads_test out).
TEST(ThreadTeam, AFencedLoopSeesEveryShareBeforeIt) {
  for (size_t threads : {2, 3}) {
    pthreadpool_t pool = create_pool(threads);
    struct Ctx {
      size_t threads = 0;
      int round = 0;
      std::vector<int> wrote;       // [share]: the round it last wrote
      std::vector<int> mismatches;  // [share of the fenced loop]
    } ctx;
    ctx.threads = threads;
    ctx.wrote.assign(threads, -1);
    ctx.mismatches.assign(threads, 0);
    const uint64_t fenced_before = openhtp::threads::fenced_dispatches();
    auto body = [&] {
      for (int round = 0; round < 10; ++round) {
        ctx.round = round;
        {
          const openhtp::threads::UnjoinedShares unjoined;
          pthreadpool_parallelize_1d(
              pool,
              [](void* p, size_t i) {
                auto* c = static_cast<Ctx*>(p);
                if (i + 1 == c->threads) std::this_thread::sleep_for(std::chrono::milliseconds(2));
                c->wrote[i] = c->round;
              },
              &ctx, threads, 0);
        }
        const openhtp::threads::FencedShares fenced(openhtp::threads::team_jobs());
        pthreadpool_parallelize_1d(
            pool,
            [](void* p, size_t i) {
              auto* c = static_cast<Ctx*>(p);
              for (size_t j = 0; j < c->threads; ++j) {
                if (j != i && c->wrote[j] != c->round) ++c->mismatches[i];
              }
            },
            &ctx, threads, 0);
      }
    };
    openhtp::threads::run_with_team(pool, body);
    for (size_t t = 0; t < threads; ++t) EXPECT_EQ(ctx.mismatches[t], 0) << "share " << t << " of " << threads;
    EXPECT_EQ(openhtp::threads::fenced_dispatches() - fenced_before, 10u);
    destroy_pool(pool);
  }
}

TEST(ThreadPoolCreate, ZeroThreadsMeansOnePerCpu) {
  pthreadpool_t pool = pthreadpool_create(0);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(pool), static_cast<size_t>(omp_get_num_procs()));
  pthreadpool_destroy(pool);
  pthreadpool_destroy(nullptr);  // like free(nullptr)
}

}  // namespace
