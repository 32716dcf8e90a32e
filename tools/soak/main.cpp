// openhtp-soak: mixed load on the QNN API for a while — contexts made and
// freed, buffers registered and deregistered, graphs executed from several
// threads with memory handles and client buffers, the DSP process killed
// now and then (a subsystem restart) and recovered from as a client does —
// then a report: calls made, results by code, restarts and recoveries, hangs,
// wrong outputs, and the client's and the DSP process's fds and memory at the
// start and at the end. Exit status 0 when there was no hang, no wrong
// output, no unexpected error and everything returned to its baseline.
//
//   openhtp-soak [--seconds N] [--threads T] [--crash-every-ms M] [--json FILE]
//
// The test suite runs a few seconds of it (tools.soak); docs/testing.md has
// the long form.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "QnnInterface.h"
#include "QnnOpDef.h"
#include "common/command_line.h"
#include "openhtp/fastrpc_ext.h"
#include "rpcmem.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kN = 1024;  // floats per tensor
constexpr Qnn_ErrorHandle_t kLost = QNN_COMMON_ERROR_SYSTEM_COMMUNICATION;

const QNN_INTERFACE_VER_TYPE& api() {
  static const QNN_INTERFACE_VER_TYPE* table = [] {
    const QnnInterface_t** providers = nullptr;
    uint32_t n = 0;
    if (QnnInterface_getProviders(&providers, &n) != QNN_SUCCESS || n == 0) {
      std::fprintf(stderr, "openhtp-soak: no QNN provider\n");
      std::exit(2);
    }
    return &providers[0]->QNN_INTERFACE_VER_NAME;
  }();
  return *table;
}

// What a process holds: open fds and resident memory (from /proc).
struct Footprint {
  int fds = -1;
  long rss_kib = -1;
  std::vector<std::string> fd_targets;  // what each fd is, for a report of what leaked
  // FastRPC call slots grow a transport buffer on first use and keep it:
  // how many of them have one depends on how many calls ran at once, not on
  // what leaked, so they are counted apart (at most one per slot).
  int transports = 0;
  int lasting() const { return fds - transports; }
};
constexpr int kMaxTransports = 8;  // ipc::kNumSlots

Footprint footprint_of(int pid) {
  Footprint f;
  const std::string dir = "/proc/" + (pid == 0 ? std::string("self") : std::to_string(pid));
  if (DIR* d = opendir((dir + "/fd").c_str())) {
    f.fds = 0;
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      ++f.fds;
      char target[256] = {};
      const ssize_t n = readlink((dir + "/fd/" + e->d_name).c_str(), target, sizeof target - 1);
      const std::string what = n > 0 ? std::string(target, static_cast<size_t>(n)) : "?";
      f.transports += what.find("openhtp-transport") != std::string::npos;
      f.fd_targets.push_back(std::string(e->d_name) + " -> " + what);
    }
    closedir(d);
  }
  if (FILE* s = std::fopen((dir + "/status").c_str(), "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, s) != nullptr) {
      if (std::strncmp(line, "VmRSS:", 6) == 0) f.rss_kib = std::atol(line + 6);
    }
    std::fclose(s);
  }
  return f;
}

// Results by code, and the other counters, shared by the workers.
struct Tally {
  std::mutex mu;
  std::map<Qnn_ErrorHandle_t, uint64_t> by_code;
  std::atomic<uint64_t> calls{0}, wrong_outputs{0}, unexpected{0}, recoveries{0}, crashes{0}, cycles{0};

  // Counts `e` for `what`; a failure other than a lost DSP process is
  // unexpected (the workload makes no mistakes of its own).
  Qnn_ErrorHandle_t count(const char* what, Qnn_ErrorHandle_t e) {
    calls.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard l(mu);
      ++by_code[e];
    }
    if (e != QNN_SUCCESS && e != kLost) {
      unexpected.fetch_add(1);
      std::fprintf(stderr, "openhtp-soak: %s returned %llu\n", what, static_cast<unsigned long long>(e));
    }
    return e;
  }
};

