// A finalized graph, ready to run: every node's kernel prepared once, every
// intermediate (NATIVE) tensor given a region — VTCM or spill-fill — and an
// offset in it by the VTCM planner (vtcm_plan.h), and a pointer table so that
// execute() only binds the caller's input/output buffers and runs the kernels
// in order.
//
// Kernel scratch is planned too (ops::OpKernel::workspace_bytes): each node's
// workspace is one more request to the planner, alive for that node only, so
// it shares memory with dead tensors and other nodes' workspaces, lands in
// VTCM or spill-fill like any intermediate and counts in vtcm_bytes() /
// spill_fill_bytes(). Nothing sized by activations is kept per kernel for the
// graph's life: N contexts of a graph cost N plans, not N plans plus every
// node's private copies. A NATIVE tensor read by a kernel with read slack
// (OpKernel::read_slack_bytes, XNNPACK's over-read) is planned with that
// slack, so the kernel reads it in place.
//
// Outputs are written straight into the buffers the caller binds — for a
// memhandle tensor that is the client's shared buffer itself. Intermediates
// live at `region base + planned offset` of the memory regions execute is
// given: the device's VTCM and the context's spill-fill buffer belong to the
// caller (the skel), not to the graph. The graph also owns a pair of buffers
// sized by its plan, used by the execute overload without regions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "htp/call_control.h"
#include "htp/fusion.h"
#include "htp/graph_spec.h"
#include "htp/region_memory.h"
#include "htp/thread_clocks.h"
#include "htp/vtcm_plan.h"
#include "ops/op.h"
#include "threads/cpu_preference.h"

namespace openhtp::htp {

struct TensorBinding {
  uint32_t tensor_id = 0;
  void* data = nullptr;
  size_t bytes = 0;  // bytes available at `data`
};

enum class GraphError {
  kNone = 0,
  kInvalidGraph,    // structural problem (QNN_GRAPH_ERROR_INVALID_TENSOR / FINALIZE_FAILED)
  kInvalidOp,       // a node fails its op definition (QNN_GRAPH_ERROR_INVALID_OP_CONFIG)
  kUnsupportedOp,   // valid QNN, unsupported here
  kBadBinding,      // execute: missing/unknown/too small I/O buffer
  kAborted,         // the caller's CallControl aborted the call
  kTimedOut,        // the caller's CallControl deadline passed
};

// How a graph is prepared.
struct PlanOptions {
  // VTCM this graph may use (graph config VTCM_SIZE_IN_MB / _IN_BYTES);
  // NATIVE tensors that do not fit go to the spill-fill region.
  size_t vtcm_budget_bytes = kDefaultVtcmBytes;
  // Fast kernels the runtime links (src/kernels); empty = reference only.
  std::span<const ops::FastPath> fast_paths;
  // A context binary's stored plan (tensor id -> placement): NATIVE tensors
  // listed here keep exactly these placements, the rest of the plan
  // (workspaces, tensors not listed) is made around them (vtcm_plan.h). A
  // placement that is misaligned, outside the VTCM budget, overlapping
  // another tensor alive at the same time, or for a tensor that is not a
  // planned NATIVE tensor, is refused with kInvalidGraph, naming the tensor
  // and the offset. Null: plan everything.
  const StoredPlan* stored_placements = nullptr;
  // The caller's bound (QnnSignal), looked at between nodes; null: none.
  const CallControl* control = nullptr;
  // Fuse producer -> epilogue nodes into one step (htp/fusion.h); on unless
  // OPENHTP_FUSION=off.
  bool fusion = fusion_enabled_by_env();
};

// The memory intermediates live in during one execute. Each region must hold
// at least what the plan needs (vtcm_bytes() / spill_fill_bytes()); a region
// the plan does not use may be null. Bases should be 64-byte aligned: planned
// offsets are, so every tensor then starts on a cache line.
struct MemoryRegions {
  uint8_t* vtcm = nullptr;
  size_t vtcm_size = 0;
  uint8_t* spill_fill = nullptr;
  size_t spill_fill_size = 0;
};

class PreparedGraph;

// Asked between two steps of an execute (never before the first or after the
// last): how the runtime preempts a running graph at an op boundary
// (htp_scheduler.h). Between steps no kernel thread is active, so the graph
// may be paused there.
class YieldPoint {
 public:
  virtual ~YieldPoint() = default;
  // Cheap: asked at every boundary. Non-kNone stops the execute there with
  // that error (the caller's signal aborted it or its deadline passed).
  virtual GraphError stop() { return GraphError::kNone; }
  virtual bool wanted() = 0;
  // Saves what `graph` needs before step `next_step` (live_vtcm_at), lets
  // others run, restores it.
  virtual void yield(const PreparedGraph& graph, size_t next_step) = 0;
};

// A byte range of a region.
struct RegionRange {
  size_t offset = 0;
  size_t bytes = 0;
};

class PreparedGraph {
 public:
  static std::unique_ptr<PreparedGraph> create(GraphSpec spec, const PlanOptions& options, GraphError* err,
                                               std::string* message);
  // Default options (8 MiB VTCM).
  static std::unique_ptr<PreparedGraph> create(GraphSpec spec, GraphError* err, std::string* message);

