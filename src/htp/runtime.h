// The HTP runtime: contexts, prepared graphs, registered memory, the device's
// VTCM and the rule that one graph runs at a time — everything the DSP side
// of QNN owns, behind one typed API (docs/design.md §2–§4).
//
// Two doors open onto it and neither adds rules of its own:
//   - FastRPC: the skel (src/dsp/htp_skel/) decodes each remote call
//     (src/ipc/htp_protocol.h), makes one call here, encodes the status;
//   - in-process (and, later, Non-RPC): libQnnHtp calls it directly.
// The runtime knows nothing of remote_arg or QNN handles: it deals in ids it
// hands out itself, typed requests and plain memory.
//
// Every method is safe to call from any thread and returns a Status: the QNN
// error code plus, on failure, one line naming the rule and the value. The
// client side (libQnnHtp) validates first; these checks are the runtime's
// own, because a door may be fed by anything (a crafted remote call, a
// corrupted binary) and the runtime must not trust it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "QnnCommon.h"
#include "htp/call_control.h"
#include "htp/device_spec.h"
#include "htp/graph_spec.h"
#include "htp/htp_scheduler.h"
#include "htp/mapped_range.h"
#include "htp/vtcm_plan.h"
#include "ops/op.h"

namespace openhtp::htp {

// One status type at every layer of the runtime: a QNN error code and, when
// it is not QNN_SUCCESS, why. Success carries no message and allocates
// nothing.
struct Status {
  Qnn_ErrorHandle_t code = QNN_SUCCESS;
  std::string message;

