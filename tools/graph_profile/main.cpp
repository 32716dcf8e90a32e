// openhtp-graph-profile: where a graph's time goes, node by node.
//
//   openhtp-graph-profile --binary model.bin [--iterations N] [--threads N] [--kernels fast|reference|-LIB,...]
//
// Loads a context binary, prepares each graph in this process exactly as the
// DSP side does (same runtime, same fast paths unless --kernels selects
// others: reference, or -LIB,... to leave libraries out), feeds it
// fixed pseudo-random inputs, runs it N times and prints, per node, which
// kernel ran it (xnnpack / onednn / reference, "via type adapter" when the
// node's types were converted around a float kernel) and its share of the
// time; on several threads, each thread's part of each node (t0: the
// executing thread), so an uneven split shows. It is the tool for "why is
// this model slow": a node on the reference path or behind the adapter
// shows up at once.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "binary/context_codec.h"
#include "common/openmp_places.h"
#include "common/openmp_policy.h"
#include "htp/device_spec.h"
#include "htp/prepared_graph.h"
#include "kernels/fast_paths.h"
#include "common/command_line.h"
#include "common/file_bytes.h"

namespace {

using namespace openhtp;

constexpr const char* kUsage =
    "usage: openhtp-graph-profile --binary <context binary> [--iterations N] [--threads N] [--kernels fast|reference|-LIB,...]\n";

constexpr const char* kTool = "openhtp-graph-profile";

// Every failure is one line "openhtp-graph-profile: error: <cause>", like
// the other tools'.
void error_line(const std::string& message) { std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str()); }

