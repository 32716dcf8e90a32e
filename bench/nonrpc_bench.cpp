// bench_nonrpc: the Non-RPC domain (tutorial: "Non-RPC Use Case"), where the
// program runs "on the DSP": libQnnHtp runs the HTP runtime in this process
// and buffers are named by 32-bit QURT address. It must run through the
// launcher, which serves every malloc from the DSP heap below 4 GiB:
//
//   bin/openhtp-dsp-run bin/bench_nonrpc [--json PATH]
//
// Three measurements in one run (bench/summarize_nonrpc.py turns the JSON
// into ratios; on a shared machine only ratios of figures taken in one run
// mean anything):
//
//  memory      DSP-heap bytes in use and process RSS added by N = 1, 2, 4, 8
//              contexts loaded from one binary whose graph spills (the chain
//              graph of examples/common/chain_graph.h), all N sharing one
//              spill-fill + one VTCM-backup buffer (concurrent resource
//              sharing) or each with its own pair.
//  preemption  a tiny graph in a QNN_PRIORITY_HIGH context submitted while a
//              long graph (an add chain of many ops) of a QNN_PRIORITY_LOW
//              context runs: how long the tiny execute takes, against the
//              tiny graph alone and the long graph's whole duration, with the
//              low execute's yield count and VTCM save/restore times from its
//              QNN profile.
//  tiny        the tiny execute (Relu over 16 floats) with QURT-registered
//              memhandle I/O and with client buffers, against a raw
//              two-process ping-pong (raw_pingpong.h) measured in the same
//              run, repetitions interleaved.
//
// A part that cannot run says so in the output and in its JSON section
// ("error"); the exit status is then 1.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpGraph.h"
#include "HTP/QnnHtpMem.h"
#include "QnnOpDef.h"
#include "QnnProfile.h"
#include "bench_stats.h"
#include "common/chain_graph.h"
#include "dsp_heap/dsp_heap.h"  // types only: the functions are looked up, not linked
#include "openhtp/qnn_ext.h"
#include "qnn_session.h"
#include "raw_pingpong.h"

namespace bench {
namespace {

namespace chain = examples::chain_graph;
using Clock = std::chrono::steady_clock;

constexpr int kMemoryContextCounts[] = {1, 2, 4, 8};
constexpr const char* kChainGraphName = "chain";
// The long graph: an add chain over 1 MiB tensors, a few ms in all.
constexpr uint32_t kLongElements = 1u << 18;
constexpr uint32_t kLongOps = 64;
constexpr int kLongAloneRuns = 15;
// Rounds until this many preempted the long graph, or the limits below.
constexpr int kPreemptSamples = 100;
constexpr int kMaxPreemptRounds = 1000;
constexpr double kMaxPreemptSeconds = 8.0;
constexpr uint32_t kTinyElements = 16;
constexpr int kTinyAloneCalls = 2000;
constexpr int kRepetitions = 3;
// Per repetition and measurement of the tiny part: whichever comes first.
constexpr int kMaxCallsPerRep = 20000;
constexpr double kSecondsPerRep = 0.15;

double elapsed_ns(Clock::time_point t0, Clock::time_point t1) {
  return std::chrono::duration<double, std::nano>(t1 - t0).count();
}

// ---------------------------------------------------------------------------
// The process: DSP heap and RSS.

// The DSP heap's statistics, found the way libQnnHtp finds the heap: only a
// process started by openhtp-dsp-run has it.
struct DspHeap {
  decltype(&openhtp_dsp_heap_stats) stats = nullptr;

  static DspHeap find() {
    DspHeap h;
    auto present = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openhtp_dsp_heap_present"));
    if (present == nullptr || present() != 1) return h;
    h.stats = reinterpret_cast<decltype(h.stats)>(dlsym(RTLD_DEFAULT, "openhtp_dsp_heap_stats"));
    return h;
  }
  bool present() const { return stats != nullptr; }
  uint64_t bytes_in_use() const {
    openhtp_dsp_heap_stats_t s{};
    stats(&s);
    return s.bytes_in_use;
  }
};

uint64_t rss_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

// "<dir>/openhtp-dsp-run <this program>": the launcher lives next to it.
std::string launcher_command() {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string self = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "bench_nonrpc";
  return self.substr(0, self.rfind('/') + 1) + "openhtp-dsp-run " + self;
}

QnnHtpMem_QurtAddress_t qurt(const void* p) {
  return static_cast<QnnHtpMem_QurtAddress_t>(reinterpret_cast<uintptr_t>(p));
}

// ---------------------------------------------------------------------------
// Contexts loaded the tutorial's Non-RPC way.

// Concurrent resource sharing + DEFER_GRAPH_INIT + a priority; the list
// must stay valid until contextFinalize.
struct SharingConfigs {
  QnnHtpContext_CustomConfig_t htp{};
  QnnContext_Config_t sharing = QNN_CONTEXT_CONFIG_INIT;
  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  QnnContext_Config_t priority = QNN_CONTEXT_CONFIG_INIT;
  const QnnContext_Config_t* list[4] = {&sharing, &defer, &priority, nullptr};

  explicit SharingConfigs(Qnn_Priority_t level) {
    htp.option = QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING;
    htp.concurrentGroupRegistration.firstGroupHandle = nullptr;  // not needed with deferred init
    htp.concurrentGroupRegistration.maxSpillFillBuffer = 0;
    sharing.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
    sharing.customConfig = &htp;
    defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
    defer.isGraphInitDeferred = 1;
    priority.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
    priority.priority = level;
  }
};

// A spill-fill + VTCM-backup pair, malloc'd (DSP heap) and zero-filled, so
// their pages count in RSS from the start, as after a real run.
struct BufferPair {
  uint8_t* spill = nullptr;
  uint8_t* backup = nullptr;
  uint64_t spill_bytes = 0, backup_bytes = 0;