// One worker's cycle: a context with an Add+Relu graph, two registered rpcmem
// buffers, executes with memory handles and with client buffers, then
// everything freed. Returns false when the DSP process was lost on the way
// (the objects are freed all the same, as a recovering client does).
bool cycle(Qnn_BackendHandle_t backend, Tally& t, uint32_t seed) {
  bool lost = false;
  auto step = [&](const char* what, Qnn_ErrorHandle_t e) {
    if (t.count(what, e) == kLost) lost = true;
    return e == QNN_SUCCESS;
  };
  Qnn_ContextHandle_t ctx = nullptr;
  if (!step("contextCreate", api().contextCreate(backend, nullptr, nullptr, &ctx))) return !lost;
  std::vector<uint32_t> dims{1, kN};
  auto tensor = [&](const char* name, Qnn_TensorType_t type) {
    Qnn_Tensor_t x = QNN_TENSOR_INIT;
    x.v1.name = name;
    x.v1.type = type;
    x.v1.dataType = QNN_DATATYPE_FLOAT_32;
    x.v1.rank = 2;
    x.v1.dimensions = dims.data();
    x.v1.memType = QNN_TENSORMEMTYPE_RAW;
    return x;
  };
  Qnn_Tensor_t a = tensor("a", QNN_TENSOR_TYPE_APP_WRITE), b = tensor("b", QNN_TENSOR_TYPE_APP_WRITE);
  Qnn_Tensor_t s = tensor("s", QNN_TENSOR_TYPE_NATIVE), y = tensor("y", QNN_TENSOR_TYPE_APP_READ);
  Qnn_GraphHandle_t g = nullptr;
  bool built = step("graphCreate", api().graphCreate(ctx, "soak", nullptr, &g));
  for (Qnn_Tensor_t* x : {&a, &b, &s, &y}) built = built && step("tensorCreateGraphTensor", api().tensorCreateGraphTensor(g, x));
  auto node = [&](const char* name, const char* type, Qnn_Tensor_t* ins, uint32_t n, Qnn_Tensor_t* out) {
    Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
    op.v1.name = name;
    op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    op.v1.typeName = type;
    op.v1.numOfInputs = n;
    op.v1.inputTensors = ins;
    op.v1.numOfOutputs = 1;
    op.v1.outputTensors = out;
    return api().graphAddNode(g, op);
  };
  Qnn_Tensor_t ab[] = {a, b};
  built = built && step("graphAddNode", node("add", QNN_OP_ELEMENT_WISE_ADD, ab, 2, &s)) &&
          step("graphAddNode", node("relu", QNN_OP_RELU, &s, 1, &y)) &&
          step("graphFinalize", api().graphFinalize(g, nullptr, nullptr));
  // Inputs in rpcmem (registered), the output once registered, once a
  // client buffer.
  auto* in_a = static_cast<float*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, kN * 4));
  auto* out_m = static_cast<float*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, kN * 4));
  std::vector<float> in_b(kN), out_c(kN);
  Qnn_MemHandle_t mh[2] = {nullptr, nullptr};
  if (built && in_a != nullptr && out_m != nullptr) {
    Qnn_MemDescriptor_t d[2] = {QNN_MEM_DESCRIPTOR_INIT, QNN_MEM_DESCRIPTOR_INIT};
    for (int i = 0; i < 2; ++i) {
      d[i].memShape = {2, dims.data(), nullptr};
      d[i].dataType = QNN_DATATYPE_FLOAT_32;
      d[i].memType = QNN_MEM_TYPE_ION;
    }
    d[0].ionInfo.fd = rpcmem_to_fd(in_a);
    d[1].ionInfo.fd = rpcmem_to_fd(out_m);
    if (step("memRegister", api().memRegister(ctx, d, 2, mh))) {
      for (int run = 0; run < 8 && !lost; ++run) {
        for (uint32_t i = 0; i < kN; ++i) {
          in_a[i] = static_cast<float>(static_cast<int>((i * 7 + seed + run) % 11) - 5);
          in_b[i] = static_cast<float>(static_cast<int>((i * 3 + seed) % 5) - 2);
        }
        Qnn_Tensor_t ins[2] = {a, b}, out = y;
        ins[0].v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
        ins[0].v1.memHandle = mh[0];
        ins[1].v1.clientBuf = {in_b.data(), kN * 4};
        const bool to_handle = run % 2 == 0;
        if (to_handle) {
          out.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
          out.v1.memHandle = mh[1];
        } else {
          out.v1.clientBuf = {out_c.data(), kN * 4};
        }
        if (!step("graphExecute", api().graphExecute(g, ins, 2, &out, 1, nullptr, nullptr))) continue;
        const float* got = to_handle ? out_m : out_c.data();
        for (uint32_t i = 0; i < kN; ++i) {
          const float want = std::max(in_a[i] + in_b[i], 0.0f);
          if (got[i] != want) {
            t.wrong_outputs.fetch_add(1);
            break;
          }
        }
      }
    }
  }
  // Freed however the cycle went; after a restart this must succeed too.
  if (mh[0] != nullptr) step("memDeRegister", api().memDeRegister(mh, 2));
  step("contextFree", api().contextFree(ctx, nullptr));
  if (in_a != nullptr) rpcmem_free(in_a);
  if (out_m != nullptr) rpcmem_free(out_m);
  t.cycles.fetch_add(1);
  return !lost;
}

