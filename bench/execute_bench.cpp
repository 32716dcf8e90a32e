// graphExecute round trips through the QNN API, one benchmark per way a
// client can hand over tensor memory:
//   memhandle      rpcmem (ION) buffers registered with memRegister: the DSP
//                  process maps them once, an execute passes only ids;
//   client_buffer  plain malloc'd buffers (RAW): copied into the call's
//                  transport buffer and back, once each way;
//   inproc         client buffers on an in-process backend: no process
//                  boundary at all — the floor the FastRPC path is chasing.
// Each call is timed on its own (manual time) so that reading the execute
// statistics afterwards stays out of the measurement; on the large executes
// the DSP-side kernel time from those statistics (OpenHtp_setDspTiming)
// splits every call into kernel time and everything else ("overhead"), which
// is what the transport is responsible for. The tiny executes run as a plain
// QNN client's do, with no DSP clock: their figure is the whole round trip
// (dsp_exec_ns 0, overhead = wall).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "affinity.h"
#include "bench_registry.h"
#include "bench_stats.h"
#include "openhtp/fastrpc_ext.h"
#include "openhtp/qnn_ext.h"
#include "qnn_session.h"
#include "raw_pingpong.h"
#include "rpcmem.h"

namespace bench {
namespace {

enum class Mode { kMemHandle, kClientBuffer, kInProc };

constexpr uint32_t kTinyFloats = 16;  // the kernel is nothing and the round trip is all

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kMemHandle: return "memhandle";
    case Mode::kClientBuffer: return "client_buffer";
    case Mode::kInProc: return "inproc";
  }
  return "?";
}

// A graph plus its input/output memory, ready to execute. Built once per
// benchmark name and reused by every run of that benchmark (Google Benchmark
// calls the function several times: to size the iteration count and per
// repetition), so registration, first-touch page faults and the DSP's first
// mapping of each buffer are paid once, outside any measurement.
class ExecSetup {
 public:
  ExecSetup(Mode mode, uint32_t n, const std::string& graph_name) {
    session_ = &QnnSession::get(mode == Mode::kInProc ? Transport::kInProc : Transport::kFastRpc);
    graph_ = session_->build_relu(graph_name, n, &error_);
    if (graph_.handle == nullptr) return;
    if (n > kTinyFloats) OpenHtp_setDspTiming(graph_.handle, 1);
    const size_t bytes = graph_.bytes();
    in_ = graph_.in;
    out_ = graph_.out;
    if (mode == Mode::kMemHandle) {
      for (int i = 0; i < 2; ++i) {
        rpc_[i] = rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, bytes);
        if (rpc_[i] == nullptr) {
          error_ = "rpcmem_alloc2 failed";
          return;
        }
        mem_[i] = session_->register_ion(rpcmem_to_fd(rpc_[i]), graph_, &error_);
        if (mem_[i] == nullptr) return;
      }
      in_ptr_ = static_cast<float*>(rpc_[0]);
      out_ptr_ = static_cast<float*>(rpc_[1]);
      in_.v1.memType = out_.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
      in_.v1.memHandle = mem_[0];
      out_.v1.memHandle = mem_[1];
    } else {
      // Ordinary heap memory, page-aligned like the memcpy baseline's: rpcmem
      // memory would be passed by reference even as a client buffer.
      const size_t alloc = (bytes + 4095) / 4096 * 4096;
      host_[0] = std::aligned_alloc(4096, alloc);
      host_[1] = std::aligned_alloc(4096, alloc);
      if (host_[0] == nullptr || host_[1] == nullptr) {
        error_ = "aligned_alloc failed";
        return;
      }
      in_ptr_ = static_cast<float*>(host_[0]);
      out_ptr_ = static_cast<float*>(host_[1]);
      in_.v1.memType = out_.v1.memType = QNN_TENSORMEMTYPE_RAW;
      in_.v1.clientBuf = {in_ptr_, static_cast<uint32_t>(bytes)};
      out_.v1.clientBuf = {out_ptr_, static_cast<uint32_t>(bytes)};
    }
    // Half the inputs negative so Relu does real work; the output starts as
    // garbage so the check below proves this execute wrote it.
    for (uint32_t i = 0; i < n; ++i) in_ptr_[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
    std::memset(out_ptr_, 0xff, bytes);
    // Warm-up: grows the FastRPC transport buffer to size, maps memhandles in
    // the DSP process, faults every page on both sides.
    for (int i = 0; i < 3; ++i) {
      if (Qnn_ErrorHandle_t e = execute(); e != QNN_SUCCESS) {
        error_ = "graphExecute failed: " + qnn_error(e);
        return;
      }
    }
    for (uint32_t i = 0; i < n; ++i) {
      const float want = in_ptr_[i] > 0 ? in_ptr_[i] : 0.0f;
      if (out_ptr_[i] != want) {
        error_ = "wrong Relu output at element " + std::to_string(i);
        return;
      }
    }
    ok_ = true;
  }