  bool allocate(uint64_t spill_size, uint64_t backup_size) {
    spill_bytes = spill_size;
    backup_bytes = backup_size;
    spill = static_cast<uint8_t*>(std::malloc(spill_size));
    backup = static_cast<uint8_t*>(std::malloc(backup_size));
    if (spill != nullptr) std::memset(spill, 0, spill_size);
    if (backup != nullptr) std::memset(backup, 0, backup_size);
    return spill != nullptr && backup != nullptr;
  }
  void release() {
    std::free(spill);
    std::free(backup);
    spill = backup = nullptr;
  }
};

// What one context loaded from a binary needs, and the steps to get it
// running, each false with `error` set on failure.
class LoadedContext {
 public:
  bool create(Qnn_BackendHandle_t backend, const std::vector<uint8_t>& binary, SharingConfigs& configs,
              std::string* error) {
    if (Qnn_ErrorHandle_t e = qnn().contextCreateFromBinary(backend, nullptr, configs.list, binary.data(),
                                                            binary.size(), &handle, nullptr);
        e != QNN_SUCCESS) {
      *error = "contextCreateFromBinary: " + qnn_error(e);
      return false;
    }
    return chain::get_custom_property(qnn(), handle, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE,
                                      &spill_needed, error) &&
           chain::get_custom_property(qnn(), handle, QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE,
                                      &backup_needed, error);
  }

  bool register_buffers(const BufferPair& b, std::string* error) {
    QnnMemHtp_Descriptor_t htp[2] = {{}, {}};
    htp[0].type = QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER;
    htp[0].size = b.spill_bytes;
    htp[0].sharedSpillfillBufferQurtAddress = qurt(b.spill);
    htp[1].type = QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER;
    htp[1].size = b.backup_bytes;
    htp[1].sharedVTCMBackupBufferQurtAddress = qurt(b.backup);
    uint32_t one = 1;
    Qnn_MemDescriptor_t d[2] = {QNN_MEM_DESCRIPTOR_INIT, QNN_MEM_DESCRIPTOR_INIT};
    for (int i = 0; i < 2; ++i) {
      d[i].memShape = {1, &one, nullptr};
      d[i].dataType = QNN_DATATYPE_UINT_8;
      d[i].memType = QNN_MEM_TYPE_CUSTOM;
      d[i].customInfo = &htp[i];
    }
    Qnn_MemHandle_t h[2] = {nullptr, nullptr};
    if (Qnn_ErrorHandle_t e = qnn().memRegister(handle, d, 2, h); e != QNN_SUCCESS) {
      *error = "memRegister(SHARED_SPILLFILL_BUFFER, SHARED_VTCMBACKUP_BUFFER): " + qnn_error(e);
      return false;
    }
    return true;
  }

  bool finalize(const char* graph_name, std::string* error) {
    if (Qnn_ErrorHandle_t e = qnn().contextFinalize(handle, nullptr); e != QNN_SUCCESS) {
      *error = "contextFinalize: " + qnn_error(e);
      return false;
    }
    if (Qnn_ErrorHandle_t e = qnn().graphRetrieve(handle, graph_name, &graph); e != QNN_SUCCESS) {
      *error = std::string("graphRetrieve(") + graph_name + "): " + qnn_error(e);
      return false;
    }
    return true;
  }

  // contextFree deregisters the buffers too.
  void release() {
    if (handle != nullptr) qnn().contextFree(handle, nullptr);
    handle = nullptr;
    graph = nullptr;
  }

