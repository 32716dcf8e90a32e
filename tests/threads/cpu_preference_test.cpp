// threads::CpuPreference: the decision on plain values (each rule broken
// once), and the move itself on this machine's CPUs.
#include "threads/cpu_preference.h"

#include "common/cpu_mask.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <chrono>
#include <vector>

namespace openhtp::threads {
namespace {

constexpr uint64_t kMs = 1'000'000;
const std::vector<int> kTwo{0, 1};
constexpr int kCpus = 4;  // the decision tests' CPU numbers, whatever this machine has

// Feeds `n` back-to-back executes of `ns` each on `cpu`, from *clock on
// (the first only when the policy has seen an execute before: the very
// first is never a sample).
void run_on(CpuPreference& p, int cpu, uint64_t ns, uint64_t* clock, int n = 3) {
  for (int i = 0; i < n; ++i) {
    p.record(cpu, cpu, *clock, *clock + ns);
    *clock += ns + 10'000;  // 10 us between executes: no idle
  }
}

TEST(CpuPreference, StaysWhereItHasNoSampleYet) {
  CpuPreference p({}, kCpus);
  EXPECT_EQ(p.choose(0, 5 * kMs, kTwo), -1);
  uint64_t clock = kMs;
  p.record(0, 0, clock, clock + 4 * kMs);  // the first execute: cold, no sample
  EXPECT_EQ(p.estimate(0), 0u);
}

TEST(CpuPreference, MovesToTheFasterCpu) {
  CpuPreference p({}, kCpus);
  uint64_t clock = kMs;
  run_on(p, 0, 5 * kMs, &clock, 4);
  run_on(p, 1, 4 * kMs, &clock);
  EXPECT_EQ(p.estimate(0), 5 * kMs);
  EXPECT_EQ(p.estimate(1), 4 * kMs);
  EXPECT_EQ(p.choose(0, clock, kTwo), 1);
  EXPECT_EQ(p.choose(1, clock, kTwo), -1);
  // Only among the CPUs the thread may run on.
  EXPECT_EQ(p.choose(0, clock, std::vector<int>{0}), -1);
}

TEST(CpuPreference, KeepsAMovingAverage) {
  CpuPreference p({}, kCpus);
  uint64_t clock = kMs;
  run_on(p, 0, 4 * kMs, &clock, 2);
  run_on(p, 0, 8 * kMs, &clock, 1);
  EXPECT_EQ(p.estimate(0), 5 * kMs);  // (3 * 4 + 8) / 4
}

TEST(CpuPreference, DoesNotMoveForNoise) {
  {
    CpuPreference p({}, kCpus);  // 4 % apart: under min_gain_fraction
    uint64_t clock = kMs;
    run_on(p, 0, 5 * kMs, &clock, 4);
    run_on(p, 1, 4800 * 1000, &clock);
    EXPECT_EQ(p.choose(0, clock, kTwo), -1);
  }
  {
    CpuPreference p({}, kCpus);  // 20 % apart, but 100 us: under min_gain_ns, less than a move costs
    uint64_t clock = kMs;
    run_on(p, 0, 500'000, &clock, 4);
    run_on(p, 1, 400'000, &clock);
    EXPECT_EQ(p.choose(0, clock, kTwo), -1);
  }
}

TEST(CpuPreference, TriesAnotherCpuOncePerPeriod) {
  CpuPreferenceTuning t;
  CpuPreference p(t, kCpus);
  uint64_t clock = kMs;
  run_on(p, 0, 2 * kMs, &clock, 4);
  EXPECT_EQ(p.choose(0, clock, kTwo), 1);
  EXPECT_EQ(p.explorations(), 1u);
  EXPECT_EQ(p.choose(0, clock + kMs, kTwo), -1);  // within the period
  // The period later, still nothing known of CPU 1 (that try was bounced,
  // say): try it again. The first execute after the pause is no sample, but
  // CPU 0's average is still current.
  clock += t.explore_period_ns;
  run_on(p, 0, 2 * kMs, &clock, 1);
  EXPECT_EQ(p.choose(0, clock, kTwo), 1);
  EXPECT_EQ(p.explorations(), 2u);
}

TEST(CpuPreference, DoesNotTryAnotherCpuForShortGraphs) {
  CpuPreference p({}, kCpus);
  uint64_t clock = kMs;
  run_on(p, 0, 500'000, &clock, 4);  // under explore_min_ns
  EXPECT_EQ(p.choose(0, clock, kTwo), -1);
}

TEST(CpuPreference, DoesNotTryAnotherCpuRightAfterIdle) {
  CpuPreferenceTuning t;
  CpuPreference p(t, kCpus);
  uint64_t clock = kMs;
  run_on(p, 0, 2 * kMs, &clock, 4);
  // That execute would be no sample: trying CPU 1 on it would learn nothing.
  EXPECT_EQ(p.choose(0, clock + t.idle_gap_ns + kMs, kTwo), -1);
  EXPECT_EQ(p.choose(0, clock, kTwo), 1);
}

TEST(CpuPreference, AnExecuteAfterIdleIsNoSample) {
  CpuPreferenceTuning t;
  CpuPreference p(t, kCpus);
  uint64_t clock = kMs;
  run_on(p, 0, 4 * kMs, &clock, 2);
  clock += t.idle_gap_ns + kMs;
  p.record(0, 0, clock, clock + 9 * kMs);
  EXPECT_EQ(p.estimate(0), 4 * kMs);
}

TEST(CpuPreference, ExecutesThatAllComeAfterIdleAreSamples) {
  CpuPreferenceTuning t;
  CpuPreference p(t, kCpus);
  // One execute a frame, each after more than the idle gap: the first is
  // no sample (nothing before it), the second neither (the first after a
  // change to idle, as far as it knows), from the third on they all count.
  uint64_t clock = kMs;
  const uint64_t frame = t.idle_gap_ns + 10 * kMs;
  for (int i = 0; i < 2; ++i, clock += frame) p.record(0, 0, clock, clock + 4 * kMs);
  EXPECT_EQ(p.estimate(0), 0u);
  for (int i = 0; i < 2; ++i, clock += frame) p.record(0, 0, clock, clock + 4 * kMs);
  EXPECT_EQ(p.estimate(0), 4 * kMs);
  // And another CPU is tried on such an execute too.
  EXPECT_EQ(p.choose(0, clock, kTwo), 1);
}

TEST(CpuPreference, AMigratedOrPausedExecuteIsNoSample) {
  CpuPreference p({}, kCpus);
  uint64_t clock = kMs;
  run_on(p, 0, 4 * kMs, &clock, 2);
  p.record(0, 1, clock, clock + 9 * kMs);  // the kernel moved it mid-execute
  clock += 9 * kMs + 10'000;
  p.record(0, 0, clock, clock + 9 * kMs, /*yielded=*/true);
  EXPECT_EQ(p.estimate(0), 4 * kMs);
  EXPECT_EQ(p.estimate(1), 0u);
}

TEST(CpuPreference, AStaleAverageIsNotMovedTo) {
  CpuPreferenceTuning t;
  CpuPreference p(t, kCpus);
  uint64_t clock = kMs;
  run_on(p, 1, 3 * kMs, &clock, 3);
  clock += t.stale_ns;  // CPU 1's average is now too old to go by
  run_on(p, 0, 5 * kMs, &clock, 1);
  run_on(p, 0, 5 * kMs, &clock, 2);
  // Not a move to the old 3 ms: a try (exploration), which measures it again.
  EXPECT_EQ(p.choose(0, clock, kTwo), 1);
  EXPECT_EQ(p.explorations(), 1u);
  // And a stale average starts over from the new sample.
  run_on(p, 1, 6 * kMs, &clock, 1);
  EXPECT_EQ(p.estimate(1), 6 * kMs);
  EXPECT_EQ(p.choose(1, clock, kTwo), 0);
}

TEST(CpuPreference, BacksOffWhenTheKernelTakesTheThreadBack) {
  CpuPreferenceTuning t;
  CpuPreference p(t, kCpus);
  uint64_t clock = kMs;
  run_on(p, 0, 5 * kMs, &clock, 4);
  run_on(p, 1, 4 * kMs, &clock);
  ASSERT_EQ(p.choose(0, clock, kTwo), 1);
  p.moved(1);
  p.record(1, 0, clock, clock + 5 * kMs);  // ended back on CPU 0: CPU 1 was busy
  clock += 5 * kMs;
  EXPECT_EQ(p.choose(0, clock, kTwo), -1);
  // Before the back-off ends, no move, however current the averages.
  const uint64_t end_of_first = clock + t.backoff_ns;
  run_on(p, 1, 4 * kMs, &clock, 1);
  run_on(p, 0, 5 * kMs, &clock, 1);
  EXPECT_EQ(p.choose(0, clock, kTwo), -1);
  // After it: moves again; a second bounce in a row backs off twice as long.
  clock = end_of_first + kMs;
  run_on(p, 1, 4 * kMs, &clock, 2);  // the first after the pause is no sample
  run_on(p, 0, 5 * kMs, &clock, 1);
  ASSERT_EQ(p.choose(0, clock, kTwo), 1);
  p.moved(1);
  p.record(1, 0, clock, clock + 5 * kMs);
  clock += 5 * kMs;
  const uint64_t bounced = clock;
  clock = bounced + t.backoff_ns + kMs;
  run_on(p, 1, 4 * kMs, &clock, 2);
  run_on(p, 0, 5 * kMs, &clock, 1);
  EXPECT_EQ(p.choose(0, clock, kTwo), -1);
  clock = bounced + 2 * t.backoff_ns + kMs;
  run_on(p, 1, 4 * kMs, &clock, 2);
  run_on(p, 0, 5 * kMs, &clock, 1);
  EXPECT_EQ(p.choose(0, clock, kTwo), 1);
  // A move that holds clears the count.
  p.moved(1);
  p.record(1, 1, clock, clock + 4 * kMs);
  clock += 4 * kMs + 10'000;
  run_on(p, 0, 5 * kMs, &clock, 1);
  EXPECT_EQ(p.choose(0, clock, kTwo), 1);
}

TEST(CpuPreference, ACpuBeyondWhatItWasSizedForIsIgnored) {
  CpuPreference p({}, 2);
  uint64_t clock = kMs;
  run_on(p, 5, 4 * kMs, &clock);
  EXPECT_EQ(p.estimate(5), 0u);
  EXPECT_EQ(p.choose(5, clock, std::vector<int>{0, 1, 5}), -1);
}

TEST(CpuPreference, MovesTheCallingThreadAndKeepsItsMask) {
  const std::vector<int> cpus = calling_thread_cpus();
  ASSERT_FALSE(cpus.empty());
  // Onto each allowed CPU in turn (on a one-CPU machine, the one it is on).
  for (int round = 0; round < 2; ++round) {
    for (int cpu : cpus) {
      ASSERT_TRUE(move_calling_thread_to(cpu));
      EXPECT_EQ(sched_getcpu(), cpu);
      EXPECT_EQ(calling_thread_cpus(), cpus) << "the thread must not be left pinned";
    }
  }
  // A CPU outside the mask: refused, nothing changed. The mask is narrowed
  // to its first CPU, so the next CPU number is outside it on any machine.
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus[0], &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_FALSE(move_calling_thread_to(cpus[0] + 1));
  EXPECT_EQ(sched_getcpu(), cpus[0]);
  EXPECT_EQ(calling_thread_cpus(), std::vector<int>{cpus[0]});
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c : cpus) CPU_SET(c, &all);
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  EXPECT_FALSE(move_calling_thread_to(-1));
  EXPECT_FALSE(move_calling_thread_to(CPU_SETSIZE));
}

TEST(CpuPreference, TheProbeTimesTheExecutingThread) {
  CpuPreference p;  // this machine's CPUs
  // Spins ~2 ms between begin and end; the kernel may move the thread
  // meanwhile (then that execute is no sample), so a few tries.
  auto spin = [] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  int sampled_on = -1;
  for (int i = 0; i < 50 && sampled_on < 0; ++i) {
    const CpuPreference::Probe probe = p.begin();
    ASSERT_TRUE(probe.active);
    spin();
    p.end(probe, false);
    for (int c : calling_thread_cpus()) {
      if (p.estimate(c) != 0) sampled_on = c;
    }
  }
  ASSERT_GE(sampled_on, 0);
  // The spin is timed on steady_clock and the probe on the execute path's
  // clock, whose rate is calibrated against it to ~10 ppm: a clean-clone
  // CI read 1999974 ns for this spin. What is checked is that the probe
  // timed the execute, not another span.
  EXPECT_GE(p.estimate(sampled_on), 2 * kMs * 99 / 100);
  EXPECT_LT(p.estimate(sampled_on), 200 * kMs);
}

}  // namespace
}  // namespace openhtp::threads