  ~ExecSetup() {
    for (Qnn_MemHandle_t h : mem_) {
      if (h != nullptr) session_->deregister(h);
    }
    for (void* p : rpc_) {
      if (p != nullptr) rpcmem_free(p);
    }
    for (void* p : host_) std::free(p);
    // The graph itself goes with its session's context.
  }

  Qnn_ErrorHandle_t execute() {
    // graphExecute may update the output's clientBuf.dataSize; pass copies
    // so every call sees the same tensors.
    Qnn_Tensor_t in = in_, out = out_;
    return qnn().graphExecute(graph_.handle, &in, 1, &out, 1, nullptr, nullptr);
  }

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  Qnn_GraphHandle_t graph() const { return graph_.handle; }
  uint64_t tensor_bytes() const { return graph_.bytes(); }

 private:
  QnnSession* session_ = nullptr;
  ReluGraph graph_;
  Qnn_Tensor_t in_ = QNN_TENSOR_INIT, out_ = QNN_TENSOR_INIT;
  void* rpc_[2] = {nullptr, nullptr};
  Qnn_MemHandle_t mem_[2] = {nullptr, nullptr};
  void* host_[2] = {nullptr, nullptr};
  float* in_ptr_ = nullptr;
  float* out_ptr_ = nullptr;
  std::string error_;
  bool ok_ = false;
};

std::map<std::string, std::unique_ptr<ExecSetup>>& setups() {
  static auto* m = new std::map<std::string, std::unique_ptr<ExecSetup>>;
  return *m;
}

ExecSetup& setup_for(const std::string& key, Mode mode, uint32_t n) {
  auto& slot = setups()[key];
  if (!slot) slot = std::make_unique<ExecSetup>(mode, n, "relu_" + std::to_string(setups().size()));
  return *slot;
}

// Minor page faults so far of this process and of the DSP process: a warmed-up
// execute should take none, so any that show up per call mean pages are being
// unmapped behind our back (reclaim, DAMON) and re-faulted inside the
// measurement.
uint64_t own_minor_faults() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_minflt);
}