  Qnn_ContextHandle_t handle = nullptr;
  Qnn_GraphHandle_t graph = nullptr;
  uint64_t spill_needed = 0, backup_needed = 0;
};

// An online context of `backend` (freed with this object), for building a
// graph to serialize.
struct OnlineContext {
  explicit OnlineContext(Qnn_BackendHandle_t backend, std::string* error) {
    if (Qnn_ErrorHandle_t e = qnn().contextCreate(backend, nullptr, nullptr, &handle); e != QNN_SUCCESS) {
      *error = "contextCreate: " + qnn_error(e);
      handle = nullptr;
    }
  }
  ~OnlineContext() {
    if (handle != nullptr) qnn().contextFree(handle, nullptr);
  }
  OnlineContext(const OnlineContext&) = delete;
  OnlineContext& operator=(const OnlineContext&) = delete;
  Qnn_ContextHandle_t handle = nullptr;
};

Qnn_ErrorHandle_t execute_raw(Qnn_GraphHandle_t g, Qnn_Tensor_t in, Qnn_Tensor_t out, const void* x, void* y,
                              uint64_t bytes, Qnn_ProfileHandle_t profile = nullptr) {
  in.v1.memType = out.v1.memType = QNN_TENSORMEMTYPE_RAW;
  in.v1.clientBuf = {const_cast<void*>(x), static_cast<uint32_t>(bytes)};
  out.v1.clientBuf = {y, static_cast<uint32_t>(bytes)};
  return qnn().graphExecute(g, &in, 1, &out, 1, profile, nullptr);
}

// ---------------------------------------------------------------------------
// (a) memory.

struct MemoryRow {
  const char* config = "";  // "shared" or "own"
  int n = 0;
  uint64_t heap_bytes = 0;     // DSP-heap bytes in use added by the N contexts and their buffers
  uint64_t rss_bytes = 0;      // process RSS added by them
  uint64_t buffer_bytes = 0;   // of which the client's spill-fill + VTCM-backup buffers
  int64_t heap_left = 0;       // DSP-heap bytes still in use after freeing everything
  size_t outputs_matched = 0;  // of n
};

struct MemoryResult {
  std::string error;
  uint64_t binary_bytes = 0, spill_needed = 0, backup_needed = 0;
  std::vector<MemoryRow> rows;
};

// N contexts from `binary`, sharing one buffer pair or each with its own,
// each executed once and checked; measured, then freed.
bool measure_contexts(const DspHeap& heap, Qnn_BackendHandle_t backend, const std::vector<uint8_t>& binary,
                      const chain::ChainGraphBuilder& builder, const chain::Weights& weights, bool shared, int n,
                      MemoryRow* row, std::string* error) {
  row->config = shared ? "shared" : "own";
  row->n = n;
  const std::vector<float> x = chain::make_inputs(1)[0];
  const std::vector<float> want = chain::reference(weights, x);
  std::vector<float> y(chain::kElements);
  const uint64_t heap0 = heap.bytes_in_use(), rss0 = rss_bytes();

  SharingConfigs configs(QNN_PRIORITY_DEFAULT);
  std::vector<LoadedContext> contexts(static_cast<size_t>(n));
  std::vector<BufferPair> buffers(shared ? 1 : static_cast<size_t>(n));
  auto release = [&] {
    for (LoadedContext& c : contexts) c.release();
    for (BufferPair& b : buffers) b.release();
  };
  bool ok = true;
  for (LoadedContext& c : contexts) {
    if (!(ok = c.create(backend, binary, configs, error))) break;
  }
  // The shared pair must satisfy every context of the group.
  for (size_t i = 0; ok && i < buffers.size(); ++i) {
    uint64_t spill = 0, backup = 0;
    for (size_t k = shared ? 0 : i; k < (shared ? contexts.size() : i + 1); ++k) {
      spill = std::max(spill, contexts[k].spill_needed);
      backup = std::max(backup, contexts[k].backup_needed);
    }
    if (!(ok = buffers[i].allocate(spill, backup))) *error = "malloc of the external buffers failed";
    row->buffer_bytes += spill + backup;
  }
  for (size_t i = 0; ok && i < contexts.size(); ++i) {
    ok = contexts[i].register_buffers(buffers[shared ? 0 : i], error) && contexts[i].finalize(kChainGraphName, error);
  }
  for (size_t i = 0; ok && i < contexts.size(); ++i) {
    std::fill(y.begin(), y.end(), std::nanf(""));
    if (Qnn_ErrorHandle_t e = execute_raw(contexts[i].graph, builder.input(), builder.output(), x.data(), y.data(),
                                          chain::kTensorBytes);
        e != QNN_SUCCESS) {
      *error = "graphExecute: " + qnn_error(e);
      ok = false;
    } else {
      row->outputs_matched += chain::max_abs_diff(y.data(), want) <= chain::kTolerance;
    }
  }
  row->heap_bytes = heap.bytes_in_use() - heap0;
  row->rss_bytes = rss_bytes() - std::min(rss0, rss_bytes());
  release();
  row->heap_left = static_cast<int64_t>(heap.bytes_in_use()) - static_cast<int64_t>(heap0);
  if (ok && row->outputs_matched != static_cast<size_t>(n)) {
    *error = std::to_string(n - static_cast<int>(row->outputs_matched)) + " output(s) differ from the reference";
    ok = false;
  }
  return ok;
}

MemoryResult run_memory(const DspHeap& heap, Qnn_BackendHandle_t backend) {
  MemoryResult r;
  const chain::Weights weights = chain::make_weights();
  chain::ChainGraphBuilder builder(qnn(), weights);  // its tensor templates serve every execute below
  std::vector<uint8_t> binary;
  {
    OnlineContext online(backend, &r.error);
    if (online.handle == nullptr || !builder.build(online.handle, kChainGraphName, &r.error) ||
        !chain::get_context_binary(qnn(), online.handle, &binary, &r.error)) {
      return r;
    }
  }
  r.binary_bytes = binary.size();
  for (int n : kMemoryContextCounts) {
    for (bool shared : {true, false}) {
      MemoryRow row;
      if (!measure_contexts(heap, backend, binary, builder, weights, shared, n, &row, &r.error)) {
        r.error = std::string(shared ? "shared" : "own") + ", N=" + std::to_string(n) + ": " + r.error;
        return r;
      }
      r.rows.push_back(row);
    }
  }
  // One context's needs (the same for every context of the binary).
  SharingConfigs configs(QNN_PRIORITY_DEFAULT);
  LoadedContext one;
  if (one.create(backend, binary, configs, &r.error)) {
    r.spill_needed = one.spill_needed;
    r.backup_needed = one.backup_needed;
  }
  one.release();
  return r;
}

// ---------------------------------------------------------------------------
// (b) preemption.

// t1 = x + x, then t_k = t_{k-1} + t1 up to t_ops = out: `ops` adds of
// `elements` floats with t1 alive throughout, so every op boundary has live
// VTCM to save. One HVX thread, so the graph keeps one core busy and the
// tiny execute's thread has the other.
struct AddChain {
  uint32_t ops = 0;
  std::vector<uint32_t> dims;
  std::deque<std::string> names;  // what the tensors' name pointers point to
  Qnn_Tensor_t in = QNN_TENSOR_INIT, out = QNN_TENSOR_INIT;