  bool ok() const { return code == QNN_SUCCESS; }
  static Status Ok() { return {}; }
  static Status Error(Qnn_ErrorHandle_t code, std::string message) { return {code, std::move(message)}; }
};

struct ContextOptions {
  uint32_t priority = 100;  // QNN_PRIORITY_DEFAULT
  // REGISTER_MULTI_CONTEXTS: the context whose spill-fill region this one
  // shares (0: a region of its own), and the group's maxSpillFillBuffer,
  // reserved up front so members never resize a region another one uses.
  uint64_t spill_fill_group = 0;
  uint64_t reserve_spill_fill_bytes = 0;
  // WEIGHT_SHARING_ENABLED: STATIC tensors of this context's graphs with the
  // same content (dtype, dims, encoding, bytes) are held once, in a pool of
  // the context's, refcounted by the graphs that read them; with an external
  // weights buffer each such content is placed in it once. Off: every graph
  // holds its own (docs/design.md, "Weight sharing").
  bool weight_sharing = false;
};

// What a prepared graph's plan needs (docs/design.md §3).
struct GraphInfo {
  uint64_t graph_id = 0;
  uint64_t arena_bytes = 0;       // all planned intermediate memory
  uint64_t vtcm_bytes = 0;        // of which in VTCM
  uint64_t spill_fill_bytes = 0;  // of which in the spill-fill region
};


enum class MemoryKind : uint32_t {
  kTensor = 0,     // ION / DMA_BUF / SHARED_BUFFER: bound to tensors at execute
  kWeights = 1,    // QNN_HTP_MEM_WEIGHTS_BUFFER: the context's weights move here at prepare
  kSpillFill = 2,  // QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER: the context's spill-fill region
  kVtcmBackup = 3, // QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER (Non-RPC): where a preempted graph's VTCM is saved
};
const char* memory_kind_name(MemoryKind k);

// One graph input or output of an execute: either registered memory
// (`mem_id`, from register_memory) or a raw buffer (`data`, `bytes`).
struct ExecBinding {
  uint32_t tensor_id = 0;
  uint64_t mem_id = 0;     // 0: a raw buffer
  void* data = nullptr;    // raw buffer (mem_id == 0)
  uint64_t bytes = 0;      // bytes at `data`
  bool operator==(const ExecBinding&) const = default;
};

// A graph step's time over every execute since node timing began (a step
// is a node, or a fused producer + epilogue named "conv_3+relu_3").
struct StepTime {
  std::string name;
  uint64_t total_ns = 0;
  uint64_t runs = 0;
  // CPU time per thread that ran the step's kernels (index 0: the executing
  // thread, then the pools' workers as they were first seen; thread_clocks.h).
  std::vector<uint64_t> thread_ns;
};

// Whether an execute reads the clock around its kernels for
// ExecResult::exec_ns. Two TSC reads were ~15 ns of a ~125 ns tiny in-process
// execute; a client that neither profiles nor asks for the DSP time
// (OpenHtp_setDspTiming) does not pay for them.
enum class ExecTiming : uint8_t { kMeasure, kSkip };

struct ExecResult {
  uint64_t exec_ns = 0;  // time inside the graph's kernels' loop, on the "DSP" (pauses excluded); 0 unmeasured
  uint32_t threads = 0;  // threads the graph's kernels ran on
  // Preemption (htp_scheduler.h): how often this execute yielded the HTP to
  // a higher-priority one, and what saving and restoring its live VTCM cost.
  uint32_t yields = 0;
  uint64_t vtcm_saved_bytes = 0;  // over all yields (restored: the same)
  uint64_t vtcm_save_ns = 0, vtcm_restore_ns = 0;
  // Waits: queued for the HTP before starting (another graph held it), and
  // paused while higher-priority executes ran (preempted).
  uint64_t queue_wait_ns = 0, preempted_ns = 0;
};

// A graph's priority: QNN's levels (QNN_PRIORITY_LOW 0 … CRITICAL_PLUS 500),
// or kInheritPriority for "its context's" (QNN's rule: a context's priority
// is the default of its graphs, a graph's own overrides it).
inline constexpr uint32_t kInheritPriority = 0xffffffffu;

// Sees executes from inside, on the executing thread: a seam for tests and
// tools (RuntimeOptions::observer). Both calls happen with the HTP held.
class ExecObserver {
 public:
  virtual ~ExecObserver() = default;
  // Before step `next_step` (> 0) of graph `graph_id`.
  virtual void at_op_boundary(uint64_t graph_id, size_t next_step) {
    (void)graph_id;
    (void)next_step;
  }
  // A preempted graph's live VTCM was just saved into `backup` (its
  // context's VTCM-backup buffer); it is restored from there when the graph
  // resumes.
  virtual void vtcm_saved(uint64_t graph_id, uint8_t* backup, size_t backup_bytes) {
    (void)graph_id;
    (void)backup;
    (void)backup_bytes;
  }
};

struct RuntimeStats {
  uint32_t contexts = 0;
  uint32_t graphs = 0;
  uint32_t mems = 0;
  uint32_t mappings = 0;  // distinct memory ranges held by registrations
  // STATIC tensor data the runtime holds in its own memory: every graph's own
  // copies plus each weight-sharing pool entry once (not what kernels pack
  // for themselves, not what sits in external weights buffers).
  uint64_t static_bytes = 0;
  // Of the contexts' external weights buffers, the bytes weights were placed in.
  uint64_t weights_buffer_bytes = 0;
  // Weight-sharing pool entries read by two or more STATIC tensors, and those
  // tensors: one content two graphs share counts once here, twice there.
  uint32_t shared_weights = 0;
  uint32_t shared_tensors = 0;
};

struct RuntimeOptions {
  DeviceSpec device = kDevice;
  // Fast kernels the door links (src/kernels); empty: reference kernels only.
  std::span<const ops::FastPath> fast_paths;
  ExecObserver* observer = nullptr;  // must outlive the runtime
  // The most memory one graph's tensors (STATIC + NATIVE) and spill-fill
  // region may need; a prepare over it is refused before anything is
  // allocated (QNN_COMMON_ERROR_MEM_ALLOC, naming both sizes). 0: the
  // default, OPENHTP_DSP_MEMORY_BUDGET_MB if set, else half the machine's
  // physical memory.
  uint64_t memory_budget_bytes = 0;
};

class Runtime {
 public:
  // Virtual so that libQnnHtp can drive a runtime that lives in the skel
  // library it dlopens (the in-process door) without linking the kernels.
  virtual ~Runtime() = default;

