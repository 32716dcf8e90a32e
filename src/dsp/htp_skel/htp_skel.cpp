// libQnnHtpSkel.so: the HTP runtime's face to FastRPC. Runs inside the DSP
// process (loaded by openhtp-cdsp) or, for in-process execution, inside the
// client. It owns the DSP-side objects — contexts, prepared graphs and
// registered memory — and unpacks each remote call into the runtime.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "QnnCommon.h"
#include "QnnContext.h"
#include "QnnGraph.h"
#include "QnnMem.h"
#include "binary/graph_codec.h"
#include "dsp/htp_skel/skel_interface.h"
#include "htp/prepared_graph.h"
#include "kernels/fast_paths.h"
#include "remote.h"

#define SKEL_EXPORT extern "C" __attribute__((visibility("default")))

namespace openhtp::skel {
namespace {

// A client buffer mapped into this process. Shared by every registration of
// the same buffer (identity = device + inode), unmapped with the last one.
struct Mapping {
  uint8_t* base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base != nullptr) munmap(base, size);
  }
};

struct MemRecord {
  uint64_t context_id;
  std::shared_ptr<Mapping> mapping;
  uint64_t offset;
  uint64_t size;
  uint32_t kind;
};

// A context's spill-fill region: one buffer shared by all its graphs (only one
// graph runs at a time), as large as the largest graph's plan. Resized only
// under exec_mu_, so a running graph never sees it move.
struct ContextMemory {
  std::vector<uint8_t> spill_fill;  // internal region, when no external one is registered
  // External buffers registered before contextFinalize (FastRPC, DEFER_GRAPH_INIT).
  std::shared_ptr<Mapping> weights, external_spill_fill;
  uint64_t weights_offset = 0, weights_size = 0, weights_used = 0;
  uint64_t spill_fill_offset = 0, spill_fill_size = 0;
};

struct GraphRecord {
  uint64_t context_id;
  std::shared_ptr<ContextMemory> memory;
  std::unique_ptr<htp::PreparedGraph> graph;
};

// The device's VTCM: one per emulated HTP, used by whichever graph runs.
constexpr size_t kDeviceVtcmBytes = htp::kDefaultVtcmBytes;

// What a method reports: the status block, and on failure the message that
// the client fetches by ticket (kErrorMessage).
struct Status : SkelStatus {
  bool has_message = false;
  char message[kErrorMessageBytes];
};

// The last execute's resolution of graph and memory ids, reused while no
// graph or registration has been removed since (`removals` unchanged): a
// repeated execute then needs no table lookups. Raw pointers are safe because
// every removal holds exec_mu_, which execute holds from lookup to the end of
// the run — that is also what keeps the mappings alive during the run.
constexpr size_t kMaxMemoMems = 32;

struct ExecMemo {
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

class Runtime {
 public:
  int dispatch(uint32_t sc, remote_arg* pra);

 private:
  void set_status(Status* st, Qnn_ErrorHandle_t e, const char* fmt, ...) __attribute__((format(printf, 4, 5)));
  void context_create(remote_arg* pra, Status* st);
  void context_free(remote_arg* pra, Status* st);
  void graph_prepare(remote_arg* pra, Status* st);
  void graph_free(remote_arg* pra, Status* st);
  void graph_set_threads(remote_arg* pra, Status* st);
  void mem_register(remote_arg* pra, Status* st);
  void mem_deregister(remote_arg* pra, Status* st);
  void graph_execute(uint32_t sc, remote_arg* pra, Status* st);
  bool resolve_bindings(uint32_t n_in, uint32_t n_out, remote_arg* pra, const ExecRequest& req, Status* st);
  void query(remote_arg* pra, Status* st);
  void error_message(remote_arg* pra, Status* st);
  // Stores a failure's text under a fresh ticket (the last kKeptErrors are kept).
  uint64_t keep_error_message(const char* text);

  static constexpr size_t kKeptErrors = 64;
  std::mutex errors_mu_;
  uint64_t next_ticket_ = 1;
  std::map<uint64_t, std::string> errors_;
  std::shared_ptr<Mapping> map_fd(int fd, std::string* why);