  bool build(Qnn_ContextHandle_t ctx, const char* graph_name, uint32_t elements, uint32_t num_ops,
             uint64_t vtcm_budget, std::string* error) {
    ops = num_ops;
    dims = {1, elements};
    QnnHtpGraph_CustomConfig_t htp[2] = {{}, {}};
    htp[0].option = QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS;
    htp[0].numHvxThreads = 1;
    htp[1].option = QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES;
    htp[1].vtcmSizeInBytes = vtcm_budget;
    QnnGraph_Config_t cfg[2] = {QNN_GRAPH_CONFIG_INIT, QNN_GRAPH_CONFIG_INIT};
    for (int i = 0; i < 2; ++i) {
      cfg[i].option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
      cfg[i].customConfig = &htp[i];
    }
    const QnnGraph_Config_t* cfgs[] = {&cfg[0], &cfg[1], nullptr};
    Qnn_GraphHandle_t g = nullptr;
    if (Qnn_ErrorHandle_t e = qnn().graphCreate(ctx, graph_name, cfgs, &g); e != QNN_SUCCESS) {
      *error = "graphCreate: " + qnn_error(e);
      return false;
    }
    auto tensor = [&](Qnn_TensorType_t type) {
      Qnn_Tensor_t t = QNN_TENSOR_INIT;
      t.v1.name = names.emplace_back("t" + std::to_string(names.size())).c_str();
      t.v1.type = type;
      t.v1.dataType = QNN_DATATYPE_FLOAT_32;
      t.v1.rank = 2;
      t.v1.dimensions = dims.data();
      t.v1.memType = QNN_TENSORMEMTYPE_RAW;
      if (Qnn_ErrorHandle_t e = qnn().tensorCreateGraphTensor(g, &t); e != QNN_SUCCESS) {
        *error = "tensorCreateGraphTensor: " + qnn_error(e);
      }
      return t;
    };
    auto add = [&](Qnn_Tensor_t a, Qnn_Tensor_t b, Qnn_Tensor_t c) {
      Qnn_Tensor_t ins[2] = {a, b};
      Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
      op.v1.name = names.emplace_back("add" + std::to_string(names.size())).c_str();
      op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
      op.v1.typeName = QNN_OP_ELEMENT_WISE_ADD;
      op.v1.numOfInputs = 2;
      op.v1.inputTensors = ins;
      op.v1.numOfOutputs = 1;
      op.v1.outputTensors = &c;
      if (Qnn_ErrorHandle_t e = qnn().graphAddNode(g, op); e != QNN_SUCCESS) *error = "graphAddNode: " + qnn_error(e);
    };
    in = tensor(QNN_TENSOR_TYPE_APP_WRITE);
    Qnn_Tensor_t t1 = QNN_TENSOR_INIT;
    if (ops > 1) t1 = tensor(QNN_TENSOR_TYPE_NATIVE);
    out = tensor(QNN_TENSOR_TYPE_APP_READ);
    if (ops == 1) {
      add(in, in, out);
    } else {
      add(in, in, t1);
      Qnn_Tensor_t prev = t1;
      for (uint32_t k = 2; k < ops; ++k) {
        Qnn_Tensor_t next = tensor(QNN_TENSOR_TYPE_NATIVE);
        add(prev, t1, next);
        prev = next;
      }
      add(prev, t1, out);
    }
    if (!error->empty()) return false;
    if (Qnn_ErrorHandle_t e = qnn().graphFinalize(g, nullptr, nullptr); e != QNN_SUCCESS) {
      *error = "graphFinalize: " + qnn_error(e);
      return false;
    }
    return true;
  }

  // The same adds in the same order in plain C++.
  std::vector<float> reference(const std::vector<float>& x) const {
    std::vector<float> r(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const float t1 = x[i] + x[i];
      float t = t1;
      for (uint32_t k = 2; k <= ops; ++k) t = t + t1;
      r[i] = t;
    }
    return r;
  }
};

// The sub-events of the latest EXECUTE event recorded in `profile`, by
// identifier ("Num times yield occurred", "VTCM save time", ...).
std::map<std::string, uint64_t> last_execute_subevents(Qnn_ProfileHandle_t profile) {
  std::map<std::string, uint64_t> values;
  const QnnProfile_EventId_t* events = nullptr;
  uint32_t num_events = 0;
  if (qnn().profileGetEvents(profile, &events, &num_events) != QNN_SUCCESS) return values;
  for (uint32_t i = num_events; i-- > 0;) {
    QnnProfile_EventData_t d = QNN_PROFILE_EVENT_DATA_INIT;
    if (qnn().profileGetEventData(events[i], &d) != QNN_SUCCESS || d.type != QNN_PROFILE_EVENTTYPE_EXECUTE) continue;
    const QnnProfile_EventId_t* subs = nullptr;
    uint32_t num_subs = 0;
    if (qnn().profileGetSubEvents(events[i], &subs, &num_subs) != QNN_SUCCESS) return values;
    for (uint32_t k = 0; k < num_subs; ++k) {
      QnnProfile_EventData_t s = QNN_PROFILE_EVENT_DATA_INIT;
      if (qnn().profileGetEventData(subs[k], &s) == QNN_SUCCESS && s.identifier != nullptr) {
        values[s.identifier] = s.value;
      }
    }
    break;
  }
  return values;
}

struct Quantiles {
  double p50 = 0, p90 = 0;
  static Quantiles of(Samples& s) { return {s.median(), s.quantile(0.9)}; }
};

struct PreemptResult {
  std::string error;
  uint64_t spill_bytes = 0, backup_bytes = 0;
  Quantiles long_wall, long_accel, one_op_accel, tiny_alone, latency;
  int rounds = 0, preempted = 0, wrong_outputs = 0;
  // Rounds without a yield: the tiny execute found the HTP free, and of
  // those, how many were submitted after the long graphExecute had returned.
  int not_preempted = 0, submitted_after_return = 0;
  // Over the preempted rounds, from the low execute's profile.
  Quantiles yields, saved_bytes, save_us, restore_us;
  // Bytes of the client's VTCM-backup buffer (zero-filled before the
  // rounds) that the saves wrote.
  uint64_t backup_written = 0;
};

// The tiny graph of the session's context, with client buffers.
struct TinyGraph {
  ReluGraph graph;
  std::vector<float> x, y;
  Qnn_ErrorHandle_t execute() {
    return execute_raw(graph.handle, graph.in, graph.out, x.data(), y.data(), graph.bytes());
  }
  bool output_ok() const {
    for (size_t i = 0; i < x.size(); ++i) {
      if (y[i] != std::max(x[i], 0.0f)) return false;
    }
    return true;
  }
};

PreemptResult run_preemption(QnnSession& session, TinyGraph& tiny) {
  PreemptResult r;
  Qnn_BackendHandle_t backend = session.backend();
  // The tiny graph's context becomes HIGH; the long graph's is LOW.
  QnnContext_Config_t high = QNN_CONTEXT_CONFIG_INIT;
  high.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
  high.priority = QNN_PRIORITY_HIGH;
  const QnnContext_Config_t* high_list[] = {&high, nullptr};
  if (Qnn_ErrorHandle_t e = qnn().contextSetConfig(session.context(), high_list); e != QNN_SUCCESS) {
    r.error = "contextSetConfig(PRIORITY HIGH): " + qnn_error(e);
    return r;
  }

  // The long graph in a LOW context loaded the Non-RPC way, with its own
  // spill-fill and VTCM-backup buffers: a preemption saves its live VTCM
  // into the client's buffer. A VTCM budget of two tensors: an add with t1
  // alive needs three, so the chain spills a little too.
  const uint64_t tensor_bytes = uint64_t{kLongElements} * sizeof(float);
  AddChain long_chain, one_op;
  std::vector<uint8_t> binary;
  {
    OnlineContext online(backend, &r.error);
    if (online.handle == nullptr || !long_chain.build(online.handle, "long", kLongElements, kLongOps,
                                                      2 * tensor_bytes, &r.error) ||
        !one_op.build(online.handle, "one_op", kLongElements, 1, 2 * tensor_bytes, &r.error) ||
        !chain::get_context_binary(qnn(), online.handle, &binary, &r.error)) {
      return r;
    }
  }
  SharingConfigs low_configs(QNN_PRIORITY_LOW);
  LoadedContext low;
  BufferPair low_buffers;
  auto fail = [&](const std::string& why) {
    low.release();
    low_buffers.release();
    r.error = why;
    return r;
  };
  if (!low.create(backend, binary, low_configs, &r.error)) return fail(r.error);
  if (!low_buffers.allocate(std::max<uint64_t>(low.spill_needed, 1), std::max<uint64_t>(low.backup_needed, 1))) {
    return fail("malloc of the long graph's buffers failed");
  }
  r.spill_bytes = low.spill_needed;
  r.backup_bytes = low.backup_needed;
  Qnn_GraphHandle_t one_op_graph = nullptr;
  if (!low.register_buffers(low_buffers, &r.error) || !low.finalize("long", &r.error)) return fail(r.error);
  if (Qnn_ErrorHandle_t e = qnn().graphRetrieve(low.handle, "one_op", &one_op_graph); e != QNN_SUCCESS) {
    return fail("graphRetrieve(one_op): " + qnn_error(e));
  }

  std::vector<float> x(kLongElements), y(kLongElements);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : x) v = u(rng);
  const std::vector<float> want = long_chain.reference(x);
  // Relative: the chain's values grow with the number of ops.
  double largest = 0.0;
  for (float v : want) largest = std::max(largest, std::fabs(static_cast<double>(v)));
  const double tolerance = 1e-6 * largest;
  auto long_ok = [&] { return chain::max_abs_diff(y.data(), want) <= tolerance; };

