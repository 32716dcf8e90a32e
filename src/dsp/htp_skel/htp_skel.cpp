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
};

struct GraphRecord {
  uint64_t context_id;
  std::unique_ptr<htp::PreparedGraph> graph;
};

class Runtime {
 public:
  int dispatch(uint32_t sc, remote_arg* pra);

 private:
  void set_status(SkelStatus* st, Qnn_ErrorHandle_t e, const char* fmt, ...) __attribute__((format(printf, 4, 5)));
  void context_create(remote_arg* pra, SkelStatus* st);
  void context_free(remote_arg* pra, SkelStatus* st);
  void graph_prepare(remote_arg* pra, SkelStatus* st);
  void graph_free(remote_arg* pra, SkelStatus* st);
  void mem_register(remote_arg* pra, SkelStatus* st);
  void mem_deregister(remote_arg* pra, SkelStatus* st);
  void graph_execute(uint32_t sc, remote_arg* pra, SkelStatus* st);
  void query(remote_arg* pra, SkelStatus* st);
  std::shared_ptr<Mapping> map_fd(int fd, std::string* why);

  std::mutex mu_;         // guards the tables
  std::mutex exec_mu_;    // the emulated HTP runs one graph at a time
  uint64_t next_id_ = 1;
  std::set<uint64_t> contexts_;
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

void Runtime::set_status(SkelStatus* st, Qnn_ErrorHandle_t e, const char* fmt, ...) {
  st->error = e;
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
  SkelStatus st;
  const uint32_t method = REMOTE_SCALARS_METHOD(sc);
  auto expect = [&](uint32_t in, uint32_t out, uint32_t hin) {
    return n_in == in && n_out == out && REMOTE_SCALARS_INHANDLES(sc) == hin;
  };
  bool shape_ok = true;
  switch (method) {
    case kContextCreate: (shape_ok = expect(1, 1, 0)) ? context_create(pra, &st) : void(); break;
    case kContextFree: (shape_ok = expect(1, 1, 0)) ? context_free(pra, &st) : void(); break;
    case kGraphPrepare: (shape_ok = expect(2, 1, 0)) ? graph_prepare(pra, &st) : void(); break;
    case kGraphFree: (shape_ok = expect(1, 1, 0)) ? graph_free(pra, &st) : void(); break;
    case kMemRegister: (shape_ok = expect(1, 1, 1)) ? mem_register(pra, &st) : void(); break;
    case kMemDeregister: (shape_ok = expect(1, 1, 0)) ? mem_deregister(pra, &st) : void(); break;
    case kGraphExecute: graph_execute(sc, pra, &st); break;
    case kQuery: (shape_ok = expect(0, 2, 0)) ? query(pra, &st) : void(); break;
    default: return AEE_EUNSUPPORTED;
  }
  if (!shape_ok) return AEE_EBADPARM;
  std::memcpy(status_arg.buf.pv, &st, sizeof st);
  return AEE_SUCCESS;
}

void Runtime::context_create(remote_arg* pra, SkelStatus* st) {
  ContextCreateReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_CONTEXT_ERROR_INVALID_ARGUMENT, "bad context request");
  std::lock_guard lock(mu_);
  st->id = next_id_++;
  contexts_.insert(st->id);
}

void Runtime::context_free(remote_arg* pra, SkelStatus* st) {
  IdReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_CONTEXT_ERROR_INVALID_ARGUMENT, "bad request");
  std::vector<std::shared_ptr<GraphRecord>> dying;  // destroyed outside the lock
  std::lock_guard exec(exec_mu_);
  std::lock_guard lock(mu_);
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

void Runtime::graph_prepare(remote_arg* pra, SkelStatus* st) {
  IdReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "bad request");
  {
    std::lock_guard lock(mu_);
    if (contexts_.count(req.id) == 0) {
      return set_status(st, QNN_GRAPH_ERROR_INVALID_CONTEXT, "context %llu does not exist",
                        static_cast<unsigned long long>(req.id));
    }
  }
  htp::GraphSpec spec;
  std::string error;
  if (!binary::decode_graph(static_cast<const uint8_t*>(pra[1].buf.pv), pra[1].buf.nLen, &spec, &error)) {
    return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "%s", error.c_str());
  }
  htp::GraphError gerr;
  auto prepared = htp::PreparedGraph::create(std::move(spec), &gerr, &error);
  if (!prepared) {
    Qnn_ErrorHandle_t e = gerr == htp::GraphError::kInvalidOp      ? QNN_GRAPH_ERROR_INVALID_OP_CONFIG
                          : gerr == htp::GraphError::kUnsupportedOp ? QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE
                                                                    : QNN_GRAPH_ERROR_FINALIZE_FAILED;
    return set_status(st, e, "%s", error.c_str());
  }
  auto rec = std::make_shared<GraphRecord>();
  rec->context_id = req.id;
  st->arena_bytes = prepared->arena_bytes();
  rec->graph = std::move(prepared);
  std::lock_guard lock(mu_);
  st->id = next_id_++;
  graphs_[st->id] = std::move(rec);
}

