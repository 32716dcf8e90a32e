// bench_execute's entry point: registers the benchmarks in a fixed order
// (baselines first, then the FastRPC layer, then graphExecute) rather than in
// static-initialisation order, and tears the QNN objects down explicitly
// before exit so no library is used after its statics are gone.
#include <benchmark/benchmark.h>

#include "bench_registry.h"
#include "qnn_session.h"

int main(int argc, char** argv) {
  bench::register_pingpong_baseline();
  bench::register_memcpy_baseline();
  bench::register_fastrpc_invoke_benchmark();
  bench::register_execute_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  bench::teardown_execute_benchmarks();
  bench::teardown_fastrpc_invoke_benchmark();
  bench::QnnSession::teardown_all();
  return 0;
}