  Qnn_ProfileHandle_t profile = nullptr;
  if (Qnn_ErrorHandle_t e = qnn().profileCreate(backend, QNN_PROFILE_LEVEL_BASIC, &profile); e != QNN_SUCCESS) {
    return fail("profileCreate: " + qnn_error(e));
  }
  auto accel_us = [&] { return static_cast<double>(last_execute_subevents(profile)["accelerator execute"]); };

  // Alone: the long graph, one of its ops, the tiny graph.
  Samples long_wall, long_accel, one_accel, tiny_alone;
  for (int i = 0; i < kLongAloneRuns && r.error.empty(); ++i) {
    const auto t0 = Clock::now();
    const Qnn_ErrorHandle_t e = execute_raw(low.graph, long_chain.in, long_chain.out, x.data(), y.data(),
                                            tensor_bytes, profile);
    const auto t1 = Clock::now();
    if (e != QNN_SUCCESS) r.error = "graphExecute(long): " + qnn_error(e);
    if (e == QNN_SUCCESS && !long_ok()) r.error = "the long graph's output differs from the reference";
    long_wall.add(elapsed_ns(t0, t1));
    long_accel.add(accel_us() * 1e3);
    if (execute_raw(one_op_graph, one_op.in, one_op.out, x.data(), y.data(), tensor_bytes, profile) == QNN_SUCCESS) {
      one_accel.add(accel_us() * 1e3);
    }
  }
  for (int i = 0; i < kTinyAloneCalls && r.error.empty(); ++i) {
    const auto t0 = Clock::now();
    const Qnn_ErrorHandle_t e = tiny.execute();
    const auto t1 = Clock::now();
    if (e != QNN_SUCCESS) r.error = "graphExecute(tiny): " + qnn_error(e);
    tiny_alone.add(elapsed_ns(t0, t1));
  }
  if (!r.error.empty()) {
    qnn().profileFree(profile);
    return fail(r.error);
  }
  r.long_wall = Quantiles::of(long_wall);
  r.long_accel = Quantiles::of(long_accel);
  r.one_op_accel = Quantiles::of(one_accel);
  r.tiny_alone = Quantiles::of(tiny_alone);