  // Runs the graph with its intermediates in `regions`. `inputs`/`outputs`
  // must bind every graph input/output exactly once. A region smaller than
  // the plan needs is refused with kBadBinding. Thread-safe (executions of
  // one graph are serialized). Allocates nothing.
  GraphError execute(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs,
                     const MemoryRegions& regions, std::string* message);
  // The same for a caller that already serializes every call on this graph
  // (htp::Runtime runs one graph at a time under its own lock): no second
  // lock on the hot path.
  // `yield_point` (may be null) is asked at every op boundary.
  GraphError execute_serialized(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs,
                                const MemoryRegions& regions, std::string* message, YieldPoint* yield_point = nullptr);
  // The same with the inputs and outputs the last execute_serialized bound
  // (it returned anything but kBadBinding): for a caller that knows they are
  // unchanged (htp::Runtime, when an execute sends the same bindings again).
  GraphError execute_bound(const MemoryRegions& regions, std::string* message, YieldPoint* yield_point = nullptr);
  // The VTCM ranges that hold tensors alive across the boundary before step
  // `next_step` (written by an earlier step, read by a later one): what a
  // graph paused there needs back. Kernel workspaces live one step and are
  // never in it. Fills `ranges` (cleared first), in offset order.
  void live_vtcm_at(size_t next_step, std::vector<RegionRange>* ranges) const;
  size_t num_steps() const { return steps_.size(); }
  // Same, with the graph's own VTCM and spill-fill buffers.
  GraphError execute(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs,
                     std::string* message);

  const GraphSpec& spec() const { return spec_; }

  // Makes the graph read STATIC tensor `tensor_id` from `data` (which must
  // hold its bytes and outlive the graph) and drops the graph's own copy:
  // how an external weights buffer replaces the runtime's weight memory.
  bool relocate_static(uint32_t tensor_id, uint8_t* data);
  // Hands STATIC tensor `tensor_id`'s bytes to the caller (a context's
  // weight pool): the graph keeps reading the same memory, which the caller
  // must keep alive as long as the graph. False (nothing moved) when the
  // tensor is not STATIC or its bytes were already relocated or released.
  bool release_static(uint32_t tensor_id, StaticBytes* bytes);
  // Where the graph reads STATIC tensor `tensor_id` from (null: not STATIC).
  const uint8_t* static_at(uint32_t tensor_id) const;
  // STATIC bytes the graph still holds itself (not relocated or released).
  size_t own_static_bytes() const;
  // All planned intermediate memory: VTCM plus spill-fill.
  size_t arena_bytes() const { return vtcm_bytes_ + spill_fill_bytes_; }
  size_t vtcm_budget_bytes() const { return vtcm_budget_bytes_; }
  size_t vtcm_bytes() const { return vtcm_bytes_; }              // <= vtcm_budget_bytes()
  size_t spill_fill_bytes() const { return spill_fill_bytes_; }  // 0 when everything fits in VTCM
  // Where a NATIVE tensor lives; nullopt for other tensors and for NATIVE
  // tensors no node uses (they get no memory).
  std::optional<TensorPlacement> placement(uint32_t tensor_id) const;
  // Every planned NATIVE tensor's (tensor id, placement): what a context
  // binary stores.
  StoredPlan placements() const;
  const std::vector<uint32_t>& input_ids() const { return input_ids_; }
  // Per-node timing, off by default (two clock reads per node when on).
  struct NodeProfile {
    std::string name, type, impl;
    uint64_t total_ns = 0, runs = 0;
    // Time per thread that ran the kernels, by thread number (0: the
    // executing thread; threads/share_times.h and thread_clocks.h say what
    // it counts).
    std::vector<uint64_t> thread_ns;
  };
  void set_node_profiling(bool on) { profile_nodes_ = on; }
  std::vector<NodeProfile> node_profile() const;
  // Threads the kernels run on (graph config NUM_HVX_THREADS, else the cores).
  size_t num_threads() const { return env_.num_threads; }
  // Gives the graph a pool of `threads` (0: the cores) and prepares every
  // kernel again on it, since kernels bind their pool when prepared (XNNPACK
  // runtimes, oneDNN primitives). Weights are read from wherever they live
  // now (an external weights buffer included). The new kernels' workspaces
  // (oneDNN's scratchpad depends on the thread count) are planned again
  // around the tensors, which keep their placements; if they no longer fit
  // the spill-fill size reported at finalize, which the context's region was
  // sized by, the call is refused (kInvalidGraph). On failure nothing changes.
  // QNN allows this until the graph's first execute; the caller enforces that.
  GraphError set_num_threads(size_t threads, std::string* message);
  const std::vector<uint32_t>& output_ids() const { return output_ids_; }

