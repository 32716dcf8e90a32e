// bench_gemm_peak: this machine's fp32 GEMM rate, the yardstick for what the
// model benchmarks achieve: oneDNN's dnnl_sgemm (Debian libdnnl-dev, the
// library openhtp's fp32 conv/FC/MatMul fast paths run on) on large square
// row-major matrices, C = A * B, at each thread count (omp_set_num_threads:
// oneDNN's CPU runtime is OpenMP here).
//
//   bench_gemm_peak [--n 2048] [--runs 7] [--warmup 2] [--threads 1,2] [--json out.json]
//   bench_gemm_peak --serve [--n 2048] [--threads 1]
//     one more engine of bench_onnx_models (its --gemm-peak), in a process of
//     its own so that its OpenMP pool is its own: it answers "ready", then
//     each "run" line on stdin is one dnnl_sgemm, answered "ms <milliseconds>";
//     "output <path>" answers "ok" (there is nothing to compare); "quit" or
//     end of input exits. The GEMM rate is then measured taking turns with the
//     models, under the same load.
//
// The thread counts take turns run by run (a burst of load from other
// processes hits all of them alike); per thread count it prints the median and
// the best run in GFLOP/s (2 n^3 flops a run). The best run is the peak the
// machine can give at that moment; the median is what it gave typically.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "oneapi/dnnl/dnnl.h"

int main(int argc, char **argv) {
  long n = 2048;
  int runs = 7, warmup = 2;
  std::vector<int> threads = {1, 2};
  std::string json;
  bool serve = false;
  bool usage = false;
  for (int i = 1; i < argc && !usage; ++i) {
    const std::string a = argv[i];
    if (a == "--serve") {
      serve = true;
      continue;
    }
    if (i + 1 >= argc) {
      usage = true;
      break;
    }
    const std::string v = argv[++i];
    if (a == "--n") {
      n = std::max(64L, std::atol(v.c_str()));
    } else if (a == "--runs") {
      runs = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--warmup") {
      warmup = std::max(0, std::atoi(v.c_str()));
    } else if (a == "--json") {
      json = v;
    } else if (a == "--threads") {
      threads.clear();
      std::stringstream s(v);
      for (std::string t; std::getline(s, t, ',');) threads.push_back(std::max(1, std::atoi(t.c_str())));
      usage = threads.empty();
    } else {
      usage = true;
    }
  }
  if (usage) {
    std::fprintf(stderr,
                 "usage: %s [--n 2048] [--runs 7] [--warmup 2] [--threads 1,2] [--json out.json]\n"
                 "       %s --serve [--n 2048] [--threads 1]\n",
                 argv[0], argv[0]);
    return 2;
  }
  std::vector<float> a(n * n), b(n * n), c(n * n);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (float &x : a) x = u(rng);
  for (float &x : b) x = u(rng);
  const double flops = 2.0 * n * n * n;
  auto sgemm = [&]() {
    return dnnl_sgemm('N', 'N', n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n) == dnnl_success;
  };
  if (serve) {
    omp_set_num_threads(threads.front());
    // A fresh process's first ~8 dnnl_sgemm calls here ran 1.5-1.6x slower
    // than the rest (1024^3: 16 ms, then 10.5, at one thread; 9 then 5.6 at
    // two), by call count, not by time; the models' warm-up is 3 runs, so
    // the serving process warms up on its own before it says ready.
    for (int i = 0; i < 12; ++i) sgemm();
    std::printf("ready\n");
    std::fflush(stdout);
    for (std::string line; std::getline(std::cin, line);) {
      if (line == "run") {
        const auto t0 = std::chrono::steady_clock::now();
        if (!sgemm()) {
          std::printf("error dnnl_sgemm failed\n");
        } else {
          std::printf("ms %.6f\n",
                      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
      } else if (line.rfind("output ", 0) == 0) {
        std::printf("ok\n");
      } else if (line == "quit") {
        break;
      } else {
        std::printf("error unknown command\n");
      }
      std::fflush(stdout);
    }
    return 0;
  }
  std::vector<std::vector<double>> gflops(threads.size());
  for (int r = -warmup; r < runs; ++r) {
    for (size_t ti = 0; ti < threads.size(); ++ti) {
      omp_set_num_threads(threads[ti]);
      const auto t0 = std::chrono::steady_clock::now();
      if (!sgemm()) {
        std::fprintf(stderr, "dnnl_sgemm failed\n");
        return 1;
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r >= 0) gflops[ti].push_back(flops / s / 1e9);
    }
  }
  std::printf("bench_gemm_peak: dnnl_sgemm %ldx%ldx%ld fp32, %d runs after %d warm-up, thread counts interleaved\n",
              n, n, n, runs, warmup);
  std::ofstream j;
  if (!json.empty()) j.open(json), j << "{\"n\": " << n << ", \"runs\": " << runs << ", \"peaks\": [";
  for (size_t ti = 0; ti < threads.size(); ++ti) {
    std::vector<double> v = gflops[ti];
    std::sort(v.begin(), v.end());
    const double med = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    std::printf("  %d thread%s: median %.1f GFLOP/s, best %.1f, worst %.1f\n", threads[ti], threads[ti] > 1 ? "s" : "",
                med, v.back(), v.front());
    if (j.is_open())
      j << (ti ? ", " : "") << "{\"threads\": " << threads[ti] << ", \"median_gflops\": " << med
        << ", \"best_gflops\": " << v.back() << ", \"worst_gflops\": " << v.front() << "}";
  }
  if (j.is_open()) j << "]}\n";
  return 0;
}