int profile_graph(htp::GraphSpec spec, int iterations, std::span<const ops::FastPath> fast_paths) {
  const std::string name = spec.name;
  htp::PlanOptions plan;
  plan.fast_paths = fast_paths;
  htp::GraphError err;
  std::string message;
  auto g = htp::PreparedGraph::create(std::move(spec), plan, &err, &message);
  if (!g) {
    error_line("graph '" + name + "': " + message);
    return 1;
  }
  // Inputs: fixed pseudo-random bytes (a quantized graph reads them as
  // codes, a float graph as small values); outputs: buffers of their size.
  std::mt19937 rng(1);
  std::vector<std::vector<uint8_t>> storage;
  std::vector<htp::TensorBinding> ins, outs;
  for (uint32_t id : g->input_ids()) {
    const htp::TensorSpec* t = g->spec().find_tensor(id);
    std::vector<uint8_t> bytes(t->num_bytes());
    if (t->dtype == ops::dtype::kFloat32) {
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
        const float v = d(rng);
        std::memcpy(&bytes[i], &v, 4);
      }
    } else {
      for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    }
    storage.push_back(std::move(bytes));
    ins.push_back({id, storage.back().data(), storage.back().size()});
  }
  for (uint32_t id : g->output_ids()) {
    storage.emplace_back(g->spec().find_tensor(id)->num_bytes());
    outs.push_back({id, storage.back().data(), storage.back().size()});
  }
  if (g->execute(ins, outs, &message) != htp::GraphError::kNone) {  // warm-up, not profiled
    error_line("graph '" + name + "': " + message);
    return 1;
  }
  // The graph's time without the per-node clocks first (what a client sees),
  // then the profiled runs whose per-node figures are printed.
  auto timed_ms = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) g->execute(ins, outs, &message);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / iterations;
  };
  const double plain_ms = timed_ms();
  g->set_node_profiling(true);
  const double total_ms = timed_ms();

  auto nodes = g->node_profile();
  uint64_t sum_ns = 0;
  for (const auto& n : nodes) sum_ns += n.total_ns;
  std::printf("graph '%s': %zu nodes, %zu threads, %.3f ms per execute (mean of %d; %.3f with the per-node clocks)\n",
              name.c_str(), nodes.size(), g->num_threads(), plain_ms, iterations, total_ms);
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  // On several threads, each thread's part of each node too (what it spent
  // running its shares; threads/share_times.h), so an uneven split shows.
  const size_t threads = g->num_threads() > 1 ? g->num_threads() : 0;
  std::printf("  %7s %6s ", "ms", "share");
  for (size_t t = 0; t < threads; ++t) std::printf(" %6s", ("t" + std::to_string(t)).c_str());
  std::printf("  %-24s %-28s %s\n", "type", "kernel", "node");
  for (const auto& n : nodes) {
    const double runs = n.runs ? static_cast<double>(n.runs) : 1.0;
    std::printf("  %7.3f %5.1f%% ", n.total_ns / 1e6 / runs, sum_ns ? 100.0 * n.total_ns / sum_ns : 0.0);
    for (size_t t = 0; t < threads; ++t) std::printf(" %6.3f", t < n.thread_ns.size() ? n.thread_ns[t] / 1e6 / runs : 0.0);
    std::printf("  %-24s %-28s %s\n", n.type.c_str(), n.impl.c_str(), n.name.c_str());
  }
  // Each thread's shares summed over the nodes: a thread on a slower CPU
  // (the two vCPUs of these VMs differ by up to 1.3x for minutes at a time,
  // docs/performance.md "Session 29") is slower in most nodes alike, which
  // one node's row does not show.
  if (threads > 0) {
    std::vector<double> sums(threads, 0.0);
    for (const auto& n : nodes) {
      const double runs = n.runs ? static_cast<double>(n.runs) : 1.0;
      for (size_t t = 0; t < threads && t < n.thread_ns.size(); ++t) sums[t] += n.thread_ns[t] / 1e6 / runs;
    }
    const auto [lo, hi] = std::minmax_element(sums.begin(), sums.end());
    std::printf("threads' shares summed over the nodes, ms:");
    for (size_t t = 0; t < threads; ++t) std::printf(" t%zu %.3f", t, sums[t]);
    if (*lo > 0) std::printf(" (slowest / fastest %.2f)", *hi / *lo);
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // This tool links oneDNN, so libgomp is loaded before main and has read its
  // wait policy already: restart once with the policy the runtime uses
  // (src/common/openmp_policy.h), so the profile matches the DSP process.
  if (!openhtp::openmp_policy_set()) {
    openhtp::prefer_openmp_spin_then_sleep();
    // libgomp bound this thread to one CPU as it loaded when OMP_PROC_BIND
    // or OMP_PLACES is set: the restarted process must not inherit that.
    openhtp::widen_to_openmp_places();
    execv("/proc/self/exe", argv);
  }
  tools::CommandLine cl;
  std::string error;
  if (!tools::scan_command_line(argc, argv, {"--binary", "--iterations", "--threads", "--kernels"}, &cl, &error)) {
    error_line(error);
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  if (cl.help) {
    std::printf("%s", kUsage);
    return 0;
  }
  if (cl.version) {
    std::printf("%s (openhtp %s)\n", kTool, OPENHTP_VERSION);
    return 0;
  }
  std::string path;
  uint64_t iterations = 20;
  uint64_t threads = 0;  // 0: each graph's own NUM_HVX_THREADS
  std::string kernel_selection = "fast";
  for (const auto& [opt, value] : cl.values) {
    bool ok = true;
    if (opt == "--binary") path = value;
    // As many as a signed loop counter holds; the threads within the
    // runtime's own limit (graph config NUM_HVX_THREADS).
    if (opt == "--iterations")
      ok = tools::parse_count(opt, value, 1, std::numeric_limits<int>::max(), &iterations, &error);
    if (opt == "--threads") ok = tools::parse_count(opt, value, 1, htp::kDevice.max_hvx_threads, &threads, &error);
    if (opt == "--kernels") kernel_selection = value;
    if (!ok) {
      error_line(error);
      std::fprintf(stderr, "%s", kUsage);
      return 2;
    }
  }
  if (path.empty()) {
    error_line("--binary is required");
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  std::vector<ops::FastPath> fast_paths;
  if (!kernels::select_fast_paths(kernel_selection, &fast_paths, &error)) {
    error_line("--kernels: " + error);
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  std::vector<uint8_t> bytes;
  if (!openhtp::read_file_bytes(path, &bytes, &error)) {
    error_line("cannot read " + path + ": " + error);
    return 1;
  }
  binary::ContextImage image;
  if (binary::decode_context(bytes.data(), bytes.size(), &image, &error) != binary::BinaryError::kNone) {
    error_line(path + ": " + error);
    return 1;
  }
  int rc = 0;
  for (auto& gi : image.graphs) {
    if (threads > 0) gi.spec.num_hvx_threads = static_cast<uint32_t>(threads);
    if (gi.spec.num_hvx_threads > htp::kDevice.max_hvx_threads) {  // the runtime refuses it too
      error_line("graph '" + gi.spec.name + "': NUM_HVX_THREADS is " + std::to_string(gi.spec.num_hvx_threads) +
                 ", expected at most " + std::to_string(htp::kDevice.max_hvx_threads));
      rc = 1;
      continue;
    }
    rc |= profile_graph(std::move(gi.spec), static_cast<int>(iterations), fast_paths);
  }
  return rc;
}