 private:
  // One kernel run: one node, or a fused producer + epilogue nodes
  // (htp/fusion.h), which runs at the producer's place in node order.
  struct Step {
    int node = 0;                // spec_.nodes index (the producer of a fused step)
    std::string name, type;      // the node's; fused: "conv_3+relu_3", "Conv2d+Relu"
    // Fused only: the epilogue (its residual, when there is one, is the
    // input after the producer's `op_inputs` own ones).
    std::optional<ops::Epilogue> epilogue;
    // A pointwise chain's step (fusion.h): its nodes, in order; `node` is the
    // first. Empty for any other step.
    std::vector<int> chain;
    // An Add -> LayerNorm step (fusion.h): the LayerNorm node; `node` is the
    // Add, in_slots its two operands then the LayerNorm's gamma and beta.
    // -1 for any other step.
    int fused_norm = -1;
    // A fused channel scale (fusion.h): in_slots[0] is x, and s is the last
    // input (after the residual, if any).
    bool input_scaled = false;
    // A fused channel mean (fusion.h): out_slots[1] is the ReduceMean's output.
    bool channel_mean = false;
    // A producer table (fusion.h): the chain's 256 answers, which the
    // convolution maps its codes through, and the slot of x, whose encoding
    // it quantizes into (out_slots[0] is the chain's output). Empty / -1
    // for any other step.
    std::vector<uint8_t> output_table;
    int output_as = -1;
    // A fused 8-bit residual (fusion.h): the slots of the producer's output
    // and (with a clamp after the Add) the Add's output, whose encodings the
    // kernel rounds to as the nodes did (ops::Epilogue). -1 otherwise.
    int producer_output = -1, sum_output = -1;
    size_t op_inputs = 0;
    std::unique_ptr<ops::OpKernel> kernel;
    std::string impl;           // which kernel prepare chose (ops::prepare_node)
    uint64_t total_ns = 0;      // time in run(), when node profiling is on
    uint64_t runs = 0;
    std::vector<uint64_t> thread_ns;  // time in run() per thread (thread number: 0 the executing thread), when profiling
    std::vector<int> in_slots;   // index into pointers_, -1 for an omitted input
    std::vector<int> out_slots;
    size_t pointers_at = 0;      // its inputs' then outputs' pointers in step_pointers_
    size_t workspace_bytes = 0;  // the kernel's, as planned
    TensorPlacement workspace;   // where, when workspace_bytes > 0
  };
  // The plan for a set of kernels (one per step).
  struct Plan {
    VtcmPlan regions;                 // natives_ first, then one entry per step with a workspace
    std::vector<size_t> workspace_of;  // per step: index in regions.placements, or SIZE_MAX
  };
  // A NATIVE tensor's slot and where the plan put it.
  struct PlacedSlot {
    int slot = 0;
    TensorPlacement where;
  };
  // create() once: moved_work false leaves out the fusions that move a
  // node's work to another place in node order (fusion.h's channel scale
  // and channel mean); *moved_any (may be null) tells whether a step took one.
  static std::unique_ptr<PreparedGraph> build(GraphSpec spec, const PlanOptions& options, bool moved_work,
                                              GraphError* err, std::string* message, bool* moved_any);
  PreparedGraph() = default;
  // Runs step n's kernel on the bound tensors (and its clocks, when node
  // profiling is on).
  void run_step(size_t n);
  // Fills step_pointers_ from pointers_ (each step's slots, in order).
  void gather_step_pointers();
  // Per step, on several threads: how many steps from it to the end of its
  // stretch (the steps that could share a thread team, up to one whose
  // kernel opens OpenMP regions itself) handed work to the pool, as the
  // first execute on these kernels saw (teams_learned_; sized at create so
  // that learning allocates nothing either). A team starts
  // only where two or more will: a lone splitting step opens one region
  // either way, and a graph whose kernels do not split (a tiny one, the
  // reference kernels) must not pay for one.
  std::vector<uint32_t> splitting_ahead_;
  // [step]: 1 when it may start while the step before it still runs on the
  // other threads (share_chain.h); made with the step pointers.
  std::vector<uint8_t> chained_;
  // [step]: 1 when it does not chain but the step before it splits in the
  // same shares: that one is left unjoined and this one's shares each wait
  // for all of it instead (threads::FencedShares).
  std::vector<uint8_t> fenced_;
  std::vector<size_t> wait_for_;   // [step]: ShareChain::Start::wait_for
  std::vector<uint32_t> job_of_;   // [step]: its loop's number in its team (threads::team_jobs), this execute
  bool teams_learned_ = false;
  // Where a one-thread graph's executes run (execute_bound).
  threads::CpuPreference cpu_preference_;
  // Builds a step's kernel from its slots on env_ (ops::prepare_node);
  // kernel == nullptr validates only.
  ops::Status prepare_kernel(const Step& step, std::unique_ptr<ops::OpKernel>* kernel, std::string* impl) const;
  // A pointwise chain's step (Step::chain): one kernel from the chain fast path.
  ops::Status prepare_chain_kernel(const Step& step, std::unique_ptr<ops::OpKernel>* kernel, std::string* impl) const;
  // The links of the chain of `nodes` (fusion.h), their tensors held in
  // ins / outs.
  ops::Status chain_links(const std::vector<int>& nodes, std::vector<std::vector<ops::TensorDesc>>* ins,
                          std::vector<std::vector<ops::TensorDesc>>* outs, std::vector<ops::ChainLink>* links) const;
  // env_'s fast path entry for pointwise chains (ops::kPointwiseChain), or null.
  const ops::FastPath* chain_path() const;
  // The 256 answers of the chain of `nodes`, from the chain fast path.
  ops::Status chain_table(const std::vector<int>& nodes, std::vector<uint8_t>* table) const;
  // An Add -> LayerNorm step (Step::fused_norm): one kernel from the fast
  // path for ops::kAddLayerNorm, given the step's tensors.
  ops::Status prepare_add_layer_norm_kernel(const Step& step, std::span<const ops::TensorDesc> ins,
                                            std::span<const ops::TensorDesc> outs,
                                            std::unique_ptr<ops::OpKernel>* kernel, std::string* impl) const;
  GraphError bind(std::span<const TensorBinding> bindings, bool outputs, std::string* message);
  GraphError bind_regions(const MemoryRegions& regions, std::string* message);
  // Plans natives_ and the workspaces of `kernels` (one per step); `fixed`
  // (empty, or one per natives_ entry) holds placements they must keep.
  GraphError make_plan(std::span<ops::OpKernel* const> kernels, std::span<const std::optional<TensorPlacement>> fixed,
                       Plan* plan, std::string* message) const;
  // Adopts `plan` (made for the current steps_' kernels).
  void apply_plan(const Plan& plan);

