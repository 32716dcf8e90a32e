// bench_slab_weights: what a pointwise convolution's pixel slab costs when
// its weights are not in the core's own cache.
//
// Why: at two threads MobileNetV2 uint8's 7x7 pointwise convolutions take
// 16-18 us a slab in the graph against 23 us whole at one thread (ideal
// 11.5); the 320->1280 one 34-38 against 54 (docs/performance.md,
// "Session 26"). A pixel slab reads every weight of the layer, so two slabs
// read them twice, once on each core. This program takes the graph out of
// it: the int8 1x1 convolutions the kernels build for those layers
// (kernels/onednn_int8_convolution.cpp: u8 in, s8 weights, per-channel
// scales, a clip, a one-row image per slab; the source zero point left out),
// each slab on its own pinned CPU (the first two this process may use), alone and both at once, with the weights
//   hot   as the previous call left them,
//   L3    pushed out of L2 (the thread touches 4 MiB between calls),
//   DRAM  pushed out of the last-level cache too (48 MiB).
// Only the primitive's call is timed. If slabs cost half the whole when
// hot and much more when cold, what a two-thread graph loses on these
// layers is where their weights are, not the split.
//   bench_slab_weights [calls per round]   (default 300; 7 rounds, medians)
#include <dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "affinity.h"

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// One slab: `pixels` output pixels of a Cin -> Cout pointwise convolution,
// reading `src` and writing `dst` at the slab's pixels, weights shared.
struct Slab {
  dnnl::convolution_forward conv;
  dnnl::memory src, wei, dst, scratch;
  std::vector<uint8_t> scratch_bytes;

  Slab(int pixels, int cin, int cout, uint8_t* s, int8_t* w, uint8_t* d) {
    const dnnl::memory::desc src_md({1, cin, 1, pixels}, dt::u8, tag::nhwc);
    const dnnl::memory::desc dst_md({1, cout, 1, pixels}, dt::u8, tag::nhwc);
    const dnnl::memory::desc wei_md({cout, cin, 1, 1}, dt::s8, tag::any);
    dnnl::primitive_attr attr;
    attr.set_output_scales(2, std::vector<float>(static_cast<size_t>(cout), 0.01f));
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f);
    attr.set_post_ops(ops);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                        src_md, wei_md, dst_md, {1, 1}, {0, 0}, {0, 0}),
        attr, engine());
    conv = dnnl::convolution_forward(pd);
    src = dnnl::memory(src_md, engine(), s);
    wei = dnnl::memory(pd.weights_desc(), engine(), w);
    dst = dnnl::memory(dst_md, engine(), d);
    scratch_bytes.resize(pd.scratchpad_desc().get_size() + 64);
    scratch = dnnl::memory(pd.scratchpad_desc(), engine(), scratch_bytes.data());
  }
  void run(dnnl::stream& s) {
    conv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}, {DNNL_ARG_SCRATCHPAD, scratch}});
  }
};

// Bytes a thread touches between calls (its own, so the two threads do not
// share lines): 0, past L2, past the last-level cache.
struct Eviction {
  const char* name;
  size_t bytes;
};
constexpr Eviction kEvictions[] = {{"hot", 0}, {"L3", size_t{4} << 20}, {"DRAM", size_t{48} << 20}};

std::atomic<uint64_t> g_sink{0};

// Median over 7 rounds of the mean time of one call, us.
double time_slab(Slab& slab, int cpu, size_t evict_bytes, int calls, std::atomic<int>* start) {
  const bench::ScopedPin pinned({0}, cpu);  // the calling thread, for this measurement
  dnnl::stream stream(engine());
  std::vector<uint8_t> junk(evict_bytes + 64, 1);
  while (start->load(std::memory_order_acquire) == 0) {
  }
  std::vector<double> rounds;
  for (int r = 0; r < 7; ++r) {
    double us = 0;
    for (int i = 0; i < calls; ++i) {
      uint64_t sum = 0;
      for (size_t j = 0; j < evict_bytes; j += 64) sum += ++junk[j];
      g_sink.fetch_add(sum, std::memory_order_relaxed);
      const auto t0 = std::chrono::steady_clock::now();
      slab.run(stream);
      us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    rounds.push_back(us / calls);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[3];
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::max(10, std::atoi(argv[1])) : 300;
  const int cpu0 = bench::allowed_cpu(0), cpu1 = bench::allowed_cpu(1);
  if (cpu0 < 0 || cpu1 < 0) {
    std::printf("bench_slab_weights skipped: it needs two CPUs to pin its slabs to\n");
    return 0;
  }
  omp_set_num_threads(1);  // one-thread primitives, as the slab kernels plan them
  struct Layer {
    int cin, cout;
  };
  const Layer layers[] = {{160, 960}, {960, 160}, {320, 1280}};
  constexpr int kPixels = 49, kHalf = 24;  // a 7x7 map, split 24 + 25 (onednn_slabs.h)
  std::printf("7x7 int8 pointwise convolutions: us a call, medians of 7 rounds of %d calls\n", calls);
  std::printf("  slab 0 on CPU %d, slab 1 on CPU %d; the whole on CPU %d\n", cpu0, cpu1, cpu0);
  std::printf("  %-10s %-6s %8s %10s %10s %14s %14s\n", "layer", "wts", "whole", "slab 0", "slab 1", "both: slab 0",
              "both: slab 1");
  for (const Layer& l : layers) {
    std::vector<uint8_t> src(size_t{kPixels} * l.cin, 3), dst(size_t{kPixels} * l.cout);
    std::vector<int8_t> weights(static_cast<size_t>(l.cin) * l.cout * 2 + 4096, 1);  // room for any blocked layout
    Slab whole(kPixels, l.cin, l.cout, src.data(), weights.data(), dst.data());
    Slab first(kHalf, l.cin, l.cout, src.data(), weights.data(), dst.data());
    Slab second(kPixels - kHalf, l.cin, l.cout, src.data() + size_t{kHalf} * l.cin, weights.data(),
                dst.data() + size_t{kHalf} * l.cout);
    for (const Eviction& e : kEvictions) {
      std::atomic<int> go{1};
      const double w = time_slab(whole, cpu0, e.bytes, calls, &go);
      const double s0 = time_slab(first, cpu0, e.bytes, calls, &go);
      const double s1 = time_slab(second, cpu1, e.bytes, calls, &go);
      double b0 = 0, b1 = 0;
      std::atomic<int> both{0};
      std::thread a([&] { b0 = time_slab(first, cpu0, e.bytes, calls, &both); });
      std::thread b([&] { b1 = time_slab(second, cpu1, e.bytes, calls, &both); });
      both.store(1, std::memory_order_release);
      a.join();
      b.join();
      std::printf("  %4d->%-4d %-6s %8.2f %10.2f %10.2f %14.2f %14.2f\n", l.cin, l.cout, e.name, w, s0, s1, b0, b1);
    }
  }
  return g_sink.load() == 42 ? 1 : 0;  // keeps the eviction passes
}
