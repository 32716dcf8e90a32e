#include "htp/runtime.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <unordered_map>

#include "QnnContext.h"
#include "QnnGraph.h"
#include "QnnMem.h"
#include "common/current_exception.h"
#include "common/interval_clock.h"
#include "htp/prepared_graph.h"
#include "htp/region_memory.h"

namespace openhtp::htp {

const char* memory_kind_name(MemoryKind k) {
  switch (k) {
    case MemoryKind::kTensor: return "tensor memory";
    case MemoryKind::kWeights: return "weights buffer";
    case MemoryKind::kSpillFill: return "spill-fill buffer";
    case MemoryKind::kVtcmBackup: return "VTCM-backup buffer";
  }
  return "?";
}

namespace {

Status error(Qnn_ErrorHandle_t code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
Status error(Qnn_ErrorHandle_t code, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return Status::Error(code, buf);
}

using ull = unsigned long long;

// A slice of registered memory: what a context's external buffer is.
struct MemorySlice {
  std::shared_ptr<const MappedRange> memory;
  uint64_t offset = 0, size = 0;
  uint8_t* data() const { return memory->base() + offset; }
};

// A context's memory: its spill-fill region is one buffer shared by all its
// graphs (only one graph runs at a time), as large as the largest graph's
// plan — and by every context of a spill-fill group. Changed only with the
// HTP held exclusively, so a running graph never sees it move.
struct ContextMemory {
  RegionMemory spill_fill;                 // internal, when no external one is registered
  std::optional<MemorySlice> external_spill_fill;
  std::optional<MemorySlice> weights;      // external weights buffer (FastRPC, DEFER_GRAPH_INIT)
  std::optional<MemorySlice> vtcm_backup;  // external VTCM-backup buffer (Non-RPC)
  RegionMemory own_vtcm_backup;            // otherwise, made at the first preemption
  uint64_t weights_used = 0;
};

// Weight sharing (ContextOptions::weight_sharing): one STATIC content,
// held once for every graph of the context that has it. Owned by the graphs
// that read it (GraphRecord::shared); the pool only finds it.
struct SharedWeight {
  TensorSpec meta;  // dtype, dims, encoding (no name, no data)
  uint64_t hash = 0;
  StaticBytes storage;                        // the runtime's copy (empty when in a weights buffer)
  std::shared_ptr<const MappedRange> buffer;  // the external weights buffer holding it, kept mapped
  uint8_t* data = nullptr;                    // where graphs read it
  size_t size = 0;

  bool matches(const TensorSpec& t, std::span<const uint8_t> bytes, uint64_t h) const {
    return hash == h && size == bytes.size() && same_static_meta(meta, t) &&
           (size == 0 || std::memcmp(data, bytes.data(), size) == 0);
  }
};

// A context's weights by content hash; a hash hit is confirmed by comparing
// the encoding and every byte.
struct WeightPool {
  mutable std::mutex mu;
  std::unordered_multimap<uint64_t, std::weak_ptr<SharedWeight>> by_hash;

  std::shared_ptr<SharedWeight> find(const TensorSpec& t, std::span<const uint8_t> bytes, uint64_t h) {
    auto [lo, hi] = by_hash.equal_range(h);
    for (auto it = lo; it != hi;) {
      std::shared_ptr<SharedWeight> w = it->second.lock();
      if (!w) {
        it = by_hash.erase(it);  // every graph that read it is gone
        continue;
      }
      if (w->matches(t, bytes, h)) return w;
      ++it;
    }
    return nullptr;
  }
};

struct ContextRecord {
  uint32_t priority = 0;
  std::shared_ptr<ContextMemory> memory;
  std::shared_ptr<WeightPool> weight_pool;  // null: weight sharing off
};

struct GraphRecord {
  uint64_t context_id = 0;
  std::shared_ptr<ContextMemory> memory;
  // The pooled weights the graph reads: declared before `graph`, so that they
  // outlive its kernels.
  std::vector<std::shared_ptr<SharedWeight>> shared;
  std::unique_ptr<PreparedGraph> graph;
  // The graph's own PRIORITY config (kInheritPriority: its context's), and
  // the one its executes run at. Written under mu_ and read by executes
  // without it.
  uint32_t own_priority = kInheritPriority;
  std::atomic<uint32_t> priority{QNN_PRIORITY_DEFAULT};
  // The bindings `graph` holds from its last execute, as the caller sent
  // them; current while bound_removals == removals_ (no registration those
  // ids name has gone). An execute that sends the same ones again — the
  // usual loop over the same buffers — skips resolving and binding them.
  // Touched only by whoever holds the HTP.
  std::vector<ExecBinding> bound_inputs, bound_outputs;
  uint64_t bound_removals = ~0ull;
};

struct Registration {
  uint64_t context_id = 0;
  MemoryKind kind = MemoryKind::kTensor;
  MemorySlice slice;
};

// The last execute's resolution of graph and memory ids, reused while no
// graph or registration has been removed since (`removals` unchanged): a
// repeated execute then needs no table lookups. Raw pointers are safe
// because every removal holds the HTP exclusively, and an execute holds it
// from lookup to the end of the run — that is also what keeps the mappings
// alive.
struct ExecMemo {
  static constexpr size_t kMaxMems = 32;  // a linear scan must stay short
  uint64_t removals = ~0ull;
  uint64_t graph_id = 0;
  GraphRecord* graph = nullptr;
  struct Mem {
    uint64_t id;
    uint64_t context_id;
    uint8_t* data;
    uint64_t size;
  };
  std::vector<Mem> mems;
};

class RuntimeImpl final : public Runtime {
 public:
  explicit RuntimeImpl(const RuntimeOptions& options) : options_(options), budget_(budget_of(options)) {}

  Status create_context(const ContextOptions& options, uint64_t* context_id) override {
    return guarded("contextCreate", [&] { return do_create_context(options, context_id); });
  }
  Status free_context(uint64_t context_id) override {
    return guarded("contextFree", [&] { return do_free_context(context_id); });
  }
  Status prepare_graph(uint64_t context_id, GraphSpec spec, const StoredPlan* stored, GraphInfo* info,
                       const CallControl* control) override {
    return guarded("graphPrepare",
                   [&] { return do_prepare_graph(context_id, std::move(spec), stored, info, control); });
  }
  Status free_graph(uint64_t graph_id) override {
    return guarded("graphFree", [&] { return do_free_graph(graph_id); });
  }
  Status set_graph_threads(uint64_t graph_id, uint32_t num_threads) override {
    return guarded("graphSetThreads", [&] { return do_set_graph_threads(graph_id, num_threads); });
  }
  Status graph_plan(uint64_t graph_id, StoredPlan* plan) override {
    return guarded("graphPlan", [&] { return do_graph_plan(graph_id, plan); });
  }
  Status node_times(uint64_t graph_id, std::vector<StepTime>* steps) override {
    return guarded("graphNodeTimes", [&] { return do_node_times(graph_id, steps); });
  }
  Status set_context_priority(uint64_t context_id, uint32_t priority) override {
    return guarded("contextSetPriority", [&] { return do_set_priority(context_id, 0, priority); });
  }
  Status set_graph_priority(uint64_t graph_id, uint32_t priority) override {
    return guarded("graphSetPriority", [&] { return do_set_priority(0, graph_id, priority); });
  }
  Status register_memory(uint64_t context_id, MemoryKind kind, std::shared_ptr<const MappedRange> memory,
                         uint64_t offset, uint64_t size, uint64_t* mem_id) override {
    return guarded("memRegister",
                   [&] { return do_register_memory(context_id, kind, std::move(memory), offset, size, mem_id); });
  }
  Status deregister_memory(uint64_t mem_id) override {
    return guarded("memDeregister", [&] { return do_deregister_memory(mem_id); });
  }
  Status execute(uint64_t graph_id, std::span<const ExecBinding> inputs, std::span<const ExecBinding> outputs,
                 ExecResult* result, const CallControl* control, ExecTiming timing) override {
    return guarded("graphExecute", [&] { return do_execute(graph_id, inputs, outputs, result, control, timing); });
  }
  RuntimeStats stats() const override;
  const DeviceSpec& device() const override { return options_.device; }

 private:
  // Both doors hand the runtime's answer straight to a C caller: nothing
  // thrown underneath (an allocation, a kernel library) may escape.
  template <typename Fn>
  static Status guarded(const char* what, Fn&& fn) {
    try {
      return fn();
    } catch (...) {
      const CaughtException c = classify_current_exception();
      if (c.out_of_memory) return error(QNN_COMMON_ERROR_MEM_ALLOC, "%s: out of memory in the HTP runtime", what);
      return error(QNN_COMMON_ERROR_GENERAL, "%s: internal error in the HTP runtime: %s", what, c.what);
    }
  }

  Status do_create_context(const ContextOptions& options, uint64_t* context_id);
  Status do_free_context(uint64_t context_id);
  Status do_prepare_graph(uint64_t context_id, GraphSpec spec, const StoredPlan* stored, GraphInfo* info,
                          const CallControl* control);
  Status do_free_graph(uint64_t graph_id);
  Status do_set_graph_threads(uint64_t graph_id, uint32_t num_threads);
  Status do_graph_plan(uint64_t graph_id, StoredPlan* plan);
  Status do_node_times(uint64_t graph_id, std::vector<StepTime>* steps);
  // The graph's record (shared, so it outlives a concurrent free), or
  // INVALID_HANDLE naming the id. Takes mu_.
  Status find_graph(uint64_t graph_id, std::shared_ptr<GraphRecord>* rec);
  Status do_register_memory(uint64_t context_id, MemoryKind kind, std::shared_ptr<const MappedRange> memory,
                            uint64_t offset, uint64_t size, uint64_t* mem_id);
  Status do_deregister_memory(uint64_t mem_id);
  Status do_execute(uint64_t graph_id, std::span<const ExecBinding> inputs, std::span<const ExecBinding> outputs,
                    ExecResult* result, const CallControl* control, ExecTiming timing);
  Status do_set_priority(uint64_t context_id, uint64_t graph_id, uint32_t priority);
  // Sets memo_.graph, and fills in_b_/out_b_ unless the graph already holds
  // these bindings (*already_bound); caller holds the HTP.
  Status resolve(uint64_t graph_id, std::span<const ExecBinding> inputs, std::span<const ExecBinding> outputs,
                 bool* already_bound);
  // Moves the graph's STATIC tensors into the context's external weights
  // buffer (page-aligned, graph after graph). Caller holds the HTP.
  Status place_weights(ContextMemory& memory, PreparedGraph& graph);
  // The same with weight sharing: each STATIC tensor whose content the pool
  // already holds reads the pool's copy (its own is dropped); new contents
  // join the pool (moved there, or placed once in the weights buffer).
  // Decided before anything moves: a weights buffer too small changes
  // nothing. Caller holds the HTP.
  Status share_weights(WeightPool& pool, ContextMemory& memory, PreparedGraph& graph,
                       std::vector<std::shared_ptr<SharedWeight>>* refs);

  static uint64_t budget_of(const RuntimeOptions& options);

  const RuntimeOptions options_;
  const uint64_t budget_;  // RuntimeOptions::memory_budget_bytes, resolved
  // Lock order: the HTP (sched_) before mu_. Removing a graph or a
  // registration holds the HTP exclusively and mu_ (and bumps removals_);
  // an execute holds the HTP from lookup to the end of its run, pauses
  // included (an exclusive holder waits for paused executes to finish).
  mutable std::mutex mu_;  // guards the tables
  HtpScheduler sched_;     // the emulated HTP: one graph at a time, by priority (htp_scheduler.h)
  // Owned by whoever holds the HTP. A preempted execute keeps what it needs
  // in locals and its PreparedGraph, so the next holder may reuse these.
  ExecMemo memo_;
  uint64_t removals_ = 0;
  std::vector<TensorBinding> in_b_, out_b_;  // execute scratch, reused: the hot path does not allocate
  RegionMemory vtcm_;  // the device's VTCM, made at the first execute
  uint64_t next_id_ = 1;
  std::map<uint64_t, ContextRecord> contexts_;
  std::map<uint64_t, std::shared_ptr<GraphRecord>> graphs_;
  std::map<uint64_t, Registration> mems_;
};

Status RuntimeImpl::do_create_context(const ContextOptions& options, uint64_t* context_id) {
  HtpScheduler::Exclusive exec(sched_);  // may resize a region other graphs use
  std::lock_guard lock(mu_);
  std::shared_ptr<ContextMemory> memory;
  if (options.spill_fill_group != 0) {
    auto it = contexts_.find(options.spill_fill_group);
    if (it == contexts_.end()) {
      return error(QNN_CONTEXT_ERROR_INVALID_CONFIG, "spill-fill group: context %llu does not exist",
                   static_cast<ull>(options.spill_fill_group));
    }
    memory = it->second.memory;
  } else {
    memory = std::make_shared<ContextMemory>();
  }
  if (memory->spill_fill.size() < options.reserve_spill_fill_bytes) {
    memory->spill_fill = RegionMemory(options.reserve_spill_fill_bytes);
  }
  *context_id = next_id_++;
  contexts_[*context_id] =
      ContextRecord{options.priority, std::move(memory), options.weight_sharing ? std::make_shared<WeightPool>() : nullptr};
  return Status::Ok();
}

Status RuntimeImpl::do_free_context(uint64_t context_id) {
  std::vector<std::shared_ptr<GraphRecord>> dying;  // destroyed after the locks
  HtpScheduler::Exclusive exec(sched_);
  std::lock_guard lock(mu_);
  if (contexts_.erase(context_id) == 0) {
    return error(QNN_CONTEXT_ERROR_INVALID_HANDLE, "contextFree: context %llu does not exist",
                 static_cast<ull>(context_id));
  }
  ++removals_;
  for (auto it = graphs_.begin(); it != graphs_.end();) {
    if (it->second->context_id == context_id) {
      dying.push_back(std::move(it->second));
      it = graphs_.erase(it);
    } else {
      ++it;
    }
  }
  // Freeing a context releases every memory registration made on it.
  for (auto it = mems_.begin(); it != mems_.end();) {
    it = it->second.context_id == context_id ? mems_.erase(it) : std::next(it);
  }
  return Status::Ok();
}

Status RuntimeImpl::place_weights(ContextMemory& memory, PreparedGraph& graph) {
  const MemorySlice& w = *memory.weights;
  // Where each tensor goes, decided before anything is copied, so a buffer
  // too small changes nothing.
  std::vector<std::pair<uint32_t, uint64_t>> at;
  uint64_t used = memory.weights_used;
  for (const auto& t : graph.spec().tensors) {
    if (t.type != tensor_type::kStatic) continue;
    const uint64_t offset = options_.device.align_up(used);
    if (offset + t.static_data.size() > w.size) {
      return error(QNN_COMMON_ERROR_MEM_ALLOC,
                   "external weights buffer of %llu bytes is too small for the weights of graph '%s' (needs %llu)",
                   static_cast<ull>(w.size), graph.spec().name.c_str(),
                   static_cast<ull>(offset + t.static_data.size()));
    }
    at.emplace_back(t.id, offset);
    used = offset + t.static_data.size();
  }
  for (const auto& [id, offset] : at) {
    const TensorSpec* t = graph.spec().find_tensor(id);
    uint8_t* dst = w.data() + offset;
    std::memcpy(dst, t->static_data.data(), t->static_data.size());
    // From now on the graph reads this tensor from the client's buffer.
    graph.relocate_static(id, dst);
  }
  memory.weights_used = used;
  // The runtime's own copies were just dropped (relocate_static); hand their
  // pages back now, or the allocator keeps them and every context with an
  // external weights buffer still costs its weights once more.
  malloc_trim(0);
  return Status::Ok();
}

Status RuntimeImpl::share_weights(WeightPool& pool, ContextMemory& memory, PreparedGraph& graph,
                                  std::vector<std::shared_ptr<SharedWeight>>* refs) {
  std::lock_guard pool_lock(pool.mu);
  struct Use {
    uint32_t tensor_id;
    std::shared_ptr<SharedWeight> weight;
    bool owner;        // new content: this tensor's bytes become the pool's
    uint64_t offset;   // owner with a weights buffer: where it goes
  };
  std::vector<Use> uses;
  std::vector<std::shared_ptr<SharedWeight>> fresh;  // new in this graph
  const MemorySlice* w = memory.weights ? &*memory.weights : nullptr;
  uint64_t used = memory.weights_used;
  for (const TensorSpec& t : graph.spec().tensors) {
    if (t.type != tensor_type::kStatic || t.static_data.empty()) continue;
    const std::span<const uint8_t> bytes(t.static_data);
    const uint64_t h = static_content_hash(t, bytes);
    Use u{t.id, pool.find(t, bytes, h), false, 0};
    if (!u.weight) {
      for (const auto& f : fresh) {
        if (f->matches(t, bytes, h)) {
          u.weight = f;  // twice in this graph
          break;
        }
      }
    }
    if (!u.weight) {
      auto sw = std::make_shared<SharedWeight>();
      sw->meta.dtype = t.dtype;
      sw->meta.dims = t.dims;
      sw->meta.quant = t.quant;
      sw->hash = h;
      sw->size = bytes.size();
      sw->data = const_cast<uint8_t*>(bytes.data());  // the graph's copy until pass two
      if (w != nullptr) {
        u.offset = options_.device.align_up(used);
        if (u.offset + sw->size > w->size) {
          return error(QNN_COMMON_ERROR_MEM_ALLOC,
                       "external weights buffer of %llu bytes is too small for the weights of graph '%s' (needs %llu)",
                       static_cast<ull>(w->size), graph.spec().name.c_str(), static_cast<ull>(u.offset + sw->size));
        }
        used = u.offset + sw->size;
      }
      u.owner = true;
      u.weight = sw;
      fresh.push_back(std::move(sw));
    }
    uses.push_back(std::move(u));
  }
  bool dropped = false;
  for (Use& u : uses) {
    SharedWeight& sw = *u.weight;
    if (u.owner) {
      if (w != nullptr) {
        uint8_t* dst = w->data() + u.offset;
        std::memcpy(dst, sw.data, sw.size);
        graph.relocate_static(u.tensor_id, dst);
        sw.buffer = w->memory;
        sw.data = dst;
        dropped = true;
      } else {
        graph.release_static(u.tensor_id, &sw.storage);
        sw.data = const_cast<uint8_t*>(sw.storage.data());  // kernels only read static tensors
      }
      pool.by_hash.emplace(sw.hash, u.weight);
    } else {
      graph.relocate_static(u.tensor_id, sw.data);  // the graph's own copy goes
      dropped = true;
    }
    refs->push_back(std::move(u.weight));
  }
  memory.weights_used = used;
  if (dropped) malloc_trim(0);  // as place_weights: the dropped copies' pages go back now
  return Status::Ok();
}

uint64_t RuntimeImpl::budget_of(const RuntimeOptions& options) {
  if (options.memory_budget_bytes != 0) return options.memory_budget_bytes;
  if (const char* env = std::getenv("OPENHTP_DSP_MEMORY_BUDGET_MB"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && mb > 0) return static_cast<uint64_t>(mb) << 20;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2 : uint64_t{8} << 30;
}

Status RuntimeImpl::do_prepare_graph(uint64_t context_id, GraphSpec spec, const StoredPlan* stored, GraphInfo* info,
                                     const CallControl* control) {
  // The memory the graph's tensors could take, before anything is
  // allocated for them (saturating: a hostile shape is SIZE_MAX), and what
  // its kernels may add at prepare: a fast kernel's packed weights, or the
  // type adapter's FLOAT_32 copy of fixed-point or FLOAT_16 weights, is at
  // most one FLOAT_32 value per STATIC element, so each STATIC tensor is
  // counted as its bytes plus 4 per element (docs/design.md §3).
  auto add = [](uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; };
  uint64_t tensor_bytes = 0, kernel_bytes = 0;
  for (const TensorSpec& t : spec.tensors) {
    if (t.type != tensor_type::kNative && t.type != tensor_type::kStatic) continue;
    tensor_bytes = add(tensor_bytes, t.num_bytes());
    if (t.type == tensor_type::kStatic) {
      const size_t elements = t.num_bytes() / std::max<size_t>(1, ops::dtype::element_size(t.dtype));
      kernel_bytes = add(kernel_bytes, elements > UINT64_MAX / 4 ? UINT64_MAX : uint64_t{4} * elements);
    }
  }
  if (add(tensor_bytes, kernel_bytes) > budget_) {
    return error(QNN_COMMON_ERROR_MEM_ALLOC,
                 "graph '%s': its STATIC and NATIVE tensors need %llu bytes and its kernels' packed weights up to %llu "
                 "more, over the DSP memory budget of %llu bytes (OPENHTP_DSP_MEMORY_BUDGET_MB)",
                 spec.name.c_str(), static_cast<ull>(tensor_bytes), static_cast<ull>(kernel_bytes),
                 static_cast<ull>(budget_));
  }
  std::shared_ptr<ContextMemory> memory;
  std::shared_ptr<WeightPool> weight_pool;
  {
    std::lock_guard lock(mu_);
    auto it = contexts_.find(context_id);
    if (it == contexts_.end()) {
      return error(QNN_GRAPH_ERROR_INVALID_CONTEXT, "graphPrepare: context %llu does not exist",
                   static_cast<ull>(context_id));
    }
    memory = it->second.memory;
    weight_pool = it->second.weight_pool;
  }
  const DeviceSpec& dev = options_.device;
  if (spec.num_hvx_threads > dev.max_hvx_threads) {
    return error(QNN_GRAPH_ERROR_INVALID_ARGUMENT, "graph '%s': NUM_HVX_THREADS is %u, expected 1 to %u",
                 spec.name.c_str(), spec.num_hvx_threads, dev.max_hvx_threads);
  }
  PlanOptions plan;
  plan.fast_paths = options_.fast_paths;
  // The graph's VTCM size config lowers the budget; the device has no more.
  plan.vtcm_budget_bytes =
      spec.vtcm_budget_bytes == 0 ? dev.vtcm_bytes : std::min<uint64_t>(spec.vtcm_budget_bytes, dev.vtcm_bytes);
  plan.stored_placements = stored;
  plan.control = control;
  GraphError gerr;
  std::string why;
  const std::string name = spec.name;
  auto prepared = PreparedGraph::create(std::move(spec), plan, &gerr, &why);
  if (!prepared) {
    const Qnn_ErrorHandle_t e = gerr == GraphError::kInvalidOp      ? QNN_GRAPH_ERROR_INVALID_OP_CONFIG
                                : gerr == GraphError::kUnsupportedOp ? QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE
                                : gerr == GraphError::kAborted       ? QNN_GRAPH_ERROR_ABORTED
                                : gerr == GraphError::kTimedOut      ? QNN_GRAPH_ERROR_TIMED_OUT
                                                                     : QNN_GRAPH_ERROR_FINALIZE_FAILED;
    return Status::Error(e, "graph '" + name + "': " + why);
  }
  auto rec = std::make_shared<GraphRecord>();
  rec->context_id = context_id;
  rec->memory = memory;
  {
    std::lock_guard lock(mu_);
    if (auto c = contexts_.find(context_id); c != contexts_.end()) rec->priority = c->second.priority;
  }
  {
    HtpScheduler::Exclusive exec(sched_);  // never move a region under a running graph
    if (weight_pool) {
      if (Status s = share_weights(*weight_pool, *memory, *prepared, &rec->shared); !s.ok()) return s;
    } else if (memory->weights) {
      if (Status s = place_weights(*memory, *prepared); !s.ok()) return s;
    }
    if (!memory->external_spill_fill && memory->spill_fill.size() < prepared->spill_fill_bytes()) {
      if (prepared->spill_fill_bytes() > budget_) {
        return error(QNN_COMMON_ERROR_MEM_ALLOC,
                     "graph '%s': its spill-fill region of %zu bytes is over the DSP memory budget of %llu bytes "
                     "(OPENHTP_DSP_MEMORY_BUDGET_MB)",
                     prepared->spec().name.c_str(), prepared->spill_fill_bytes(), static_cast<ull>(budget_));
      }
      memory->spill_fill = RegionMemory(prepared->spill_fill_bytes());
    }
  }
  *info = GraphInfo{0, prepared->arena_bytes(), prepared->vtcm_bytes(), prepared->spill_fill_bytes()};
  rec->graph = std::move(prepared);
  std::lock_guard lock(mu_);
  if (contexts_.count(context_id) == 0) {  // freed while this graph was being prepared
    return error(QNN_GRAPH_ERROR_INVALID_CONTEXT, "graphPrepare: context %llu was freed", static_cast<ull>(context_id));
  }
  info->graph_id = next_id_++;
  graphs_[info->graph_id] = std::move(rec);
  return Status::Ok();
}

Status RuntimeImpl::do_free_graph(uint64_t graph_id) {
  std::shared_ptr<GraphRecord> dying;  // destroyed after the locks
  HtpScheduler::Exclusive exec(sched_);
  std::lock_guard lock(mu_);
  auto it = graphs_.find(graph_id);
  if (it == graphs_.end()) {
    return error(QNN_GRAPH_ERROR_INVALID_HANDLE, "graphFree: graph %llu does not exist", static_cast<ull>(graph_id));
  }
  ++removals_;
  dying = std::move(it->second);
  graphs_.erase(it);
  return Status::Ok();
}

Status RuntimeImpl::do_set_graph_threads(uint64_t graph_id, uint32_t num_threads) {
  const DeviceSpec& dev = options_.device;
  if (num_threads == 0 || num_threads > dev.max_hvx_threads) {
    return error(QNN_GRAPH_ERROR_INVALID_ARGUMENT, "graph %llu: NUM_HVX_THREADS is %u, expected 1 to %u",
                 static_cast<ull>(graph_id), num_threads, dev.max_hvx_threads);
  }
  HtpScheduler::Exclusive exec(sched_);  // no execute of any graph while kernels are replaced
  std::shared_ptr<GraphRecord> rec;
  if (Status s = find_graph(graph_id, &rec); !s.ok()) return s;
  std::string why;
  rec->bound_removals = ~0ull;  // new kernels: bind again
  if (rec->graph->set_num_threads(num_threads, &why) != GraphError::kNone) {
    return error(QNN_GRAPH_ERROR_INVALID_OP_CONFIG, "graph '%s' on %u threads: %s", rec->graph->spec().name.c_str(),
                 num_threads, why.c_str());
  }
  return Status::Ok();
}

Status RuntimeImpl::find_graph(uint64_t graph_id, std::shared_ptr<GraphRecord>* rec) {
  std::lock_guard lock(mu_);
  auto it = graphs_.find(graph_id);
  if (it == graphs_.end()) {
    return error(QNN_GRAPH_ERROR_INVALID_HANDLE, "graph %llu does not exist", static_cast<ull>(graph_id));
  }
  *rec = it->second;
  return Status::Ok();
}

Status RuntimeImpl::do_graph_plan(uint64_t graph_id, StoredPlan* plan) {
  std::shared_ptr<GraphRecord> rec;
  if (Status s = find_graph(graph_id, &rec); !s.ok()) return s;
  *plan = rec->graph->placements();
  return Status::Ok();
}

Status RuntimeImpl::do_node_times(uint64_t graph_id, std::vector<StepTime>* steps) {
  // No execute runs while the switch flips and the totals are read: the
  // steps' counters are the executing thread's otherwise.
  HtpScheduler::Exclusive exec(sched_);
  std::shared_ptr<GraphRecord> rec;
  if (Status s = find_graph(graph_id, &rec); !s.ok()) return s;
  rec->graph->set_node_profiling(true);
  steps->clear();
  for (const PreparedGraph::NodeProfile& n : rec->graph->node_profile()) {
    steps->push_back({n.name, n.total_ns, n.runs, n.thread_ns});
  }
  return Status::Ok();
}

Status RuntimeImpl::do_register_memory(uint64_t context_id, MemoryKind kind, std::shared_ptr<const MappedRange> memory,
                                       uint64_t offset, uint64_t size, uint64_t* mem_id) {
  if (!memory) return error(QNN_MEM_ERROR_INVALID_ARGUMENT, "memRegister: no memory given");
  if (!memory->contains(offset, size)) {
    return error(QNN_MEM_ERROR_INVALID_ARGUMENT, "memRegister: offset %llu + size %llu exceeds the buffer's %zu bytes",
                 static_cast<ull>(offset), static_cast<ull>(size), memory->size());
  }
  const DeviceSpec& dev = options_.device;
  if (kind != MemoryKind::kTensor && offset % dev.buffer_start_alignment != 0) {
    return error(QNN_MEM_ERROR_INVALID_ARGUMENT, "memRegister: a %s must start on a %llu-byte boundary (offset %llu)",
                 memory_kind_name(kind), static_cast<ull>(dev.buffer_start_alignment), static_cast<ull>(offset));
  }
  HtpScheduler::Exclusive exec(sched_);  // a context's region changes: never under a running graph
  std::lock_guard lock(mu_);
  auto ctx = contexts_.find(context_id);
  if (ctx == contexts_.end()) {
    return error(QNN_MEM_ERROR_INVALID_HANDLE, "memRegister: context %llu does not exist", static_cast<ull>(context_id));
  }
  ContextMemory& cm = *ctx->second.memory;
  MemorySlice slice{std::move(memory), offset, size};
  if (kind == MemoryKind::kWeights) {
    if (cm.weights) {
      return error(QNN_MEM_ERROR_ALREADY_REGISTERED, "memRegister: context %llu already has a weights buffer",
                   static_cast<ull>(context_id));
    }
    cm.weights = slice;
    cm.weights_used = 0;
  } else if (kind == MemoryKind::kSpillFill) {
    cm.external_spill_fill = slice;
    cm.spill_fill = RegionMemory();  // the client's buffer replaces the runtime's
  } else if (kind == MemoryKind::kVtcmBackup) {
    if (cm.vtcm_backup) {
      return error(QNN_MEM_ERROR_ALREADY_REGISTERED, "memRegister: context %llu already has a VTCM-backup buffer",
                   static_cast<ull>(context_id));
    }
    cm.vtcm_backup = slice;
  } else if (kind != MemoryKind::kTensor) {
    return error(QNN_MEM_ERROR_INVALID_ARGUMENT, "memRegister: memory kind %u is unknown", static_cast<unsigned>(kind));
  }
  *mem_id = next_id_++;
  mems_[*mem_id] = Registration{context_id, kind, std::move(slice)};
  return Status::Ok();
}

Status RuntimeImpl::do_deregister_memory(uint64_t mem_id) {
  HtpScheduler::Exclusive exec(sched_);  // never unmap under a running graph
  std::lock_guard lock(mu_);
  auto it = mems_.find(mem_id);
  if (it == mems_.end()) {
    return error(QNN_MEM_ERROR_INVALID_HANDLE, "memDeRegister: no memory registration %llu", static_cast<ull>(mem_id));
  }
  ++removals_;
  if (it->second.kind != MemoryKind::kTensor) {
    if (auto c = contexts_.find(it->second.context_id); c != contexts_.end()) {
      ContextMemory& cm = *c->second.memory;
      if (it->second.kind == MemoryKind::kWeights) cm.weights.reset();
      if (it->second.kind == MemoryKind::kSpillFill) cm.external_spill_fill.reset();
      if (it->second.kind == MemoryKind::kVtcmBackup) cm.vtcm_backup.reset();
    }
  }
  mems_.erase(it);
  return Status::Ok();
}

Status RuntimeImpl::resolve(uint64_t graph_id, std::span<const ExecBinding> inputs,
                            std::span<const ExecBinding> outputs, bool* already_bound) {
  std::unique_lock<std::mutex> tables;  // taken on the first memo miss
  if (memo_.removals != removals_) {
    memo_.removals = removals_;
    memo_.graph_id = 0;
    memo_.graph = nullptr;
    memo_.mems.clear();
  }
  if (memo_.graph == nullptr || memo_.graph_id != graph_id) {
    tables = std::unique_lock(mu_);
    auto it = graphs_.find(graph_id);
    if (it == graphs_.end()) {
      memo_.graph = nullptr;
      return error(QNN_GRAPH_ERROR_INVALID_HANDLE, "graphExecute: graph %llu does not exist", static_cast<ull>(graph_id));
    }
    memo_.graph_id = graph_id;
    memo_.graph = it->second.get();
  }
  const GraphRecord& rec = *memo_.graph;
  *already_bound = rec.bound_removals == removals_ && std::ranges::equal(inputs, rec.bound_inputs) &&
                   std::ranges::equal(outputs, rec.bound_outputs);
  if (*already_bound) return Status::Ok();
  const uint64_t context_id = rec.context_id;
  auto bind_all = [&](std::span<const ExecBinding> from, std::vector<TensorBinding>* to) -> Status {
    to->clear();
    for (const ExecBinding& b : from) {
      if (b.mem_id == 0) {
        to->push_back({b.tensor_id, b.data, static_cast<size_t>(b.bytes)});
        continue;
      }
      const ExecMemo::Mem* m = nullptr;
      for (const auto& cand : memo_.mems) {
        if (cand.id == b.mem_id) {
          m = &cand;
          break;
        }
      }
      if (m == nullptr) {
        if (!tables.owns_lock()) tables = std::unique_lock(mu_);
        auto it = mems_.find(b.mem_id);
        if (it == mems_.end() || it->second.kind != MemoryKind::kTensor) {
          return error(QNN_MEM_ERROR_INVALID_HANDLE, "graphExecute: tensor id %u: memory %llu is not registered tensor memory",
                       b.tensor_id, static_cast<ull>(b.mem_id));
        }
        const Registration& r = it->second;
        if (memo_.mems.size() >= ExecMemo::kMaxMems) memo_.mems.clear();
        memo_.mems.push_back({b.mem_id, r.context_id, r.slice.data(), r.slice.size});
        m = &memo_.mems.back();
      }
      if (m->context_id != context_id) {
        return error(QNN_MEM_ERROR_INVALID_HANDLE,
                     "graphExecute: tensor id %u: memory %llu belongs to context %llu, the graph to context %llu",
                     b.tensor_id, static_cast<ull>(b.mem_id), static_cast<ull>(m->context_id),
                     static_cast<ull>(context_id));
      }
      to->push_back({b.tensor_id, m->data, static_cast<size_t>(m->size)});
    }
    return Status::Ok();
  };
  if (Status s = bind_all(inputs, &in_b_); !s.ok()) return s;
  return bind_all(outputs, &out_b_);
}

Status RuntimeImpl::do_set_priority(uint64_t context_id, uint64_t graph_id, uint32_t priority) {
  if (priority > QNN_PRIORITY_HIGHEST && !(graph_id != 0 && priority == kInheritPriority)) {
    return error(QNN_COMMON_ERROR_INVALID_ARGUMENT, "priority %u is not a QNN priority level (0 to %u)", priority,
                 static_cast<unsigned>(QNN_PRIORITY_HIGHEST));
  }
  std::lock_guard lock(mu_);
  if (graph_id != 0) {
    auto g = graphs_.find(graph_id);
    if (g == graphs_.end()) {
      return error(QNN_GRAPH_ERROR_INVALID_HANDLE, "graphSetPriority: graph %llu does not exist",
                   static_cast<ull>(graph_id));
    }
    GraphRecord& rec = *g->second;
    rec.own_priority = priority;
    if (priority == kInheritPriority) {
      auto c = contexts_.find(rec.context_id);
      priority = c != contexts_.end() ? c->second.priority : static_cast<uint32_t>(QNN_PRIORITY_DEFAULT);
    }
    rec.priority.store(priority, std::memory_order_relaxed);
    return Status::Ok();
  }
  auto c = contexts_.find(context_id);
  if (c == contexts_.end()) {
    return error(QNN_CONTEXT_ERROR_INVALID_HANDLE, "contextSetPriority: context %llu does not exist",
                 static_cast<ull>(context_id));
  }
  c->second.priority = priority;
  for (auto& [id, rec] : graphs_) {
    if (rec->context_id == context_id && rec->own_priority == kInheritPriority) {
      rec->priority.store(priority, std::memory_order_relaxed);
    }
  }
  return Status::Ok();
}

namespace {

// Preemption at op boundaries, for one execute: saves the graph's live VTCM
// into its context's VTCM-backup buffer (the client's, when registered; the
// runtime's own otherwise), yields the HTP, restores on resume. Costs one
// relaxed load per boundary while nobody of higher priority waits.
class Preemption final : public YieldPoint {
 public:
  Preemption(HtpScheduler& sched, HtpScheduler::Ticket& ticket, ContextMemory& cm, uint8_t* vtcm, uint64_t graph_id,
             ExecObserver* observer, ExecResult* result, const CallControl* control)
      : sched_(sched), ticket_(ticket), cm_(cm), vtcm_(vtcm), graph_id_(graph_id), observer_(observer),
        result_(result), control_(control) {}

  GraphError stop() override {
    if (control_ == nullptr) return GraphError::kNone;
    switch (control_->check()) {
      case CallControl::Verdict::kAborted: return GraphError::kAborted;
      case CallControl::Verdict::kTimedOut: return GraphError::kTimedOut;
      case CallControl::Verdict::kGoOn: break;
    }
    return GraphError::kNone;
  }
  bool wanted() override { return sched_.preempt_wanted(ticket_); }

  void yield(const PreparedGraph& graph, size_t next_step) override {
    graph.live_vtcm_at(next_step, &live_);
    uint8_t* backup = nullptr;
    size_t backup_bytes = 0;
    if (cm_.vtcm_backup) {
      backup = cm_.vtcm_backup->data();
      backup_bytes = cm_.vtcm_backup->size;
    }
    if (backup_bytes < graph.vtcm_bytes()) {
      // No external buffer (or one registered before this graph grew the
      // need): the runtime's own, sized like MAX_VTCMBACKUP_BUFFER_SIZE.
      if (cm_.own_vtcm_backup.size() < graph.vtcm_bytes()) cm_.own_vtcm_backup = RegionMemory(graph.vtcm_bytes());
      backup = cm_.own_vtcm_backup.data();
      backup_bytes = cm_.own_vtcm_backup.size();
    }
    // Each range goes to the same offset in the backup: the backup mirrors
    // the graph's VTCM footprint, which is what MAX_VTCMBACKUP reports.
    uint64_t bytes = 0;
    const uint64_t t0 = interval_ticks();
    for (const RegionRange& r : live_) {
      std::memcpy(backup + r.offset, vtcm_ + r.offset, r.bytes);
      bytes += r.bytes;
    }
    const uint64_t t1 = interval_ticks();
    if (observer_ != nullptr) observer_->vtcm_saved(graph_id_, backup, backup_bytes);
    sched_.yield(ticket_);
    const uint64_t t2 = interval_ticks();
    for (const RegionRange& r : live_) std::memcpy(vtcm_ + r.offset, backup + r.offset, r.bytes);
    const uint64_t t3 = interval_ticks();
    ++result_->yields;
    result_->vtcm_saved_bytes += bytes;
    result_->vtcm_save_ns += interval_ns(t1 - t0);
    result_->vtcm_restore_ns += interval_ns(t3 - t2);
    paused_ticks_ += t2 - t1;
  }

  uint64_t paused_ticks() const { return paused_ticks_; }

 private:
  HtpScheduler& sched_;
  HtpScheduler::Ticket& ticket_;
  ContextMemory& cm_;
  uint8_t* vtcm_;
  uint64_t graph_id_;
  ExecObserver* observer_;
  ExecResult* result_;
  const CallControl* control_;
  std::vector<RegionRange> live_;
  uint64_t paused_ticks_ = 0;
};

}  // namespace

Status RuntimeImpl::do_execute(uint64_t graph_id, std::span<const ExecBinding> inputs,
                               std::span<const ExecBinding> outputs, ExecResult* result, const CallControl* control,
                               ExecTiming timing) {
  HtpScheduler::Ticket ticket;
  uint64_t queued_since = 0;
  if (!sched_.try_acquire(ticket)) {
    queued_since = interval_ticks();
    // Someone holds or waits for the HTP: queue at the graph's priority.
    {
      std::lock_guard lock(mu_);
      auto it = graphs_.find(graph_id);
      if (it == graphs_.end()) {
        return error(QNN_GRAPH_ERROR_INVALID_HANDLE, "graphExecute: graph %llu does not exist",
                     static_cast<ull>(graph_id));
      }
      ticket.priority = it->second->priority.load(std::memory_order_relaxed);
      const ContextMemory& cm = *it->second->memory;
      ticket.region = cm.external_spill_fill ? static_cast<const void*>(cm.external_spill_fill->data())
                                             : static_cast<const void*>(&cm);
    }
    if (const CallControl::Verdict v = sched_.acquire(ticket, control); v != CallControl::Verdict::kGoOn) {
      return v == CallControl::Verdict::kAborted
                 ? error(QNN_GRAPH_ERROR_ABORTED, "graphExecute: graph %llu: aborted while waiting for the HTP",
                         static_cast<ull>(graph_id))
                 : error(QNN_GRAPH_ERROR_TIMED_OUT, "graphExecute: graph %llu: timed out while waiting for the HTP",
                         static_cast<ull>(graph_id));
    }
  }
  struct Release {
    HtpScheduler& s;
    HtpScheduler::Ticket& t;
    ~Release() { s.release(t); }
  } release{sched_, ticket};
  bool already_bound = false;
  if (Status s = resolve(graph_id, inputs, outputs, &already_bound); !s.ok()) return s;
  if (vtcm_.data() == nullptr) vtcm_ = RegionMemory(options_.device.vtcm_bytes);
  // What this execute needs after a pause lives in locals: the next holder
  // of the HTP reuses memo_ and the binding scratch.
  GraphRecord* const rec = memo_.graph;
  ContextMemory& cm = *rec->memory;
  MemoryRegions regions{vtcm_.data(), vtcm_.size(), cm.spill_fill.data(), cm.spill_fill.size()};
  if (cm.external_spill_fill) {
    regions.spill_fill = cm.external_spill_fill->data();
    regions.spill_fill_size = cm.external_spill_fill->size;
  }
  ticket.priority = rec->priority.load(std::memory_order_relaxed);
  ticket.region = cm.external_spill_fill ? static_cast<const void*>(cm.external_spill_fill->data())
                                         : static_cast<const void*>(&cm);
  *result = ExecResult{};
  if (queued_since != 0) result->queue_wait_ns = interval_ns(interval_ticks() - queued_since);
  Preemption preemption(sched_, ticket, cm, vtcm_.data(), graph_id, options_.observer, result,
                        control != nullptr && control->bounded() ? control : nullptr);
  struct Observed final : YieldPoint {
    Preemption& inner;
    ExecObserver& observer;
    uint64_t graph_id;
    size_t boundary = 0;
    Observed(Preemption& i, ExecObserver& o, uint64_t g) : inner(i), observer(o), graph_id(g) {}
    GraphError stop() override { return inner.stop(); }
    bool wanted() override {
      observer.at_op_boundary(graph_id, ++boundary);
      return inner.wanted();
    }
    void yield(const PreparedGraph& graph, size_t next_step) override { inner.yield(graph, next_step); }
  };
  std::optional<Observed> observed;
  YieldPoint* yield_point = &preemption;
  if (options_.observer != nullptr) yield_point = &observed.emplace(preemption, *options_.observer, graph_id);
  PreparedGraph& graph = *rec->graph;
  std::string message;
  const bool timed = timing == ExecTiming::kMeasure;
  const uint64_t t0 = timed ? interval_ticks() : 0;
  const GraphError e = already_bound ? graph.execute_bound(regions, &message, yield_point)
                                     : graph.execute_serialized(in_b_, out_b_, regions, &message, yield_point);
  if (e == GraphError::kBadBinding) {
    rec->bound_removals = ~0ull;  // bound partly, or not at all
  } else if (!already_bound) {
    rec->bound_inputs.assign(inputs.begin(), inputs.end());
    rec->bound_outputs.assign(outputs.begin(), outputs.end());
    rec->bound_removals = removals_;
  }
  if (timed) result->exec_ns = interval_ns(interval_ticks() - t0 - preemption.paused_ticks());
  if (preemption.paused_ticks() != 0) result->preempted_ns = interval_ns(preemption.paused_ticks());
  result->threads = static_cast<uint32_t>(graph.num_threads());
  if (e == GraphError::kAborted) return Status::Error(QNN_GRAPH_ERROR_ABORTED, "graphExecute: " + message);
  if (e == GraphError::kTimedOut) return Status::Error(QNN_GRAPH_ERROR_TIMED_OUT, "graphExecute: " + message);
  if (e != GraphError::kNone) return Status::Error(QNN_GRAPH_ERROR_INVALID_TENSOR, "graphExecute: " + message);
  return Status::Ok();
}

RuntimeStats RuntimeImpl::stats() const {
  std::lock_guard lock(mu_);
  RuntimeStats s;
  s.contexts = static_cast<uint32_t>(contexts_.size());
  s.graphs = static_cast<uint32_t>(graphs_.size());
  s.mems = static_cast<uint32_t>(mems_.size());
  std::set<const MappedRange*> ranges;
  for (const auto& [id, r] : mems_) ranges.insert(r.slice.memory.get());
  s.mappings = static_cast<uint32_t>(ranges.size());
  std::set<const ContextMemory*> memories;
  for (const auto& [id, c] : contexts_) {
    if (memories.insert(c.memory.get()).second) s.weights_buffer_bytes += c.memory->weights_used;
    if (!c.weight_pool) continue;
    std::lock_guard pool_lock(c.weight_pool->mu);
    for (const auto& [h, weak] : c.weight_pool->by_hash) {
      if (auto w = weak.lock()) {
        s.static_bytes += w->storage.size();
        const auto readers = static_cast<uint32_t>(w.use_count() - 1);  // the graphs' references
        if (readers >= 2) {
          ++s.shared_weights;
          s.shared_tensors += readers;
        }
      }
    }
  }
  for (const auto& [id, g] : graphs_) {
    s.static_bytes += g->graph->own_static_bytes();
  }
  return s;
}

}  // namespace

std::unique_ptr<Runtime> make_runtime(const RuntimeOptions& options) {
  interval_ns(0);  // calibrates the execute clock now, not at the first execute
  return std::make_unique<RuntimeImpl>(options);
}

}  // namespace openhtp::htp