uint64_t dsp_minor_faults() {
  const int pid = openhtp_fastrpc_dsp_pid();
  if (pid <= 0) return 0;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // Fields after the parenthesised command name: state ppid pgrp session
  // tty_nr tpgid flags minflt ...
  const char* p = std::strrchr(buf, ')');
  unsigned long long minflt = 0;
  if (p == nullptr || std::sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu", &minflt) != 1) return 0;
  return minflt;
}

// `placement`: kFree is the product case; the pinned ones (this thread = the
// client, every thread of the DSP process = the server) are diagnostics, see
// affinity.h. A pinned run shares its set-up with the unpinned one.
void BM_Execute(benchmark::State& state, const std::string& key, Mode mode, uint32_t num_floats,
                Placement placement) {
  ExecSetup& s = setup_for(key, mode, num_floats);
  if (!s.ok()) {
    state.SkipWithError(s.error().c_str());
    return;
  }
  std::optional<ScopedPin> pin_client, pin_dsp;
  if (placement != Placement::kFree) {
    const std::vector<pid_t> dsp_tids = threads_of(openhtp_fastrpc_dsp_pid());
    const int cpu0 = allowed_cpu(0), cpu1 = allowed_cpu(1);
    pin_client.emplace(std::vector<pid_t>{0}, cpu0);
    pin_dsp.emplace(dsp_tids, placement == Placement::kSameCpu ? cpu0 : cpu1);
    if (cpu1 < 0 || dsp_tids.empty() || !pin_client->ok() || !pin_dsp->ok()) {
      state.SkipWithError("cannot pin the client and the DSP process (needs two CPUs and a DSP process)");
      return;
    }
    for (int i = 0; i < 3; ++i) s.execute();  // let everyone migrate first
  }
  uint64_t wall_ns = 0, dsp_ns = 0, copied = 0, by_ref = 0;
  Samples wall_samples(state.max_iterations), dsp_samples(state.max_iterations),
      overhead_samples(state.max_iterations);
  const uint64_t own_faults0 = own_minor_faults(), dsp_faults0 = dsp_minor_faults();
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const Qnn_ErrorHandle_t e = s.execute();
    const auto t1 = std::chrono::steady_clock::now();
    if (e != QNN_SUCCESS) {
      state.SkipWithError(("graphExecute failed: " + qnn_error(e)).c_str());
      break;
    }
    const auto dt = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    state.SetIterationTime(static_cast<double>(dt) * 1e-9);
    OpenHtp_ExecuteStats_t st{};
    OpenHtp_getLastExecuteStats(s.graph(), &st);
    wall_ns += static_cast<uint64_t>(dt);
    dsp_ns += st.dspExecuteNs;
    wall_samples.add(static_cast<double>(dt));
    dsp_samples.add(static_cast<double>(st.dspExecuteNs));
    overhead_samples.add(static_cast<double>(dt) - static_cast<double>(st.dspExecuteNs));
    copied += st.bytesCopiedIn + st.bytesCopiedOut;
    by_ref += st.bytesByReference;
  }
  const uint64_t own_faults = own_minor_faults() - own_faults0, dsp_faults = dsp_minor_faults() - dsp_faults0;
  if (state.iterations() == 0) return;
  using benchmark::Counter;
  state.counters["client_minflt"] = Counter(static_cast<double>(own_faults), Counter::kAvgIterations);
  if (mode == Mode::kMemHandle || mode == Mode::kClientBuffer) {
    state.counters["dsp_minflt"] = Counter(static_cast<double>(dsp_faults), Counter::kAvgIterations);
  }
  // Per-iteration averages, in ns and bytes.
  state.counters["dsp_exec_ns"] = Counter(static_cast<double>(dsp_ns), Counter::kAvgIterations);
  const double overhead_ns = static_cast<double>(wall_ns) - static_cast<double>(dsp_ns);
  state.counters["overhead_ns"] = Counter(overhead_ns, Counter::kAvgIterations);
  state.counters["bytes_copied"] = Counter(static_cast<double>(copied), Counter::kAvgIterations);
  state.counters["bytes_by_ref"] = Counter(static_cast<double>(by_ref), Counter::kAvgIterations);
  state.counters["tensor_bytes"] = static_cast<double>(s.tensor_bytes());
  // Medians of the per-call values (bench_stats.h): the summary's inputs.
  const double p50_overhead = overhead_samples.median();
  state.counters["p50_wall_ns"] = wall_samples.median();
  state.counters["p50_dsp_exec_ns"] = dsp_samples.median();
  state.counters["p50_overhead_ns"] = p50_overhead;
  if (copied > 0) {
    // Everything that is not the kernel is charged to the copies: an upper
    // bound on their cost, so a lower bound on the bandwidth they achieved.
    const double per_call = static_cast<double>(copied) / static_cast<double>(state.iterations());
    if (overhead_ns > 0) state.counters["copy_bytes_per_second"] = static_cast<double>(copied) / (overhead_ns * 1e-9);
    if (p50_overhead > 0) state.counters["p50_copy_bytes_per_second"] = per_call / (p50_overhead * 1e-9);
  }
}

// Issue 9's two ratios with the host's placement taken out. This VM's two
// vCPUs sit near or far from each other on the host (a raw ping-pong of
// ~200 or ~800 ns) and that changes within seconds, so a ping-pong and an
// execute measured one benchmark apart may have seen different machines
// (run 51: a 262 ns memhandle execute against a 782 ns ping-pong). Here the
// raw ping-pong, the tiny memhandle execute and the tiny in-process execute
// take turns in blocks of kPairBlock calls; each block gives its two ratios
// of medians, and the counters are the medians of those per-block ratios
// (and the median of the blocks' ping-pongs, to say which placement ran).
constexpr int kPairBlock = 200;