  virtual Status create_context(const ContextOptions& options, uint64_t* context_id) = 0;
  // Drops the context's graphs and memory registrations with it.
  virtual Status free_context(uint64_t context_id) = 0;

  // Prepares `spec` in the context: kernels chosen and built, intermediates
  // planned (held to `stored` when a context binary supplied its plan), and,
  // when the context has an external weights buffer, the weights moved into
  // it. `spec` is consumed.
  // `control` (may be null): the caller's signal, looked at between nodes;
  // an aborted or timed-out prepare returns QNN_GRAPH_ERROR_ABORTED /
  // QNN_GRAPH_ERROR_TIMED_OUT and keeps nothing.
  virtual Status prepare_graph(uint64_t context_id, GraphSpec spec, const StoredPlan* stored, GraphInfo* info,
                               const CallControl* control = nullptr) = 0;
  virtual Status free_graph(uint64_t graph_id) = 0;
  // NUM_HVX_THREADS on a prepared graph: every kernel is prepared again on a
  // pool of the new size (the client allows it until the first execute).
  virtual Status set_graph_threads(uint64_t graph_id, uint32_t num_threads) = 0;
  // The graph's plan, as a context binary stores it.
  virtual Status graph_plan(uint64_t graph_id, StoredPlan* plan) = 0;
  // Per-step times of a graph's executes (DETAILED profiling). The first call
  // turns the timing on (two clock reads per step from then on) and returns
  // the totals so far; a caller diffs two calls around an execute.
  virtual Status node_times(uint64_t graph_id, std::vector<StepTime>* steps) = 0;
  // Priorities (QNN's levels): a context's is the default of its graphs
  // (every graph without one of its own follows a change); a graph's own
  // (kInheritPriority: none) overrides it. Executes waiting for the HTP are
  // served by priority and a higher one preempts a lower one at the next op
  // boundary (htp_scheduler.h).
  virtual Status set_context_priority(uint64_t context_id, uint32_t priority) = 0;
  virtual Status set_graph_priority(uint64_t graph_id, uint32_t priority) = 0;

  // Registers [offset, offset + size) of `memory` on the context. The
  // runtime holds `memory` until the registration (or its context) goes.
  virtual Status register_memory(uint64_t context_id, MemoryKind kind, std::shared_ptr<const MappedRange> memory,
                                 uint64_t offset, uint64_t size, uint64_t* mem_id) = 0;
  virtual Status deregister_memory(uint64_t mem_id) = 0;

  // Runs the graph once. Every graph input and output is bound exactly once;
  // a memory handle must be registered on the graph's context and cover the
  // tensor; a raw buffer must hold the tensor's bytes. Allocates nothing once
  // the graph has run before.
  // `control` (may be null): the caller's signal, looked at while the
  // execute waits for the HTP and at every op boundary; an aborted or
  // timed-out execute returns QNN_GRAPH_ERROR_ABORTED /
  // QNN_GRAPH_ERROR_TIMED_OUT (its outputs are then undefined) and leaves
  // the graph ready for the next one.
  virtual Status execute(uint64_t graph_id, std::span<const ExecBinding> inputs, std::span<const ExecBinding> outputs,
                         ExecResult* result, const CallControl* control = nullptr,
                         ExecTiming timing = ExecTiming::kMeasure) = 0;

  virtual RuntimeStats stats() const = 0;
  virtual const DeviceSpec& device() const = 0;
};

std::unique_ptr<Runtime> make_runtime(const RuntimeOptions& options);

}  // namespace openhtp::htp