  // Rounds: the long graph starts on a thread of its own; the tiny one is
  // submitted at a random point of its run (15% to 60% of its duration
  // alone). Only rounds in which the long execute really yielded count: on a
  // loaded machine this thread may lose its CPU for milliseconds and submit
  // only after the long graph is done.
  Samples latency, yields, saved, save_us, restore_us;
  std::uniform_real_distribution<double> at(0.15, 0.6);
  const auto rounds_end = Clock::now() + std::chrono::duration<double>(kMaxPreemptSeconds);
  for (int round = 0; round < kMaxPreemptRounds && r.preempted < kPreemptSamples && Clock::now() < rounds_end;
       ++round) {
    std::atomic<bool> started{false};
    Qnn_ErrorHandle_t low_status = QNN_SUCCESS;
    std::fill(y.begin(), y.end(), std::nanf(""));
    Clock::time_point low_end;
    std::thread low_thread([&] {
      started.store(true, std::memory_order_release);
      low_status = execute_raw(low.graph, long_chain.in, long_chain.out, x.data(), y.data(), tensor_bytes, profile);
      low_end = Clock::now();
    });
    while (!started.load(std::memory_order_acquire)) {
    }
    // Slept, not spun: on a busy machine a spinning thread loses its CPU for
    // whole time slices (and then submits after the long graph is done),
    // while a thread that wakes up is scheduled ahead of CPU-bound ones.
    std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<int64_t>(at(rng) * r.long_wall.p50)));
    std::fill(tiny.y.begin(), tiny.y.end(), -1.0f);
    const auto t0 = Clock::now();
    const Qnn_ErrorHandle_t tiny_status = tiny.execute();
    const auto t1 = Clock::now();
    low_thread.join();
    ++r.rounds;
    if (low_status != QNN_SUCCESS || tiny_status != QNN_SUCCESS) {
      r.error = "graphExecute failed during the preemption rounds: " +
                qnn_error(low_status != QNN_SUCCESS ? low_status : tiny_status);
      break;
    }
    r.wrong_outputs += !long_ok() + !tiny.output_ok();
    auto ev = last_execute_subevents(profile);
    if (ev["Num times yield occurred"] == 0) {
      ++r.not_preempted;
      r.submitted_after_return += t0 >= low_end;
      continue;
    }
    ++r.preempted;
    latency.add(elapsed_ns(t0, t1));
    yields.add(static_cast<double>(ev["Num times yield occurred"]));
    saved.add(static_cast<double>(ev["VTCM saved on yield"]));
    save_us.add(static_cast<double>(ev["VTCM save time"]));
    restore_us.add(static_cast<double>(ev["VTCM restore time"]));
  }
  qnn().profileFree(profile);
  low.release();
  for (uint64_t i = 0; i < low_buffers.backup_bytes; ++i) r.backup_written += low_buffers.backup[i] != 0;
  low_buffers.release();
  r.latency = Quantiles::of(latency);
  r.yields = Quantiles::of(yields);
  r.saved_bytes = Quantiles::of(saved);
  r.save_us = Quantiles::of(save_us);
  r.restore_us = Quantiles::of(restore_us);
  if (r.error.empty() && r.wrong_outputs > 0) r.error = std::to_string(r.wrong_outputs) + " wrong output(s)";
  if (r.error.empty() && r.preempted == 0) r.error = "no round preempted the long graph";
  if (r.error.empty() && r.backup_written == 0) {
    r.error = "the yields saved nothing into the client's VTCM-backup buffer";
  }
  return r;
}

// ---------------------------------------------------------------------------
// (c) tiny executes against the raw ping-pong.

struct TinyResult {
  std::string error;
  // Per repetition, the per-call median in ns.
  std::vector<double> pingpong_spin, pingpong_no_spin, memhandle, client_buffer;
  uint64_t memhandle_bytes_copied = 0, client_bytes_copied = 0;
  double accel_p50_ns = 0;
};

// Per-call times of `call` (a callable returning the call's own ns) for up
// to kMaxCallsPerRep calls or kSecondsPerRep; the median.
template <typename Call>
double median_call_ns(Call call) {
  Samples s(kMaxCallsPerRep);
  const auto end = Clock::now() + std::chrono::duration<double>(kSecondsPerRep);
  for (int i = 0; i < kMaxCallsPerRep && (i < 100 || Clock::now() < end); ++i) s.add(call());
  return s.median();
}

TinyResult run_tiny(QnnSession& session, TinyGraph& tiny, RawPingPong& spin, RawPingPong& no_spin) {
  TinyResult r;
  if (!spin.ok() || !no_spin.ok()) {
    r.error = "raw ping-pong: " + (spin.ok() ? no_spin.error() : spin.error());
    return r;
  }
  // QURT-registered I/O: two DSP-heap blocks, memRegister'd as
  // QNN_HTP_MEM_QURT tensor memory shaped like the tiny graph's tensors.
  const uint64_t bytes = tiny.graph.bytes();
  auto* in = static_cast<float*>(std::malloc(bytes));
  auto* out = static_cast<float*>(std::malloc(bytes));
  Qnn_MemHandle_t handles[2] = {nullptr, nullptr};
  float* blocks[2] = {in, out};
  for (int i = 0; i < 2 && r.error.empty(); ++i) {
    QnnMemHtp_Descriptor_t htp{};
    htp.type = QNN_HTP_MEM_QURT;
    htp.size = bytes;
    htp.qurtAddress = qurt(blocks[i]);
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memShape = {static_cast<uint32_t>(tiny.graph.dims.size()), tiny.graph.dims.data(), nullptr};
    d.dataType = QNN_DATATYPE_FLOAT_32;
    d.memType = QNN_MEM_TYPE_CUSTOM;
    d.customInfo = &htp;
    if (Qnn_ErrorHandle_t e = qnn().memRegister(session.context(), &d, 1, &handles[i]); e != QNN_SUCCESS) {
      r.error = "memRegister(QNN_HTP_MEM_QURT): " + qnn_error(e);
    }
  }
  Qnn_Tensor_t mem_in = tiny.graph.in, mem_out = tiny.graph.out;
  mem_in.v1.memType = mem_out.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
  mem_in.v1.memHandle = handles[0];
  mem_out.v1.memHandle = handles[1];
  auto execute_memhandle = [&] {
    Qnn_Tensor_t a = mem_in, b = mem_out;  // graphExecute may update the tensors
    return qnn().graphExecute(tiny.graph.handle, &a, 1, &b, 1, nullptr, nullptr);
  };
  // Warm-up and checks: both ways compute Relu, and neither copies.
  for (uint32_t i = 0; i < kTinyElements; ++i) in[i] = tiny.x[i];
  std::fill(out, out + kTinyElements, -1.0f);
  OpenHtp_ExecuteStats_t st{};
  if (r.error.empty()) {
    for (int i = 0; i < 3; ++i) execute_memhandle();
    if (Qnn_ErrorHandle_t e = execute_memhandle(); e != QNN_SUCCESS) {
      r.error = "graphExecute(memhandle): " + qnn_error(e);
    }
    for (uint32_t i = 0; r.error.empty() && i < kTinyElements; ++i) {
      if (out[i] != std::max(in[i], 0.0f)) r.error = "wrong Relu output through the QURT memhandles";
    }
    OpenHtp_getLastExecuteStats(tiny.graph.handle, &st);
    r.memhandle_bytes_copied = st.bytesCopiedIn + st.bytesCopiedOut;
  }
  if (r.error.empty()) {
    std::fill(tiny.y.begin(), tiny.y.end(), -1.0f);
    if (Qnn_ErrorHandle_t e = tiny.execute(); e != QNN_SUCCESS || !tiny.output_ok()) {
      r.error = "graphExecute(client buffers): wrong output or " + qnn_error(e);
    }
    OpenHtp_getLastExecuteStats(tiny.graph.handle, &st);
    r.client_bytes_copied = st.bytesCopiedIn + st.bytesCopiedOut;
  }
  spin.warm_up();
  no_spin.warm_up();
  Samples accel;
  auto timed = [&](auto&& execute) {
    const auto t0 = Clock::now();
    const Qnn_ErrorHandle_t e = execute();
    const auto t1 = Clock::now();
    if (e != QNN_SUCCESS && r.error.empty()) r.error = "graphExecute: " + qnn_error(e);
    return elapsed_ns(t0, t1);
  };
  for (int rep = 0; rep < kRepetitions && r.error.empty(); ++rep) {
    r.pingpong_spin.push_back(median_call_ns([&] { return spin.timed_round_trip(); }));
    r.memhandle.push_back(median_call_ns([&] { return timed(execute_memhandle); }));
    r.pingpong_no_spin.push_back(median_call_ns([&] { return no_spin.timed_round_trip(); }));
    // The accelerator's own time is read on these executes only: the
    // memhandle ones run as a plain client's, with no DSP clock.
    OpenHtp_setDspTiming(tiny.graph.handle, 1);
    r.client_buffer.push_back(median_call_ns([&] {
      const double ns = timed([&] { return tiny.execute(); });
      OpenHtp_getLastExecuteStats(tiny.graph.handle, &st);
      accel.add(static_cast<double>(st.dspExecuteNs));
      return ns;
    }));
    OpenHtp_setDspTiming(tiny.graph.handle, 0);
  }
  r.accel_p50_ns = accel.median();
  for (Qnn_MemHandle_t& h : handles) {
    if (h != nullptr) qnn().memDeRegister(&h, 1);
  }
  std::free(in);
  std::free(out);
  return r;
}