  struct PoolDelete {
    void operator()(pthreadpool* p) const;
  };

  GraphSpec spec_;
  // Declared before steps_: kernels hold env_.pool and must go first.
  std::unique_ptr<pthreadpool, PoolDelete> pool_;
  ops::KernelEnv env_;
  std::vector<Step> steps_;
  size_t vtcm_budget_bytes_ = kDefaultVtcmBytes;
  size_t vtcm_bytes_ = 0;
  size_t spill_fill_bytes_ = 0;
  std::vector<PlacedSlot> placed_;              // every planned NATIVE tensor
  // Planned NATIVE tensors (slots) and their lifetimes in node order.
  std::vector<int> natives_;
  std::vector<int> first_use_, last_use_;       // per slot, in steps; -1 when no step uses it
  RegionMemory own_vtcm_, own_spill_fill_;  // only for execute() without regions; made on first use
  std::mutex own_mu_;
  bool own_allocated_ = false;
  // Region bases pointers_ currently hold NATIVE tensors at: rebinding is
  // skipped while a caller keeps passing the same regions.
  uint8_t* bound_vtcm_ = nullptr;
  uint8_t* bound_spill_fill_ = nullptr;
  bool regions_bound_ = false;
  std::vector<void*> pointers_;                 // one per tensor (index in spec_.tensors)
  std::unordered_map<uint32_t, int> slot_of_id_;
  std::vector<uint32_t> input_ids_, output_ids_;
  // Slot of input_ids_[i] / output_ids_[i]: a caller binding in that order
  // (the usual case) needs no map lookup.
  std::vector<int> input_slots_, output_slots_;
  std::vector<size_t> slot_bytes_;              // num_bytes() of each tensor, computed once
  ThreadClocks thread_clocks_;                  // node profiling: CPU time of steps with regions of their own
  std::vector<uint64_t> clocks_before_, clocks_after_;
  // Each step's input and output pointers, gathered from pointers_ once
  // after a binding, a region or a static tensor moved (step_pointers_valid_
  // false), so that a step runs without looking its slots up: the usual
  // loop over the same buffers gathers nothing (XNNPACK's setup/run split).
  std::vector<void*> step_pointers_;
  bool step_pointers_valid_ = false;
  std::mutex run_mu_;
  bool profile_nodes_ = false;
};

const char* graph_error_name(GraphError e);

}  // namespace openhtp::htp