void Runtime::graph_free(remote_arg* pra, SkelStatus* st) {
  IdReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "bad request");
  std::shared_ptr<GraphRecord> dying;
  std::lock_guard lock(mu_);
  auto it = graphs_.find(req.id);
  if (it == graphs_.end()) return set_status(st, QNN_GRAPH_ERROR_INVALID_HANDLE, "no graph %llu", (unsigned long long)req.id);
  dying = it->second;
  graphs_.erase(it);
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

void Runtime::mem_register(remote_arg* pra, SkelStatus* st) {
  MemRegisterReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_MEM_ERROR_INVALID_ARGUMENT, "bad request");
  const int fd = pra[2].dma.fd;
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
  st->id = next_id_++;
  mems_[st->id] = MemRecord{req.context_id, std::move(m), req.offset, req.size};
}

void Runtime::mem_deregister(remote_arg* pra, SkelStatus* st) {
  IdReq req;
  if (!read_arg(pra[0], &req)) return set_status(st, QNN_MEM_ERROR_INVALID_ARGUMENT, "bad request");
  std::lock_guard lock(mu_);
  if (mems_.erase(req.id) == 0) {
    return set_status(st, QNN_MEM_ERROR_INVALID_HANDLE, "no memory registration %llu",
                      static_cast<unsigned long long>(req.id));
  }
}

void Runtime::graph_execute(uint32_t sc, remote_arg* pra, SkelStatus* st) {
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
  // Per-thread scratch (one thread per call slot): no allocation per execute.
  thread_local std::vector<ExecBinding> binds;
  thread_local std::vector<htp::TensorBinding> in_b, out_b;
  thread_local std::vector<std::shared_ptr<Mapping>> pinned;  // keep mappings alive through the run
  binds.resize(n_bind);
  in_b.clear();
  out_b.clear();
  pinned.clear();
  std::memcpy(binds.data(), static_cast<uint8_t*>(pra[0].buf.pv) + sizeof(ExecRequest), n_bind * sizeof(ExecBinding));
  struct Unpin {
    ~Unpin() { pinned.clear(); }
  } unpin;

  std::shared_ptr<GraphRecord> g;
  {
    std::lock_guard lock(mu_);
    auto it = graphs_.find(req.graph_id);
    if (it == graphs_.end()) {
      return set_status(st, QNN_GRAPH_ERROR_INVALID_HANDLE, "graph %llu does not exist",
                        static_cast<unsigned long long>(req.graph_id));
    }
    g = it->second;
    for (uint64_t i = 0; i < n_bind; ++i) {
      const ExecBinding& b = binds[i];
      htp::TensorBinding tb{b.tensor_id, nullptr, 0};
      if (b.kind == kBindMemHandle) {
        auto m = mems_.find(b.mem_id);
        if (m == mems_.end()) {
          return set_status(st, QNN_MEM_ERROR_INVALID_HANDLE, "tensor id %u: memory handle is not registered",
                            b.tensor_id);
        }
        if (m->second.context_id != g->context_id) {
          return set_status(st, QNN_MEM_ERROR_INVALID_HANDLE,
                            "tensor id %u: memory handle belongs to another context", b.tensor_id);
        }
        tb.data = m->second.mapping->base + m->second.offset;
        tb.bytes = m->second.size;
        pinned.push_back(m->second.mapping);
      } else {
        const bool is_input = i < req.num_inputs;
        const uint32_t lo = is_input ? 1 : n_in, hi = is_input ? n_in : n_in + n_out - 1;
        if (b.arg_index < lo || b.arg_index >= hi) {
          return set_status(st, QNN_GRAPH_ERROR_INVALID_ARGUMENT, "tensor id %u: bad buffer argument %u", b.tensor_id,
                            b.arg_index);
        }
        tb.data = pra[b.arg_index].buf.pv;
        tb.bytes = pra[b.arg_index].buf.nLen;
      }
      (i < req.num_inputs ? in_b : out_b).push_back(tb);
    }
  }
  std::string message;
  std::lock_guard exec(exec_mu_);
  auto t0 = std::chrono::steady_clock::now();
  htp::GraphError e = g->graph->execute(in_b, out_b, &message);
  st->exec_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  if (e != htp::GraphError::kNone) set_status(st, QNN_GRAPH_ERROR_INVALID_TENSOR, "%s", message.c_str());
}

void Runtime::query(remote_arg* pra, SkelStatus* st) {
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