// ---------------------------------------------------------------------------
// Output.

class Json {
 public:
  explicit Json(std::ofstream& f) : f_(f) {}
  void error_or_null(const std::string& e) {
    if (e.empty()) {
      f_ << "null";
    } else {
      f_ << '"';
      for (char c : e) f_ << (c == '"' || c == '\\' ? "\\" : "") << (c == '\n' ? ' ' : c);
      f_ << '"';
    }
  }
  void list(const std::vector<double>& v) {
    f_ << '[';
    for (size_t i = 0; i < v.size(); ++i) f_ << (i ? ", " : "") << v[i];
    f_ << ']';
  }
  void quantiles(const char* name, const Quantiles& q) {
    f_ << "\"" << name << "\": {\"p50\": " << q.p50 << ", \"p90\": " << q.p90 << "}";
  }

 private:
  std::ofstream& f_;
};

void write_json(const std::string& path, const std::string& fatal, const MemoryResult& m, const PreemptResult& p,
                const TinyResult& t) {
  std::ofstream f(path);
  Json j(f);
  f << "{\n  \"bench\": \"bench_nonrpc\",\n  \"error\": ";
  j.error_or_null(fatal);
  if (!fatal.empty()) {
    f << "\n}\n";
    return;
  }
  f << ",\n  \"memory\": {\"error\": ";
  j.error_or_null(m.error);
  f << ", \"binary_bytes\": " << m.binary_bytes << ", \"spill_needed\": " << m.spill_needed
    << ", \"backup_needed\": " << m.backup_needed << ", \"results\": [";
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const MemoryRow& r = m.rows[i];
    f << (i ? "," : "") << "\n    {\"config\": \"" << r.config << "\", \"n\": " << r.n
      << ", \"heap_bytes\": " << r.heap_bytes << ", \"rss_bytes\": " << r.rss_bytes
      << ", \"buffer_bytes\": " << r.buffer_bytes << ", \"heap_left\": " << r.heap_left << "}";
  }
  f << "]},\n  \"preemption\": {\"error\": ";
  j.error_or_null(p.error);
  f << ", \"long_ops\": " << kLongOps << ", \"long_elements\": " << kLongElements
    << ", \"spill_bytes\": " << p.spill_bytes << ", \"backup_bytes\": " << p.backup_bytes
    << ", \"rounds\": " << p.rounds << ", \"preempted\": " << p.preempted
    << ", \"backup_written\": " << p.backup_written << ", \"not_preempted\": " << p.not_preempted
    << ", \"submitted_after_return\": " << p.submitted_after_return
    << ",\n    ";
  j.quantiles("long_wall_ns", p.long_wall);
  f << ", ";
  j.quantiles("long_accel_ns", p.long_accel);
  f << ", ";
  j.quantiles("one_op_accel_ns", p.one_op_accel);
  f << ",\n    ";
  j.quantiles("tiny_alone_ns", p.tiny_alone);
  f << ", ";
  j.quantiles("latency_ns", p.latency);
  f << ",\n    ";
  j.quantiles("yields", p.yields);
  f << ", ";
  j.quantiles("vtcm_saved_bytes", p.saved_bytes);
  f << ", ";
  j.quantiles("save_us", p.save_us);
  f << ", ";
  j.quantiles("restore_us", p.restore_us);
  f << "},\n  \"tiny\": {\"error\": ";
  j.error_or_null(t.error);
  f << ", \"elements\": " << kTinyElements << ", \"memhandle_bytes_copied\": " << t.memhandle_bytes_copied
    << ", \"client_buffer_bytes_copied\": " << t.client_bytes_copied << ", \"accel_p50_ns\": " << t.accel_p50_ns
    << ",\n    \"pingpong_spin_ns\": ";
  j.list(t.pingpong_spin);
  f << ", \"pingpong_no_spin_ns\": ";
  j.list(t.pingpong_no_spin);
  f << ",\n    \"memhandle_ns\": ";
  j.list(t.memhandle);
  f << ", \"client_buffer_ns\": ";
  j.list(t.client_buffer);
  f << "}\n}\n";
}