void BM_TinyExecutePaired(benchmark::State& state) {
  ExecSetup& memhandle = setup_for("BM_TinyExecute/memhandle", Mode::kMemHandle, kTinyFloats);
  ExecSetup& inproc = setup_for("BM_TinyExecute/inproc", Mode::kInProc, kTinyFloats);
  for (const ExecSetup* s : {&memhandle, &inproc}) {
    if (!s->ok()) {
      state.SkipWithError(s->error().c_str());
      return;
    }
  }
  RawPingPong pair({-1, -1, 0});
  if (!pair.ok()) {
    state.SkipWithError(pair.error().c_str());
    return;
  }
  pair.warm_up();
  auto timed_ns = [](ExecSetup& s) {
    const auto t0 = std::chrono::steady_clock::now();
    const Qnn_ErrorHandle_t e = s.execute();
    const auto t1 = std::chrono::steady_clock::now();
    return e == QNN_SUCCESS ? static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count())
                            : -1.0;
  };
  auto run_block = [&](ExecSetup& s, Samples* out) {
    for (int i = 0; i < kPairBlock; ++i) {
      const double ns = timed_ns(s);
      if (ns < 0) return false;
      out->add(ns);
    }
    return true;
  };
  struct Block {
    double pingpong_ns, memhandle_ratio, inproc_ratio;
  };
  std::vector<Block> blocks;
  blocks.reserve(static_cast<size_t>(std::max<int64_t>(state.max_iterations, 0)));
  for (auto _ : state) {  // one iteration: a block of each
    Samples pp(kPairBlock), mh(kPairBlock), ip(kPairBlock);
    const auto block_start = std::chrono::steady_clock::now();
    for (int i = 0; i < kPairBlock; ++i) pp.add(pair.timed_round_trip());
    if (!run_block(memhandle, &mh) || !run_block(inproc, &ip)) {
      state.SkipWithError("graphExecute failed");
      return;
    }
    // The block's whole time, so the benchmark's iteration count stays a
    // count of blocks; the per-call figures are the counters below.
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - block_start).count());
    const double pp50 = pp.median();
    blocks.push_back({pp50, mh.median() / pp50, ip.median() / pp50});
  }
  if (blocks.empty()) return;
  // All blocks, and the blocks that ran in the fastest placement this run
  // saw (a ping-pong within 1.5x of the fastest block's): the hard case for
  // the targets, where the transfer is cheapest and the work weighs most.
  double fastest = blocks.front().pingpong_ns;
  for (const Block& b : blocks) fastest = std::min(fastest, b.pingpong_ns);
  auto report = [&](const char* prefix, bool fast_only) {
    Samples pingpong, memhandle_ratio, inproc_ratio;
    for (const Block& b : blocks) {
      if (fast_only && b.pingpong_ns > 1.5 * fastest) continue;
      pingpong.add(b.pingpong_ns);
      memhandle_ratio.add(b.memhandle_ratio);
      inproc_ratio.add(b.inproc_ratio);
    }
    const std::string p = prefix;
    state.counters[p + "memhandle_ratio"] = memhandle_ratio.median();
    state.counters[p + "inproc_ratio"] = inproc_ratio.median();
    state.counters[p + "pingpong_ns"] = pingpong.median();
    state.counters[p + "blocks"] = static_cast<double>(pingpong.size());
  };
  report("paired_", false);
  report("fastest_", true);
}

void add(const std::string& name, Mode mode, uint32_t num_floats, benchmark::TimeUnit unit,
         Placement placement = Placement::kFree) {
  // The set-up key leaves out the placement suffix: a pinned run reuses the
  // graph and buffers of its unpinned twin.
  const std::string key = placement != Placement::kFree ? name.substr(0, name.rfind('/')) : name;
  with_min(benchmark::RegisterBenchmark(name.c_str(), BM_Execute, key, mode, num_floats, placement))
      ->UseManualTime()
      ->Unit(unit);
}

}  // namespace

void register_execute_benchmarks() {
  for (Mode m : {Mode::kMemHandle, Mode::kClientBuffer, Mode::kInProc}) {
    add(std::string("BM_TinyExecute/") + mode_name(m), m, kTinyFloats, benchmark::kNanosecond);
  }
  with_min(benchmark::RegisterBenchmark("BM_TinyExecute/paired", BM_TinyExecutePaired))
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  // Diagnostics: the tiny memhandle round trip with client and DSP forced
  // onto one CPU, and onto two different ones.
  add("BM_TinyExecute/memhandle/same_cpu", Mode::kMemHandle, kTinyFloats, benchmark::kNanosecond,
      Placement::kSameCpu);
  add("BM_TinyExecute/memhandle/cpus_apart", Mode::kMemHandle, kTinyFloats, benchmark::kNanosecond,
      Placement::kCpusApart);
  // Large I/O: 16 MiB in and 16 MiB out. The memhandle path also sweeps the
  // size, so its overhead can be checked for growth with the tensor.
  constexpr uint32_t kFloatsPerMiB = (1u << 20) / sizeof(float);
  for (uint32_t mib : {1u, 4u, 16u}) {
    add("BM_LargeExecute/memhandle/" + std::to_string(mib) + "MiB", Mode::kMemHandle, mib * kFloatsPerMiB,
        benchmark::kMicrosecond);
  }
  for (Mode m : {Mode::kClientBuffer, Mode::kInProc}) {
    add(std::string("BM_LargeExecute/") + mode_name(m) + "/16MiB", m, 16 * kFloatsPerMiB, benchmark::kMicrosecond);
  }
}

void teardown_execute_benchmarks() { setups().clear(); }

}  // namespace bench
