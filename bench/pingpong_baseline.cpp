// Baseline: the raw shm+futex round trip between two processes
// (raw_pingpong.h), as Google Benchmarks in several placements, so that
// "remote call / ping-pong" isolates what the call protocol, the QNN layer
// and the skel add to the bare wake-up cost.
#include <optional>
#include <vector>

#include <benchmark/benchmark.h>

#include "affinity.h"
#include "bench_registry.h"
#include "bench_stats.h"
#include "raw_pingpong.h"

namespace bench {
namespace {

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

void BM_RawPingPong(benchmark::State& state, Variant variant) {
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
  RawPingPong pair({variant.spins, variant.placement == Placement::kCpusApart ? cpu1 : -1, variant.reply_delay_us});
  if (!pair.ok()) {
    state.SkipWithError(pair.error().c_str());
    return;
  }
  pair.warm_up();

  Samples ns(state.max_iterations);
  for (auto _ : state) {
    const double dt = pair.timed_round_trip();
    state.SetIterationTime(dt * 1e-9);
    ns.add(dt);
  }

  state.counters["spins"] = static_cast<double>(pair.spins());
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