  // Lock order: exec_mu_ before mu_. Removing a graph or a registration
  // holds both (and bumps removals_); execute holds exec_mu_ throughout.
  std::mutex mu_;         // guards the tables
  std::mutex exec_mu_;    // the emulated HTP runs one graph at a time; guards the members below it
  ExecMemo memo_;
  uint64_t removals_ = 0;
  // Execute scratch, reused: the hot path does not allocate.
  std::vector<ExecBinding> binds_;
  std::vector<htp::TensorBinding> in_b_, out_b_;
  std::string exec_message_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::shared_ptr<ContextMemory>> contexts_;
  std::vector<uint8_t> vtcm_;  // allocated at the first execute; guarded by exec_mu_
  std::map<uint64_t, std::shared_ptr<GraphRecord>> graphs_;
  std::map<uint64_t, MemRecord> mems_;
  std::map<std::pair<uint64_t, uint64_t>, std::weak_ptr<Mapping>> mappings_;
};

Runtime& runtime() {
  static Runtime* r = new Runtime;  // lives as long as the process
  return *r;
}

template <typename T>
bool read_arg(const remote_arg& a, T* out) {
  if (a.buf.nLen != sizeof(T) || a.buf.pv == nullptr) return false;
  std::memcpy(out, a.buf.pv, sizeof(T));
  return true;
}

void Runtime::set_status(Status* st, Qnn_ErrorHandle_t e, const char* fmt, ...) {
  st->error = e;
  st->has_message = true;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(st->message, sizeof st->message, fmt, ap);
  va_end(ap);
}

int Runtime::dispatch(uint32_t sc, remote_arg* pra) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(sc), n_out = REMOTE_SCALARS_OUTBUFS(sc);
  if (n_out == 0) return AEE_EBADPARM;
  remote_arg& status_arg = pra[n_in + n_out - 1];
  if (status_arg.buf.nLen != sizeof(SkelStatus)) return AEE_EBADPARM;
  Status st;
  const uint32_t method = REMOTE_SCALARS_METHOD(sc);
  auto expect = [&](uint32_t in, uint32_t out, uint32_t hin) {
    return n_in == in && n_out == out && REMOTE_SCALARS_INHANDLES(sc) == hin;
  };
  bool shape_ok = true;
  switch (method) {
    case kContextCreate: (shape_ok = expect(1, 1, 0)) ? context_create(pra, &st) : void(); break;
    case kContextFree: (shape_ok = expect(1, 1, 0)) ? context_free(pra, &st) : void(); break;
    case kGraphPrepare: (shape_ok = expect(2, 2, 0)) ? graph_prepare(pra, &st) : void(); break;
    case kGraphFree: (shape_ok = expect(1, 1, 0)) ? graph_free(pra, &st) : void(); break;
    case kMemRegister: (shape_ok = expect(1, 1, 1)) ? mem_register(pra, &st) : void(); break;
    case kMemDeregister: (shape_ok = expect(1, 1, 0)) ? mem_deregister(pra, &st) : void(); break;
    case kGraphExecute: graph_execute(sc, pra, &st); break;
    case kQuery: (shape_ok = expect(0, 2, 0)) ? query(pra, &st) : void(); break;
    case kErrorMessage: (shape_ok = expect(1, 2, 0)) ? error_message(pra, &st) : void(); break;
    case kGraphSetThreads: (shape_ok = expect(1, 1, 0)) ? graph_set_threads(pra, &st) : void(); break;
    default: return AEE_EUNSUPPORTED;
  }
  if (!shape_ok) return AEE_EBADPARM;
  if (st.error != QNN_SUCCESS) st.id = keep_error_message(st.has_message ? st.message : "");
  std::memcpy(status_arg.buf.pv, static_cast<const SkelStatus*>(&st), sizeof(SkelStatus));
  return AEE_SUCCESS;
}

void Runtime::context_create(remote_arg* pra, Status* st) {
  ContextCreateReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_CONTEXT_ERROR_INVALID_ARGUMENT, "bad context request");
  std::lock_guard exec(exec_mu_);  // resizes a region other graphs may be using
  std::lock_guard lock(mu_);
  std::shared_ptr<ContextMemory> memory;
  if (req.share_spill_fill_with != 0) {
    // A spill-fill group: one region for every context of the group.
    auto it = contexts_.find(req.share_spill_fill_with);
    if (it == contexts_.end()) {
      return set_status(st, QNN_CONTEXT_ERROR_INVALID_CONFIG, "spill-fill group context %llu does not exist",
                        static_cast<unsigned long long>(req.share_spill_fill_with));
    }
    memory = it->second;
  } else {
    memory = std::make_shared<ContextMemory>();
  }
  if (memory->spill_fill.size() < req.reserve_spill_fill_bytes) memory->spill_fill.resize(req.reserve_spill_fill_bytes);
  st->id = next_id_++;
  contexts_[st->id] = std::move(memory);
}