double mib(uint64_t b) { return static_cast<double>(b) / (1 << 20); }

void print_memory(const MemoryResult& m) {
  std::printf("\n(a) memory: N contexts from one %llu-byte binary (the spilling chain graph); one context needs a "
              "%llu B spill-fill + %llu B VTCM-backup buffer\n",
              static_cast<unsigned long long>(m.binary_bytes), static_cast<unsigned long long>(m.spill_needed),
              static_cast<unsigned long long>(m.backup_needed));
  std::printf("    %-7s %3s %14s %12s %14s %16s\n", "buffers", "N", "heap MiB", "RSS MiB", "buffers MiB",
              "heap left (B)");
  for (const MemoryRow& r : m.rows) {
    std::printf("    %-7s %3d %14.3f %12.3f %14.3f %16lld\n", r.config, r.n, mib(r.heap_bytes), mib(r.rss_bytes),
                mib(r.buffer_bytes), static_cast<long long>(r.heap_left));
  }
  if (!m.error.empty()) std::printf("    (a) CANNOT RUN / FAILED: %s\n", m.error.c_str());
}

void print_preemption(const PreemptResult& p) {
  std::printf("\n(b) preemption: a %u-op add chain over %u floats (LOW) vs the tiny Relu (HIGH)\n", kLongOps,
              kLongElements);
  if (!p.error.empty() && p.rounds == 0) {
    std::printf("    (b) CANNOT RUN / FAILED: %s\n", p.error.c_str());
    return;
  }
  std::printf("    long graph alone: wall p50 %.0f us, accelerator p50 %.0f us (%.1f us per op); one op alone "
              "%.1f us\n",
              p.long_wall.p50 / 1e3, p.long_accel.p50 / 1e3, p.long_accel.p50 / 1e3 / kLongOps,
              p.one_op_accel.p50 / 1e3);
  std::printf("    its own spill-fill buffer %llu B, VTCM-backup buffer %llu B (LOW context, concurrent sharing)\n",
              static_cast<unsigned long long>(p.spill_bytes), static_cast<unsigned long long>(p.backup_bytes));
  std::printf("    tiny alone: p50 %.0f ns, p90 %.0f ns\n", p.tiny_alone.p50, p.tiny_alone.p90);
  std::printf("    tiny while the long graph runs (%d of %d rounds preempted it; %d found the HTP free, %d of them "
              "submitted after the long execute had returned): p50 %.1f us, p90 %.1f us\n",
              p.preempted, p.rounds, p.not_preempted, p.submitted_after_return, p.latency.p50 / 1e3,
              p.latency.p90 / 1e3);
  std::printf("    low execute's profile (p50): %.0f yield(s), %.0f B VTCM saved, save %.0f us, restore %.0f us; "
              "%llu B of its VTCM-backup buffer written\n",
              p.yields.p50, p.saved_bytes.p50, p.save_us.p50, p.restore_us.p50,
              static_cast<unsigned long long>(p.backup_written));
  if (!p.error.empty()) std::printf("    (b) FAILED: %s\n", p.error.c_str());
}

void print_tiny(const TinyResult& t) {
  std::printf("\n(c) tiny execute (Relu over %u floats) in the Non-RPC domain, per-call medians per repetition (ns)\n",
              kTinyElements);
  auto row = [](const char* name, const std::vector<double>& v) {
    std::printf("    %-26s", name);
    for (double x : v) std::printf(" %9.0f", x);
    std::printf("\n");
  };
  row("raw ping-pong (spin)", t.pingpong_spin);
  row("raw ping-pong (no spin)", t.pingpong_no_spin);
  row("QURT memhandle I/O", t.memhandle);
  row("client buffers", t.client_buffer);
  std::printf("    bytes copied per execute: memhandle %llu, client buffers %llu; accelerator p50 %.0f ns\n",
              static_cast<unsigned long long>(t.memhandle_bytes_copied),
              static_cast<unsigned long long>(t.client_bytes_copied), t.accel_p50_ns);
  if (!t.error.empty()) std::printf("    (c) CANNOT RUN / FAILED: %s\n", t.error.c_str());
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: openhtp-dsp-run %s [--json PATH]\n", argv[0]);
      return 2;
    }
  }
  const DspHeap heap = DspHeap::find();
  if (!heap.present()) {
    const std::string why = "not in the Non-RPC domain (this process has no DSP heap); run it through the launcher: " +
                            launcher_command();
    std::printf("bench_nonrpc: CANNOT RUN: %s\n", why.c_str());
    if (!json_path.empty()) write_json(json_path, why, {}, {}, {});
    return 1;
  }
  // The ping-pong children are forked first, before QNN starts any thread.
  RawPingPong spin({-1, -1, 0}), no_spin({0, -1, 0});

  QnnSession& session = QnnSession::get(Transport::kFastRpc);  // the domain decides: Non-RPC here
  std::printf("bench_nonrpc: Non-RPC domain (DSP heap present), %u CPUs\n", std::thread::hardware_concurrency());
  const MemoryResult memory = run_memory(heap, session.backend());
  print_memory(memory);

  TinyGraph tiny;
  std::string error;
  tiny.graph = session.build_relu("tiny", kTinyElements, &error);
  tiny.x.resize(kTinyElements);
  tiny.y.resize(kTinyElements);
  for (uint32_t i = 0; i < kTinyElements; ++i) tiny.x[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  PreemptResult preemption;
  TinyResult tiny_result;
  if (tiny.graph.handle == nullptr) {
    preemption.error = tiny_result.error = "building the tiny graph: " + error;
  } else {
    tiny_result = run_tiny(session, tiny, spin, no_spin);
    preemption = run_preemption(session, tiny);
  }
  print_preemption(preemption);
  print_tiny(tiny_result);

  if (!json_path.empty()) {
    write_json(json_path, "", memory, preemption, tiny_result);
    std::printf("\nJSON written to %s\n", json_path.c_str());
  }
  QnnSession::teardown_all();
  return memory.error.empty() && preemption.error.empty() && tiny_result.error.empty() ? 0 : 1;
}
