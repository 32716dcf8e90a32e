// The FastRPC layer alone: one remote_handle64_invoke of the HTP skel's
// cheapest method (kQuery: no inputs, two small outputs), with no QNN API
// around it. It sits between the raw ping-pong and a tiny graphExecute, so
// the three together split a round trip into wake-up cost, call protocol
// (libcdsprpc + the DSP process's dispatch), and QNN client + skel execute.
#include <chrono>
#include <cstdio>

#include <benchmark/benchmark.h>

#include "bench_registry.h"
#include "bench_stats.h"
#include "ipc/htp_protocol.h"
#include "remote.h"

namespace bench {
namespace {

remote_handle64 g_handle = 0;
bool g_open_failed = false;

void BM_FastRpcInvoke(benchmark::State& state) {
  if (g_handle == 0 && !g_open_failed) {
    int rc = remote_handle64_open(openhtp::ipc::htp_wire::kSkelUri, &g_handle);
    if (rc != 0) {
      std::fprintf(stderr, "bench: remote_handle64_open(%s) failed: %d\n", openhtp::ipc::htp_wire::kSkelUri, rc);
      g_open_failed = true;
      g_handle = 0;
    }
  }
  if (g_handle == 0) {
    state.SkipWithError("remote_handle64_open of the HTP skel failed");
    return;
  }
  openhtp::ipc::htp_wire::QueryResp resp{};
  openhtp::ipc::htp_wire::WireStatus status{};
  remote_arg args[2];
  args[0].buf = {&resp, sizeof resp};
  args[1].buf = {&status, sizeof status};
  const uint32_t sc = REMOTE_SCALARS_MAKEX(0, openhtp::ipc::htp_wire::kQuery, 0, 2, 0, 0);
  for (int i = 0; i < 100; ++i) remote_handle64_invoke(g_handle, sc, args);  // warm-up
  Samples ns(state.max_iterations);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = remote_handle64_invoke(g_handle, sc, args);
    const auto t1 = std::chrono::steady_clock::now();
    if (rc != 0) {
      state.SkipWithError("remote_handle64_invoke failed");
      break;
    }
    const double dt = std::chrono::duration<double, std::nano>(t1 - t0).count();
    state.SetIterationTime(dt * 1e-9);
    ns.add(dt);
  }
  if (!ns.empty()) state.counters["p50_ns"] = ns.median();
}

}  // namespace

void register_fastrpc_invoke_benchmark() {
  with_min(benchmark::RegisterBenchmark("BM_FastRpcInvoke/query", BM_FastRpcInvoke))
      ->UseManualTime()
      ->Unit(benchmark::kNanosecond);
}

void teardown_fastrpc_invoke_benchmark() {
  if (g_handle != 0) remote_handle64_close(g_handle);
  g_handle = 0;
}

}  // namespace bench