void Runtime::context_free(remote_arg* pra, Status* st) {
  IdReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_CONTEXT_ERROR_INVALID_ARGUMENT, "bad request");
  std::vector<std::shared_ptr<GraphRecord>> dying;  // destroyed outside the lock
  std::lock_guard exec(exec_mu_);
  std::lock_guard lock(mu_);
  ++removals_;
  if (contexts_.erase(req.id) == 0) {
    return set_status(st, QNN_CONTEXT_ERROR_INVALID_HANDLE, "context %llu does not exist",
                      static_cast<unsigned long long>(req.id));
  }
  for (auto it = graphs_.begin(); it != graphs_.end();) {
    if (it->second->context_id == req.id) {
      dying.push_back(it->second);
      it = graphs_.erase(it);
    } else {
      ++it;
    }
  }
  // Freeing a context releases every memory handle registered on it.
  for (auto it = mems_.begin(); it != mems_.end();) {
    it = it->second.context_id == req.id ? mems_.erase(it) : std::next(it);
  }
}

void Runtime::graph_prepare(remote_arg* pra, Status* st) {
  IdReq req;
  if (!read_arg(pra[0], &req) || pra[2].buf.nLen != sizeof(PrepareResult)) {
    return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "bad request");
  }
  std::shared_ptr<ContextMemory> memory;
  {
    std::lock_guard lock(mu_);
    auto it = contexts_.find(req.id);
    if (it == contexts_.end()) {
      return set_status(st, QNN_GRAPH_ERROR_INVALID_CONTEXT, "context %llu does not exist",
                        static_cast<unsigned long long>(req.id));
    }
    memory = it->second;
  }
  htp::GraphSpec spec;
  std::string error;
  if (!binary::decode_graph(static_cast<const uint8_t*>(pra[1].buf.pv), pra[1].buf.nLen, &spec, &error)) {
    return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "%s", error.c_str());
  }
  // The graph's VTCM size config lowers the budget; the device has no more.
  htp::PlanOptions plan;
  // XNNPACK/oneDNN kernels unless OPENHTP_KERNELS=reference asks for the
  // reference kernels only (to compare or to rule the fast paths out).
  const char* kernels_env = std::getenv("OPENHTP_KERNELS");
  if (kernels_env == nullptr || std::strcmp(kernels_env, "reference") != 0) plan.fast_paths = kernels::fast_paths();
  plan.vtcm_budget_bytes = spec.vtcm_budget_bytes == 0 ? kDeviceVtcmBytes
                                                       : std::min<uint64_t>(spec.vtcm_budget_bytes, kDeviceVtcmBytes);
  htp::GraphError gerr;
  auto prepared = htp::PreparedGraph::create(std::move(spec), plan, &gerr, &error);
  if (!prepared) {
    Qnn_ErrorHandle_t e = gerr == htp::GraphError::kInvalidOp      ? QNN_GRAPH_ERROR_INVALID_OP_CONFIG
                          : gerr == htp::GraphError::kUnsupportedOp ? QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE
                                                                    : QNN_GRAPH_ERROR_FINALIZE_FAILED;
    return set_status(st, e, "%s", error.c_str());
  }
  auto rec = std::make_shared<GraphRecord>();
  rec->context_id = req.id;
  rec->memory = memory;
  st->arena_bytes = prepared->arena_bytes();
  const PrepareResult result{prepared->vtcm_bytes(), prepared->spill_fill_bytes()};
  std::memcpy(pra[2].buf.pv, &result, sizeof result);
  {
    std::lock_guard exec(exec_mu_);  // never move a region under a running graph
    if (memory->weights) {
      // contextFinalize with an external weights buffer: the weights move
      // into it (page-aligned, graph after graph) and the runtime's own copy
      // is dropped, so they are read from the client's buffer from now on.
      for (const auto& t : prepared->spec().tensors) {
        if (t.type != htp::tensor_type::kStatic) continue;
        const uint64_t bytes = t.static_data.size();
        const uint64_t at = (memory->weights_used + 4095) / 4096 * 4096;
        if (at + bytes > memory->weights_size) {
          return set_status(st, QNN_COMMON_ERROR_MEM_ALLOC,
                            "external weights buffer of %llu bytes is too small for the weights of graph '%s'",
                            static_cast<unsigned long long>(memory->weights_size), prepared->spec().name.c_str());
        }
        uint8_t* dst = memory->weights->base + memory->weights_offset + at;
        std::memcpy(dst, t.static_data.data(), bytes);
        prepared->relocate_static(t.id, dst);
        memory->weights_used = at + bytes;
      }
    }
    if (memory->spill_fill.size() < result.spill_fill_bytes && !memory->external_spill_fill) {
      memory->spill_fill.resize(result.spill_fill_bytes);
    }
  }
  rec->graph = std::move(prepared);
  std::lock_guard lock(mu_);
  st->id = next_id_++;
  graphs_[st->id] = std::move(rec);
}