const char* code_name(Qnn_ErrorHandle_t e) {
  switch (e) {
    case QNN_SUCCESS: return "QNN_SUCCESS";
    case kLost: return "QNN_COMMON_ERROR_SYSTEM_COMMUNICATION (DSP process lost)";
    default: return "other";
  }
}

}  // namespace

int main(int argc, char** argv) {
  openhtp::tools::CommandLine cl;
  std::string error;
  if (!openhtp::tools::scan_command_line(argc, argv, {"--seconds", "--threads", "--crash-every-ms", "--json"}, &cl,
                                         &error)) {
    std::fprintf(stderr, "openhtp-soak: %s\n", error.c_str());
    return 2;
  }
  if (cl.help || cl.version) {
    std::printf("openhtp-soak [--seconds N] [--threads T] [--crash-every-ms M] [--json FILE]\n"
                "  mixed QNN load with DSP restarts; a report, and exit status 0 when nothing hung, leaked or\n"
                "  went wrong\n");
    return 0;
  }
  double seconds = 60;
  int threads = 4;
  long crash_every_ms = 2000;
  std::string json;
  for (const auto& [opt, value] : cl.values) {
    bool ok = true;
    uint64_t n = 0;
    if (opt == "--seconds") ok = openhtp::tools::parse_positive(opt, value, "seconds", &seconds, &error);
    if (opt == "--threads" && (ok = openhtp::tools::parse_count(opt, value, 1, 256, &n, &error)))
      threads = static_cast<int>(n);
    // 0: no restarts.
    if (opt == "--crash-every-ms" && (ok = openhtp::tools::parse_count(opt, value, 0, 3'600'000, &n, &error))) {
      crash_every_ms = static_cast<long>(n);
    }
    if (opt == "--json") json = value;
    if (!ok) {
      std::fprintf(stderr, "openhtp-soak: %s\n", error.c_str());
      return 2;
    }
  }
  // The DSP process is not dumpable by default: keep its /proc figures
  // readable for the report.
  setenv("OPENHTP_DSP_DUMPABLE", "1", 0);

  Qnn_BackendHandle_t backend = nullptr;
  if (api().backendCreate(nullptr, nullptr, &backend) != QNN_SUCCESS) {
    std::fprintf(stderr, "openhtp-soak: backendCreate failed\n");
    return 2;
  }
  Tally tally;
  // Warm-up: one cycle, so that the baselines include what the first use of
  // each layer allocates for good.
  cycle(backend, tally, 0);
  const Footprint client_start = footprint_of(0);
  const int dsp_start_pid = openhtp_fastrpc_dsp_pid();
  const Footprint dsp_start = footprint_of(dsp_start_pid);

  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  std::atomic<bool> stop{false};
  std::vector<std::atomic<uint64_t>> progress(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&, w] {
      uint32_t seed = static_cast<uint32_t>(w) * 1000;
      bool was_lost = false;
      while (!stop.load()) {
        const bool ok = cycle(backend, tally, ++seed);
        if (was_lost && ok) tally.recoveries.fetch_add(1);  // a whole cycle after a loss: recovered
        was_lost = !ok;
        progress[static_cast<size_t>(w)].fetch_add(1);
      }
    });
  }
  // Subsystem restarts on a schedule.
  std::thread crasher([&] {
    if (crash_every_ms <= 0) return;
    while (!stop.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(crash_every_ms));
      if (stop.load()) break;
      const int pid = openhtp_fastrpc_dsp_pid();
      if (pid > 0 && kill(pid, SIGKILL) == 0) tally.crashes.fetch_add(1);
    }
  });
  // A worker that makes no progress for 10 s is hung.
  uint64_t hangs = 0;
  std::vector<uint64_t> seen(static_cast<size_t>(threads), 0);
  std::vector<Clock::time_point> since(static_cast<size_t>(threads), Clock::now());
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (size_t w = 0; w < seen.size(); ++w) {
      const uint64_t p = progress[w].load();
      if (p != seen[w]) {
        seen[w] = p;
        since[w] = Clock::now();
      } else if (Clock::now() - since[w] > std::chrono::seconds(10)) {
        std::fprintf(stderr, "openhtp-soak: worker %zu made no progress for 10 s: a hang\n", w);
        ++hangs;
        since[w] = Clock::now();
      }
    }
  }
  stop = true;
  crasher.join();
  for (auto& t : workers) t.join();
  // The end state: a healthy DSP process (a fresh one if the last crash
  // came late) with nothing of ours left in it.
  cycle(backend, tally, 7);
  const Footprint client_end = footprint_of(0);
  const int dsp_end_pid = openhtp_fastrpc_dsp_pid();
  const Footprint dsp_end = footprint_of(dsp_end_pid);
  api().backendFree(backend);

  // Verdicts. A fresh DSP process is compared with the first one as both
  // were after one cycle; memory may move by allocator noise, not by a leak.
  constexpr long kRssSlackKib = 16 * 1024;
  const bool fds_back = client_end.lasting() == client_start.lasting() && dsp_end.lasting() == dsp_start.lasting() &&
                        client_end.transports <= kMaxTransports && dsp_end.transports <= kMaxTransports;
  const bool memory_back = client_end.rss_kib - client_start.rss_kib < kRssSlackKib &&
                           dsp_end.rss_kib - dsp_start.rss_kib < kRssSlackKib;
  const bool ok = hangs == 0 && tally.wrong_outputs == 0 && tally.unexpected == 0 && fds_back && memory_back &&
                  (crash_every_ms <= 0 || tally.crashes == 0 || tally.recoveries > 0);
  std::printf("openhtp-soak: %.0f s, %d threads, a DSP restart every %ld ms\n", seconds, threads, crash_every_ms);
  std::printf("  cycles %llu, QNN calls %llu, DSP restarts injected %llu, recoveries %llu, hangs %llu, wrong outputs %llu,"
              " unexpected errors %llu\n",
              static_cast<unsigned long long>(tally.cycles.load()), static_cast<unsigned long long>(tally.calls.load()),
              static_cast<unsigned long long>(tally.crashes.load()),
              static_cast<unsigned long long>(tally.recoveries.load()), static_cast<unsigned long long>(hangs),
              static_cast<unsigned long long>(tally.wrong_outputs.load()),
              static_cast<unsigned long long>(tally.unexpected.load()));
  for (const auto& [code, n] : tally.by_code) {
    std::printf("  %-60s %llu\n", (std::to_string(code) + " " + code_name(code)).c_str(),
                static_cast<unsigned long long>(n));
  }
  std::printf("  client: fds %d -> %d (call-slot transports %d -> %d), RSS %ld -> %ld KiB\n", client_start.fds,
              client_end.fds, client_start.transports, client_end.transports, client_start.rss_kib, client_end.rss_kib);
  std::printf("  DSP process (pid %d -> %d): fds %d -> %d (call-slot transports %d -> %d), RSS %ld -> %ld KiB\n",
              dsp_start_pid, dsp_end_pid, dsp_start.fds, dsp_end.fds, dsp_start.transports, dsp_end.transports,
              dsp_start.rss_kib, dsp_end.rss_kib);
  if (!fds_back) {
    for (const auto& [name, from, to] : {std::tuple{"client", &client_start, &client_end},
                                         std::tuple{"DSP process", &dsp_start, &dsp_end}}) {
      std::printf("  %s fds at the end:\n", name);
      for (const auto& t : to->fd_targets) std::printf("    %s\n", t.c_str());
      (void)from;
    }
  }
  std::printf("  %s\n", ok ? "PASS: no hang, no wrong output, no unexpected error, fds and memory back to baseline"
                            : "FAIL");
  if (!json.empty()) {
    if (FILE* f = std::fopen(json.c_str(), "w")) {
      std::fprintf(f,
                   "{\"seconds\": %.1f, \"threads\": %d, \"crash_every_ms\": %ld, \"cycles\": %llu, \"calls\": %llu,"
                   " \"restarts\": %llu, \"recoveries\": %llu, \"hangs\": %llu, \"wrong_outputs\": %llu,"
                   " \"unexpected_errors\": %llu, \"client_fds\": [%d, %d], \"client_rss_kib\": [%ld, %ld],"
                   " \"dsp_fds\": [%d, %d], \"dsp_rss_kib\": [%ld, %ld], \"pass\": %s}\n",
                   seconds, threads, crash_every_ms, static_cast<unsigned long long>(tally.cycles.load()),
                   static_cast<unsigned long long>(tally.calls.load()),
                   static_cast<unsigned long long>(tally.crashes.load()),
                   static_cast<unsigned long long>(tally.recoveries.load()), static_cast<unsigned long long>(hangs),
                   static_cast<unsigned long long>(tally.wrong_outputs.load()),
                   static_cast<unsigned long long>(tally.unexpected.load()), client_start.fds, client_end.fds,
                   client_start.rss_kib, client_end.rss_kib, dsp_start.fds, dsp_end.fds, dsp_start.rss_kib,
                   dsp_end.rss_kib, ok ? "true" : "false");
      std::fclose(f);
    }
  }
  return ok ? 0 : 1;
}
