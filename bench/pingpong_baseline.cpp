// Baseline: the fastest round trip two processes can make here through shared
// memory + futex, with no protocol on top. It uses the very primitive the
// FastRPC channel uses (ipc/futex_word.h: spin, then FUTEX_WAIT on a shared
// word), so "remote call / ping-pong" isolates what the call protocol, the
// QNN layer and the skel add to the bare wake-up cost.
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <new>
#include <optional>
#include <vector>

#include <benchmark/benchmark.h>

#include "affinity.h"
#include "bench_registry.h"
#include "bench_stats.h"
#include "ipc/futex_word.h"

namespace bench {
namespace {

using openhtp::ipc::FutexWord;

struct PingPongPage {
  alignas(64) FutexWord ping;  // the parent posts sequence numbers here
  alignas(64) FutexWord pong;  // the child echoes them back here
  alignas(64) std::atomic<uint32_t> stop{0};
};

struct Variant {
  const char* name;
  // -1 = the channel's own default (the baseline); 0 = always sleep in
  // FUTEX_WAIT, the cost a caller pays whenever the other side is not caught
  // spinning.
  int64_t spins;
  // kSameCpu: what waiting costs when the peer has no core of its own;
  // kCpusApart: the best placement, for a ratio free of scheduling luck.
  Placement placement;
  // The child keeps its CPU busy this long before answering, like a DSP
  // running a large kernel: the waiter outlasts its spin and sleeps, so the
  // round trip minus the delay is the bare cost of a sleeping caller's
  // wake-up — the floor for a large execute's overhead.
  int reply_delay_us;
};

// The child: echo every ping. Only futex syscalls, atomics and the vDSO
// clock, so it is safe after fork() even if the parent had threads.
[[noreturn]] void echo_loop(PingPongPage* page, int64_t spins, int reply_delay_us) {
  uint32_t seen = 0;
  for (;;) {
    uint32_t v = openhtp::ipc::futex_wait_change(page->ping, seen, spins, 0);
    if (page->stop.load(std::memory_order_acquire) != 0) _exit(0);
    if (v == seen) continue;
    seen = v;
    if (reply_delay_us > 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(reply_delay_us);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    openhtp::ipc::futex_publish(page->pong, v);
  }
}

void BM_RawPingPong(benchmark::State& state, Variant variant) {
  int64_t spins = variant.spins;
  if (spins < 0) spins = openhtp::ipc::default_spin_ns();  // resolved before fork
  // The parent pins itself before the fork (the child inherits that) and is
  // restored when `pin` goes out of scope, after the child is gone; for
  // kCpusApart the child then moves itself to the second CPU.
  const int cpu0 = allowed_cpu(0), cpu1 = allowed_cpu(1);
  std::optional<ScopedPin> pin;
  if (variant.placement != Placement::kFree) {
    if (cpu1 < 0) {
      state.SkipWithError("needs two CPUs");
      return;
    }
    pin.emplace(std::vector<pid_t>{0}, cpu0);
    if (!pin->ok()) {
      state.SkipWithError("cannot pin this thread");
      return;
    }
  }
  // A fresh anonymous shared page: inherited by the child at the same address.
  void* mem = mmap(nullptr, sizeof(PingPongPage), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    state.SkipWithError("mmap of the shared page failed");
    return;
  }
  auto* page = new (mem) PingPongPage;
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    munmap(mem, sizeof(PingPongPage));
    state.SkipWithError("fork failed");
    return;
  }
  if (child == 0) {
    // Never outlive the bench, whatever happens to it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    if (variant.placement == Placement::kCpusApart) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu1, &one);
      if (sched_setaffinity(0, sizeof one, &one) != 0) _exit(1);
    }
    echo_loop(page, spins, variant.reply_delay_us);
  }

  uint32_t seq = 0;
  auto round_trip = [&] {
    openhtp::ipc::futex_publish(page->ping, ++seq);
    while (openhtp::ipc::futex_wait_change(page->pong, seq - 1, spins, 0) != seq) {
    }
  };
  // Warm up: the child has to be scheduled and fault the page in once.
  // Bounded in time too, since a co-located spinning pair needs ~1 ms a trip.
  const auto warm_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  for (int i = 0; i < 1000 && std::chrono::steady_clock::now() < warm_end; ++i) round_trip();

  // Timed per round trip, exactly like each graphExecute in execute_bench.cpp,
  // so both carry the same clock-read cost and their ratio is fair.
  Samples ns(state.max_iterations);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    round_trip();
    const auto t1 = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double, std::nano>(t1 - t0).count();
    state.SetIterationTime(dt * 1e-9);
    ns.add(dt);
  }

  page->stop.store(1, std::memory_order_release);
  openhtp::ipc::futex_publish(page->ping, ++seq);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  munmap(mem, sizeof(PingPongPage));
  state.counters["spins"] = spins;
  const double p50 = ns.median();
  state.counters["p50_ns"] = p50;
  if (variant.reply_delay_us > 0) state.counters["p50_overhead_ns"] = p50 - variant.reply_delay_us * 1e3;
}

}  // namespace

void register_pingpong_baseline() {
  using P = Placement;
  for (const Variant& v : {Variant{"BM_RawPingPong", -1, P::kFree, 0}, Variant{"BM_RawPingPong/no_spin", 0, P::kFree, 0},
                           Variant{"BM_RawPingPong/reply_after_1500us", -1, P::kFree, 1500},
                           Variant{"BM_RawPingPong/cpus_apart", -1, P::kCpusApart, 0},
                           Variant{"BM_RawPingPong/same_cpu", -1, P::kSameCpu, 0},
                           Variant{"BM_RawPingPong/no_spin/same_cpu", 0, P::kSameCpu, 0}}) {
    with_min(benchmark::RegisterBenchmark(v.name, BM_RawPingPong, v))
        ->UseManualTime()
        ->Unit(benchmark::kNanosecond);
  }
}

}  // namespace bench