void Runtime::graph_free(remote_arg* pra, Status* st) {
  IdReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "bad request");
  std::shared_ptr<GraphRecord> dying;  // destroyed outside the locks
  std::lock_guard exec(exec_mu_);
  std::lock_guard lock(mu_);
  ++removals_;
  auto it = graphs_.find(req.id);
  if (it == graphs_.end()) return set_status(st, QNN_GRAPH_ERROR_INVALID_HANDLE, "no graph %llu", (unsigned long long)req.id);
  dying = it->second;
  graphs_.erase(it);
}

void Runtime::graph_set_threads(remote_arg* pra, Status* st) {
  GraphThreadsReq req;
  if (!read_arg(pra[0], &req) || req.num_threads == 0) {
    return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "bad thread-count request");
  }
  std::lock_guard exec(exec_mu_);  // no execute of any graph while kernels are replaced
  std::shared_ptr<GraphRecord> rec;
  {
    std::lock_guard lock(mu_);
    auto it = graphs_.find(req.graph_id);
    if (it == graphs_.end()) {
      return set_status(st, QNN_GRAPH_ERROR_INVALID_HANDLE, "no graph %llu", (unsigned long long)req.graph_id);
    }
    rec = it->second;
  }
  std::string error;
  if (rec->graph->set_num_threads(req.num_threads, &error) != htp::GraphError::kNone) {
    return set_status(st, QNN_GRAPH_ERROR_INVALID_OP_CONFIG, "graph '%s' on %u threads: %s",
                      rec->graph->spec().name.c_str(), req.num_threads, error.c_str());
  }
}

std::shared_ptr<Mapping> Runtime::map_fd(int fd, std::string* why) {
  struct stat sb {};
  if (fstat(fd, &sb) != 0) {
    *why = "fstat failed";
    return nullptr;
  }
  const auto key = std::make_pair(static_cast<uint64_t>(sb.st_dev), static_cast<uint64_t>(sb.st_ino));
  if (auto existing = mappings_[key].lock()) return existing;
  if (sb.st_size <= 0) {
    *why = "the fd has no size";
    return nullptr;
  }
  void* p = mmap(nullptr, static_cast<size_t>(sb.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    *why = std::string("mmap failed: ") + std::strerror(errno);
    return nullptr;
  }
  auto m = std::make_shared<Mapping>();
  m->base = static_cast<uint8_t*>(p);
  m->size = static_cast<size_t>(sb.st_size);
  mappings_[key] = m;
  return m;
}

void Runtime::mem_register(remote_arg* pra, Status* st) {
  MemRegisterReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_MEM_ERROR_INVALID_ARGUMENT, "bad request");
  const int fd = pra[2].dma.fd;
  std::lock_guard exec(exec_mu_);
  std::lock_guard lock(mu_);
  if (contexts_.count(req.context_id) == 0) {
    return set_status(st, QNN_MEM_ERROR_INVALID_HANDLE, "context %llu does not exist",
                      static_cast<unsigned long long>(req.context_id));
  }
  std::string why;
  auto m = map_fd(fd, &why);
  if (!m) return set_status(st, QNN_MEM_ERROR_MAPPING, "cannot map fd: %s", why.c_str());
  if (req.offset > m->size || req.size > m->size - req.offset) {
    return set_status(st, QNN_MEM_ERROR_INVALID_ARGUMENT, "offset %llu + size %llu exceeds the buffer's %zu bytes",
                      static_cast<unsigned long long>(req.offset), static_cast<unsigned long long>(req.size), m->size);
  }
  if (req.kind == kMemWeights || req.kind == kMemSpillFill) {
    // The context's weights or spill-fill region from now on. Taken under
    // exec_mu_ (with mu_ released first) so no running graph sees it change.
    auto& ctx = contexts_[req.context_id];
    if (req.kind == kMemWeights) {
      ctx->weights = m;
      ctx->weights_offset = req.offset;
      ctx->weights_size = req.size;
      ctx->weights_used = 0;
    } else {
      ctx->external_spill_fill = m;
      ctx->spill_fill_offset = req.offset;
      ctx->spill_fill_size = req.size;
    }
  }
  st->id = next_id_++;
  mems_[st->id] = MemRecord{req.context_id, std::move(m), req.offset, req.size, req.kind};
}

void Runtime::mem_deregister(remote_arg* pra, Status* st) {
  IdReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_MEM_ERROR_INVALID_ARGUMENT, "bad request");
  std::lock_guard exec(exec_mu_);  // never unmap under a running graph
  std::lock_guard lock(mu_);
  ++removals_;
  auto it = mems_.find(req.id);
  if (it == mems_.end()) {
    return set_status(st, QNN_MEM_ERROR_INVALID_HANDLE, "no memory registration %llu",
                      static_cast<unsigned long long>(req.id));
  }
  if (it->second.kind != kMemTensor) {
    if (auto c = contexts_.find(it->second.context_id); c != contexts_.end()) {
      if (it->second.kind == kMemWeights) c->second->weights.reset();
      if (it->second.kind == kMemSpillFill) c->second->external_spill_fill.reset();
    }
  }
  mems_.erase(it);
}

void Runtime::graph_execute(uint32_t sc, remote_arg* pra, Status* st) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(sc), n_out = REMOTE_SCALARS_OUTBUFS(sc);
  if (n_in < 1 || pra[0].buf.nLen < sizeof(ExecRequest)) {
    return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "bad execute request");
  }
  ExecRequest req;
  std::memcpy(&req, pra[0].buf.pv, sizeof req);
  const uint64_t n_bind = static_cast<uint64_t>(req.num_inputs) + req.num_outputs;
  if (pra[0].buf.nLen != sizeof(ExecRequest) + n_bind * sizeof(ExecBinding)) {
    return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "execute request size mismatch");
  }
  std::lock_guard exec(exec_mu_);
  binds_.resize(n_bind);
  std::memcpy(binds_.data(), static_cast<uint8_t*>(pra[0].buf.pv) + sizeof(ExecRequest), n_bind * sizeof(ExecBinding));
  if (!resolve_bindings(n_in, n_out, pra, req, st)) return;
  exec_message_.clear();
  auto t0 = std::chrono::steady_clock::now();
  if (vtcm_.empty()) vtcm_.resize(kDeviceVtcmBytes);
  const ContextMemory& cm = *memo_.graph->memory;
  htp::MemoryRegions regions{vtcm_.data(), vtcm_.size(), nullptr, 0};
  if (cm.external_spill_fill) {
    regions.spill_fill = cm.external_spill_fill->base + cm.spill_fill_offset;
    regions.spill_fill_size = cm.spill_fill_size;
  } else {
    regions.spill_fill = const_cast<uint8_t*>(cm.spill_fill.data());
    regions.spill_fill_size = cm.spill_fill.size();
  }
  htp::GraphError e = memo_.graph->graph->execute(in_b_, out_b_, regions, &exec_message_);
  st->exec_threads = memo_.graph->graph->num_threads();
  st->exec_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  if (e != htp::GraphError::kNone) set_status(st, QNN_GRAPH_ERROR_INVALID_TENSOR, "%s", exec_message_.c_str());
}

// Fills in_b_/out_b_ from binds_ and points memo_.graph at the graph, from the
// memo when nothing was removed since it was made, else from the tables.
// Caller holds exec_mu_.
bool Runtime::resolve_bindings(uint32_t n_in, uint32_t n_out, remote_arg* pra, const ExecRequest& req, Status* st) {
  in_b_.clear();
  out_b_.clear();
  std::unique_lock<std::mutex> tables;  // taken on the first memo miss
  if (memo_.removals != removals_) {
    memo_.removals = removals_;
    memo_.graph_id = 0;
    memo_.graph = nullptr;
    memo_.mems.clear();
  }
  if (memo_.graph == nullptr || memo_.graph_id != req.graph_id) {
    tables = std::unique_lock(mu_);
    auto it = graphs_.find(req.graph_id);
    if (it == graphs_.end()) {
      memo_.graph = nullptr;
      set_status(st, QNN_GRAPH_ERROR_INVALID_HANDLE, "graph %llu does not exist",
                 static_cast<unsigned long long>(req.graph_id));
      return false;
    }
    memo_.graph_id = req.graph_id;
    memo_.graph = it->second.get();
  }
  const uint64_t context_id = memo_.graph->context_id;
  const uint64_t n_bind = binds_.size();
  for (uint64_t i = 0; i < n_bind; ++i) {
    const ExecBinding& b = binds_[i];
    htp::TensorBinding tb{b.tensor_id, nullptr, 0};
    if (b.kind == kBindMemHandle) {
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
        if (it == mems_.end()) {
          set_status(st, QNN_MEM_ERROR_INVALID_HANDLE, "tensor id %u: memory handle is not registered", b.tensor_id);
          return false;
        }
        const MemRecord& r = it->second;
        if (memo_.mems.size() >= kMaxMemoMems) memo_.mems.clear();  // a linear scan must stay short
        memo_.mems.push_back({b.mem_id, r.context_id, r.mapping->base + r.offset, r.size});
        m = &memo_.mems.back();
      }
      if (m->context_id != context_id) {
        set_status(st, QNN_MEM_ERROR_INVALID_HANDLE, "tensor id %u: memory handle belongs to another context",
                   b.tensor_id);
        return false;
      }
      tb.data = m->data;
      tb.bytes = m->size;
    } else {
      const bool is_input = i < req.num_inputs;
      const uint32_t lo = is_input ? 1 : n_in, hi = is_input ? n_in : n_in + n_out - 1;
      if (b.arg_index < lo || b.arg_index >= hi) {
        set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "tensor id %u: bad buffer argument %u", b.tensor_id,
                   b.arg_index);
        return false;
      }
      tb.data = pra[b.arg_index].buf.pv;
      tb.bytes = pra[b.arg_index].buf.nLen;
    }
    (i < req.num_inputs ? in_b_ : out_b_).push_back(tb);
  }
  return true;
}

void Runtime::query(remote_arg* pra, Status* st) {
  (void)st;
  QueryResp r;
  std::lock_guard lock(mu_);
  r.pid = getpid();
  r.num_contexts = static_cast<uint32_t>(contexts_.size());
  r.num_graphs = static_cast<uint32_t>(graphs_.size());
  r.num_mems = static_cast<uint32_t>(mems_.size());
  uint32_t live = 0;
  for (auto& [k, w] : mappings_) live += w.expired() ? 0 : 1;
  r.num_mappings = live;
  if (pra[0].buf.nLen == sizeof r) std::memcpy(pra[0].buf.pv, &r, sizeof r);
}

uint64_t Runtime::keep_error_message(const char* text) {
  std::lock_guard lock(errors_mu_);
  const uint64_t ticket = next_ticket_++;
  errors_[ticket] = text;
  while (errors_.size() > kKeptErrors) errors_.erase(errors_.begin());
  return ticket;
}

void Runtime::error_message(remote_arg* pra, Status* st) {
  (void)st;
  IdReq req;
  if (!read_arg(pra[0], &req) || pra[1].buf.nLen != kErrorMessageBytes) return;
  auto* out = static_cast<char*>(pra[1].buf.pv);
  std::lock_guard lock(errors_mu_);
  auto it = errors_.find(req.id);
  std::snprintf(out, kErrorMessageBytes, "%s", it == errors_.end() ? "" : it->second.c_str());
}

}  // namespace
}  // namespace openhtp::skel

SKEL_EXPORT int openhtp_htp_open(const char*, remote_handle64* h) {
  *h = 0x48545001;  // "HTP" + 1: one runtime per process
  return AEE_SUCCESS;
}

SKEL_EXPORT int openhtp_htp_close(remote_handle64) { return AEE_SUCCESS; }

SKEL_EXPORT int openhtp_htp_skel_handle_invoke(remote_handle64 h, uint32_t sc, remote_arg* pra) {
  if (h != 0x48545001) return AEE_EBADHANDLE;
  return openhtp::skel::runtime().dispatch(sc, pra);
}
