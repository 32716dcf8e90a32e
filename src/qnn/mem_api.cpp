// QnnMem_register / QnnMem_deRegister: the rules of docs/design.md §5 and what
// real clients rely on (reference/clients.md §0). A call either registers
// every descriptor or none. Which types a domain supports is the tutorial's
// table (support_in_domain below); the FastRPC types name an fd and are
// checked here, the Non-RPC ones name a QURT address (qnn/mem_qurt.cpp).
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "HTP/QnnHtpMem.h"
#include "QnnMem.h"
#include "common/file_bytes.h"
#include "htp/device_spec.h"
#include "ipc/shareable_fd.h"
#include "qnn/cdsprpc_link.h"
#include "qnn/context_ops.h"
#include "qnn/api_guard.h"
#include "qnn/logger.h"
#include "openhtp/fastrpc_ext.h"
#include "qnn/mem_qurt.h"
#include "qnn/objects.h"

using namespace openhtp::qnn;

Qnn_ErrorHandle_t openhtp::qnn::check_takes_external_buffer(const Context& ctx, int i, const char* what) {
  if (!ctx.from_binary || !ctx.deferred || !ctx.pending) {
    QNN_LOG_ERROR("memRegister: descriptor %d: %s is only accepted on a context created from a binary with "
                  "DEFER_GRAPH_INIT, before contextFinalize",
                  i, what);
    return QNN_MEM_ERROR_NOT_SUPPORTED;
  }
  if (!ctx.external_buffers_blocked_by.empty()) {
    QNN_LOG_ERROR("memRegister: descriptor %d: %s cannot be combined with %s", i, what,
                  ctx.external_buffers_blocked_by.c_str());
    return QNN_MEM_ERROR_NOT_SUPPORTED;
  }
  return QNN_SUCCESS;
}

namespace {


const char* mem_type_name(Qnn_MemType_t t) {
  switch (t) {
    case QNN_MEM_TYPE_ION: return "QNN_MEM_TYPE_ION";
    case QNN_MEM_TYPE_CUSTOM: return "QNN_MEM_TYPE_CUSTOM";
    case QNN_MEM_TYPE_DMA_BUF: return "QNN_MEM_TYPE_DMA_BUF";
    default: return "unknown memType";
  }
}

struct FdInfo {
  uint64_t dev = 0, ino = 0, size = 0;
};

// The fd must name shareable memory the DSP process can map: a memfd (or
// other tmpfs/shm file) or a DMA-BUF. A regular file or socket is refused.
Qnn_ErrorHandle_t inspect_fd(int fd, int index, FdInfo* info) {
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    QNN_LOG_ERROR("memRegister: descriptor %d: fd %d is not an open file descriptor", index, fd);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  const openhtp::ipc::FdMemory kind = openhtp::ipc::shareable_memory_of(fd);
  // /dev is a tmpfs too (devtmpfs has tmpfs's magic), so a tmpfs fd must
  // also be a regular file: /dev/zero or a tty there is a device, not memory.
  const bool device_on_tmpfs = kind == openhtp::ipc::FdMemory::kTmpfs && !S_ISREG(st.st_mode);
  if (kind == openhtp::ipc::FdMemory::kNotShareable || device_on_tmpfs) {
    QNN_LOG_ERROR("memRegister: descriptor %d: fd %d is %s%s, not shareable memory (needs rpcmem, memfd or DMA-BUF)",
                  index, fd, openhtp::file_kind_name(st.st_mode),  // the wrong fd, named for what it is
                  S_ISREG(st.st_mode) ? " outside tmpfs (memfd, /dev/shm) and not a DMA-BUF" : "");
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  if (!openhtp::ipc::seal_against_shrinking(fd, kind)) {
    QNN_LOG_ERROR("memRegister: descriptor %d: fd %d could shrink under the DSP (a memfd made without "
                  "MFD_ALLOW_SEALING, or POSIX shm); use rpcmem, a DMA-BUF or a sealable memfd",
                  index, fd);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  info->dev = st.st_dev;
  info->ino = st.st_ino;
  info->size = openhtp::ipc::shareable_size_of(fd, kind);
  return QNN_SUCCESS;
}

// Bytes the descriptor's shape and type describe; 0 when they describe none,
// or when the product does not fit 64 bits (then *overflows is set).
uint64_t described_bytes(const Qnn_MemDescriptor_t& d, bool* overflows = nullptr) {
  if (overflows != nullptr) *overflows = false;
  uint64_t bytes = openhtp::ops::dtype::element_size(static_cast<uint32_t>(d.dataType));
  if (bytes == 0 || d.memShape.numDim == 0 || d.memShape.dimSize == nullptr) return 0;
  // A zero dim anywhere makes it no bytes, not an overflow of the dims before it.
  for (uint32_t i = 0; i < d.memShape.numDim; ++i) {
    if (d.memShape.dimSize[i] == 0) return 0;
  }
  for (uint32_t i = 0; i < d.memShape.numDim; ++i) {
    if (bytes > UINT64_MAX / d.memShape.dimSize[i]) {
      if (overflows != nullptr) *overflows = true;
      return 0;
    }
    bytes *= d.memShape.dimSize[i];
  }
  return bytes;
}

// The line for a shape whose byte count does not fit 64 bits: the dims are
// the value at fault (the first 8 of them; a longer shape ends in "...").
Qnn_ErrorHandle_t shape_overflows(const Qnn_MemDescriptor_t& d, int i, const char* type_name) {
  std::string dims;
  for (uint32_t k = 0; k < d.memShape.numDim && k < 8; ++k) {
    dims += (k == 0 ? "" : ", ") + std::to_string(d.memShape.dimSize[k]);
  }
  if (d.memShape.numDim > 8) dims += ", ...";
  QNN_LOG_ERROR("memRegister: descriptor %d (%s): memShape {%s} of %zu-byte elements (dataType 0x%04x) overflows "
                "64 bits of bytes",
                i, type_name, dims.c_str(), openhtp::ops::dtype::element_size(static_cast<uint32_t>(d.dataType)),
                static_cast<unsigned>(d.dataType));
  return QNN_MEM_ERROR_INVALID_SHAPE;
}

struct Pending {
  int fd;
  FdInfo info;
  uint64_t offset;
  uint64_t bytes;
  Qnn_MemType_t mem_type;
  uint32_t htp_type;
  FdUse use = FdUse::kTensor;
  bool qurt = false;  // a Non-RPC buffer named by QURT address: `q` says what
  QurtPending q;
};

// The tutorial's support table: QNN_SUCCESS when `domain` takes the type,
// else QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE and one line naming type and domain.
Qnn_ErrorHandle_t support_in_domain(Domain domain, Qnn_MemType_t mem_type, uint32_t htp_type, int i) {
  bool ok;
  const char* what;
  if (mem_type == QNN_MEM_TYPE_CUSTOM) {
    what = htp_mem_type_name(htp_type);
    switch (htp_type) {
      case QNN_HTP_MEM_SHARED_BUFFER:
      case QNN_HTP_MEM_WEIGHTS_BUFFER: ok = domain == Domain::kFastRpc; break;
      case QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER: ok = true; break;
      case QNN_HTP_MEM_QURT:
      case QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER: ok = domain == Domain::kNonRpc; break;
      default: ok = false; break;
    }
  } else {
    what = mem_type_name(mem_type);
    // ION and DMA-BUF are fds the DSP process maps: a FastRPC notion.
    ok = domain == Domain::kFastRpc && (mem_type == QNN_MEM_TYPE_ION || mem_type == QNN_MEM_TYPE_DMA_BUF);
  }
  if (ok) return QNN_SUCCESS;
  QNN_LOG_ERROR("memRegister: descriptor %d: %s is not supported in the %s domain%s", i, what, domain_name(domain),
                domain == Domain::kNonRpc ? " (QNN runs on the DSP: buffers are given by QURT address)" : "");
  return QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE;
}


// QNN_HTP_MEM_WEIGHTS_BUFFER / SHARED_SPILLFILL_BUFFER: the external buffers of
// a context loaded with DEFER_GRAPH_INIT, registered before contextFinalize.
// Every requirement of the tutorial is checked here.
Qnn_ErrorHandle_t check_external_buffer(const QnnMemHtp_Descriptor_t& h, int i, Context& ctx, Pending* p) {
  const bool weights = h.type == QNN_HTP_MEM_WEIGHTS_BUFFER;
  const char* what = htp_mem_type_name(p->htp_type);
  p->use = weights ? FdUse::kWeights : FdUse::kSpillFill;
  uint64_t required = 0;
  {
    std::lock_guard lock(ctx.mu);
    if (Qnn_ErrorHandle_t e = check_takes_external_buffer(ctx, i, what); e != QNN_SUCCESS) return e;
    if (weights ? ctx.has_weights_buffer : ctx.has_external_spill_fill.load()) {
      // One of each per context, as in the Non-RPC domain: a second
      // spill-fill buffer was taken silently and only the last one used.
      QNN_LOG_ERROR("memRegister: descriptor %d: the context already has a %s (one per context)", i, what);
      return QNN_MEM_ERROR_ALREADY_REGISTERED;
    }
    if (weights) {
      required = ctx.pending->weights_bytes;
    } else {
      for (const auto& g : ctx.pending->graphs) required = std::max(required, g.spill_fill_bytes);
    }
  }
  const QnnHtpMem_SharedBufferConfig_t& cfg = weights ? h.weightsBufferConfig : h.sharedSpillfillBufferConfig;
  p->fd = cfg.fd;
  p->offset = cfg.offset;
  if (Qnn_ErrorHandle_t e = inspect_fd(p->fd, i, &p->info); e != QNN_SUCCESS) return e;
  if (p->offset % openhtp::htp::kDevice.buffer_start_alignment != 0) {
    QNN_LOG_ERROR("memRegister: descriptor %d: %s start (fd %d + offset %llu) is not aligned to "
                  "BUFFER_START_ALIGNMENT %llu",
                  i, what, p->fd, static_cast<unsigned long long>(p->offset),
                  static_cast<unsigned long long>(openhtp::htp::kDevice.buffer_start_alignment));
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  if (h.size < required || p->offset > p->info.size || h.size > p->info.size - p->offset) {
    QNN_LOG_ERROR("memRegister: descriptor %d: %s size %llu at offset %llu must be at least the required %llu and "
                  "fit the fd's %llu bytes",
                  i, what, static_cast<unsigned long long>(h.size), static_cast<unsigned long long>(p->offset),
                  static_cast<unsigned long long>(required), static_cast<unsigned long long>(p->info.size));
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  if (cdsprpc().fd_is_mapped(p->fd) != 0) {
    QNN_LOG_ERROR("memRegister: descriptor %d: %s fd %d is mapped with fastrpc_mmap; external buffers must not be",
                  i, what, p->fd);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  p->bytes = h.size;
  return QNN_SUCCESS;
}

// An fd used for external weights or spill-fill serves that purpose only, and
// a weights buffer serves one context only.
Qnn_ErrorHandle_t check_fd_use(const Pending& p, int i) {
  const FdUsage u = fd_usage(p.info.dev, p.info.ino);
  const bool other_than_tensor = u.weights + u.spill_fill > 0;
  if (p.use == FdUse::kTensor && other_than_tensor) {
    QNN_LOG_ERROR("memRegister: descriptor %d: fd %d is registered as an external %s buffer and cannot be used for "
                  "other buffer types",
                  i, p.fd, u.weights > 0 ? "weights" : "spill-fill");
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  if (p.use != FdUse::kTensor) {
    const uint32_t other = p.use == FdUse::kWeights ? u.tensor + u.spill_fill : u.tensor + u.weights;
    if (other > 0) {
      QNN_LOG_ERROR("memRegister: descriptor %d: fd %d is already registered for another buffer type; an fd used as "
                    "%s cannot serve other types",
                    i, p.fd, fd_use_name(p.use));
      return QNN_MEM_ERROR_INVALID_ARGUMENT;
    }
    if (p.use == FdUse::kWeights && u.weights > 0) {
      QNN_LOG_ERROR("memRegister: descriptor %d: fd %d is already the weights buffer of another context; external "
                    "weights buffers are unique per context",
                    i, p.fd);
      return QNN_MEM_ERROR_INVALID_ARGUMENT;
    }
  }
  return QNN_SUCCESS;
}

Qnn_ErrorHandle_t check_descriptor(const Qnn_MemDescriptor_t& d, int i, Context& ctx, Pending* p) {
  p->mem_type = d.memType;
  p->htp_type = 0;
  p->offset = 0;
  const auto* custom = d.memType == QNN_MEM_TYPE_CUSTOM ? static_cast<const QnnMemHtp_Descriptor_t*>(d.customInfo)
                                                        : nullptr;
  if (d.memType == QNN_MEM_TYPE_CUSTOM && custom == nullptr) {
    QNN_LOG_ERROR("memRegister: descriptor %d: QNN_MEM_TYPE_CUSTOM needs customInfo -> QnnMemHtp_Descriptor_t", i);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  const Domain domain = ctx.backend->domain;
  if (Qnn_ErrorHandle_t e = support_in_domain(domain, d.memType, custom ? static_cast<uint32_t>(custom->type) : 0, i);
      e != QNN_SUCCESS) {
    return e;
  }
  if (domain == Domain::kNonRpc) {  // every type the Non-RPC domain takes names a QURT address
    p->qurt = true;
    p->htp_type = static_cast<uint32_t>(custom->type);
    bool overflows = false;
    const uint64_t bytes = described_bytes(d, &overflows);
    // Only a QURT tensor buffer is sized by its shape (external buffers pass {0}).
    if (overflows && custom->type == QNN_HTP_MEM_QURT) return shape_overflows(d, i, htp_mem_type_name(p->htp_type));
    return check_qurt_descriptor(*custom, bytes, i, ctx, &p->q);
  }
  uint64_t limit = 0;  // bytes usable from the start of the fd
  switch (d.memType) {
    case QNN_MEM_TYPE_ION:
    case QNN_MEM_TYPE_DMA_BUF: {
      p->fd = d.memType == QNN_MEM_TYPE_ION ? d.ionInfo.fd : d.dmaBufInfo.fd;
      if (Qnn_ErrorHandle_t e = inspect_fd(p->fd, i, &p->info); e != QNN_SUCCESS) return e;
      limit = p->info.size;
      break;
    }
    case QNN_MEM_TYPE_CUSTOM: {
      const auto* h = custom;
      p->htp_type = static_cast<uint32_t>(h->type);
      if (h->type == QNN_HTP_MEM_WEIGHTS_BUFFER || h->type == QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER) {
        // Shape and type do not apply (clients pass {0} and UNDEFINED).
        return check_external_buffer(*h, i, ctx, p);
      }
      p->fd = h->sharedBufferConfig.fd;
      p->offset = h->sharedBufferConfig.offset;
      if (Qnn_ErrorHandle_t e = inspect_fd(p->fd, i, &p->info); e != QNN_SUCCESS) return e;
      // `size` is the whole buffer (what clients pass), so it bounds offsets;
      // it may not claim more than the fd really has.
      if (h->size == 0 || h->size > p->info.size) {
        QNN_LOG_ERROR("memRegister: descriptor %d: QNN_HTP_MEM_SHARED_BUFFER size %llu must be > 0 and at most the "
                      "fd's real size %llu",
                      i, static_cast<unsigned long long>(h->size), static_cast<unsigned long long>(p->info.size));
        return QNN_MEM_ERROR_INVALID_ARGUMENT;
      }
      limit = h->size;
      break;
    }
    default:  // support_in_domain refused every other type
      return QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE;
  }
  bool overflows = false;
  p->bytes = described_bytes(d, &overflows);
  if (overflows) return shape_overflows(d, i, mem_type_name(d.memType));
  if (p->bytes == 0) {
    QNN_LOG_ERROR("memRegister: descriptor %d (%s): memShape/dataType describe no bytes (numDim %u, dataType 0x%04x)",
                  i, mem_type_name(d.memType), d.memShape.numDim, static_cast<unsigned>(d.dataType));
    return QNN_MEM_ERROR_INVALID_SHAPE;
  }
  if (p->offset > limit || p->bytes > limit - p->offset) {
    QNN_LOG_ERROR("memRegister: descriptor %d (%s): offset %llu + %llu described bytes exceed the buffer's %llu bytes "
                  "(fd %d)",
                  i, mem_type_name(d.memType), static_cast<unsigned long long>(p->offset),
                  static_cast<unsigned long long>(p->bytes), static_cast<unsigned long long>(limit), p->fd);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  if (d.memType == QNN_MEM_TYPE_DMA_BUF && d.dmaBufInfo.data == nullptr) {
    QNN_LOG_ERROR("memRegister: descriptor %d: QNN_MEM_TYPE_DMA_BUF needs dmaBufInfo.data (the client mapping)", i);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  return QNN_SUCCESS;
}

// ctx.regions maps a region to its handle, or to kReserved while a
// memRegister call that claimed it is between its check and its commit (the
// remote registration runs then, without ctx.mu). Handles are never 0: the
// object table puts the kind in their top byte.
constexpr uint64_t kReserved = 0;

// Drops a reservation that never became a handle. Caller holds ctx.mu.
void release_reservation(Context& ctx, const std::tuple<uint64_t, uint64_t, uint64_t>& key) {
  auto it = ctx.regions.find(key);
  if (it != ctx.regions.end() && it->second == kReserved) ctx.regions.erase(it);
}

// `remote`: also release it in the DSP process; false when the context is
// being freed there, which releases all of the context's registrations.
void deregister_one(MemHandle& m, bool remote = true) {
  auto ctx = m.context.lock();
  if (!ctx) return;
  {
    std::lock_guard lock(ctx->mu);
    if (m.use == FdUse::kWeights) ctx->has_weights_buffer = false;
    if (m.use == FdUse::kSpillFill && !m.qurt) ctx->has_external_spill_fill = false;
    if (m.use == FdUse::kSpillFill && m.qurt) ctx->has_qurt_spill_fill = false;
    if (m.use == FdUse::kVtcmBackup) ctx->has_vtcm_backup = false;
    ctx->mem_handles.erase(m.handle);
    // Only this handle's entry: after contextFree cleared the map, the key
    // may be another call's reservation.
    auto it = ctx->regions.find({m.dev, m.ino, m.offset});
    if (it != ctx->regions.end() && it->second == m.handle) ctx->regions.erase(it);
  }
  if (remote && !ctx->stub->lost()) ctx->stub->mem_deregister(m.remote_id);  // a dead DSP process holds nothing
}

}  // namespace

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnMem_register(Qnn_ContextHandle_t context, const Qnn_MemDescriptor_t* memDescriptors,
                                          uint32_t numDescriptors, Qnn_MemHandle_t* memHandles) try {
  if (memHandles != nullptr) {
    for (uint32_t i = 0; i < numDescriptors; ++i) memHandles[i] = nullptr;
  }
  auto ctx = find_object<Context>(ObjectKind::kContext, context);
  if (!ctx) {
    QNN_LOG_ERROR("memRegister: %p is not a live context handle", context);
    return QNN_MEM_ERROR_INVALID_HANDLE;
  }
  if (memDescriptors == nullptr || memHandles == nullptr || numDescriptors == 0) {
    QNN_LOG_ERROR("memRegister: needs descriptors, output handles and a count > 0 (count %u)", numDescriptors);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  std::vector<Pending> pending(numDescriptors);
  for (uint32_t i = 0; i < numDescriptors; ++i) {
    if (Qnn_ErrorHandle_t e = check_descriptor(memDescriptors[i], static_cast<int>(i), *ctx, &pending[i]);
        e != QNN_SUCCESS) {
      return e;
    }
    if (pending[i].qurt) continue;
    if (Qnn_ErrorHandle_t e = check_fd_use(pending[i], static_cast<int>(i)); e != QNN_SUCCESS) return e;
  }
  using Key = std::tuple<uint64_t, uint64_t, uint64_t>;
  std::vector<std::shared_ptr<MemHandle>> done;
  // The current descriptor's reservation and its remote registration, until
  // it is committed as a handle (then `done` owns both).
  std::optional<Key> reserved;
  std::shared_ptr<MemHandle> uncommitted;
  // `context_freed`: a racing contextFree took the context; its remote
  // contextFree releases every registration of the context in the DSP
  // process, so none is released here (that would only fail there).
  auto undo = [&](bool context_freed = false) {
    if (reserved) {
      std::lock_guard lock(ctx->mu);
      release_reservation(*ctx, *reserved);
    }
    if (uncommitted && !context_freed && !ctx->stub->lost()) ctx->stub->mem_deregister(uncommitted->remote_id);
    for (auto& m : done) {
      ObjectTable::instance().remove(ObjectKind::kMem, as_handle(m->handle));
      deregister_one(*m, !context_freed);
    }
    for (uint32_t i = 0; i < numDescriptors; ++i) memHandles[i] = nullptr;
  };
  // All or nothing, also when something underneath throws: what this call
  // registered so far is undone before the exception reaches the guard.
  try {
    for (uint32_t i = 0; i < numDescriptors; ++i) {
      const Pending& p = pending[i];
      const Key key = p.qurt ? std::make_tuple(kQurtDev, uint64_t{0}, p.q.address)
                             : std::make_tuple(p.info.dev, p.info.ino, p.offset);
      // Check and claim the region in one step, so that of two calls racing
      // for it exactly one goes on (the other gets 8002, as when they come one
      // after the other). The remote registration below runs without ctx.mu:
      // registrations of other regions on the context are not held up by it.
      bool duplicate;
      uint64_t existing = 0;
      {
        std::lock_guard lock(ctx->mu);
        auto [it, claimed] = ctx->regions.try_emplace(key, kReserved);
        duplicate = !claimed;
        if (duplicate) existing = it->second;
      }
      if (duplicate) {
        if (p.qurt) {
          auto other = find_object<MemHandle>(ObjectKind::kMem, as_handle(existing));
          QNN_LOG_ERROR("memRegister: descriptor %u: QURT address 0x%08llx is already registered on this context as %s "
                        "(one handle per (context, address); a buffer serves one role)",
                        i, static_cast<unsigned long long>(p.q.address),
                        other ? fd_use_name(other->use) : "another buffer");
        } else {
          QNN_LOG_ERROR("memRegister: descriptor %u: fd %d offset %llu is already registered on this context "
                        "(one handle per (context, fd, offset))",
                        i, p.fd, static_cast<unsigned long long>(p.offset));
        }
        undo();
        return QNN_MEM_ERROR_ALREADY_REGISTERED;
      }
      reserved = key;
      auto m = std::make_shared<MemHandle>();
      m->context = ctx;
      m->context_handle = ctx->handle;
      m->mem_type = p.mem_type;
      if (p.qurt) {
        if (Qnn_ErrorHandle_t e = register_qurt(*ctx, p.q, static_cast<int>(i), m); e != QNN_SUCCESS) {
          undo();
          return e;
        }
      } else {
        m->htp_type = p.htp_type;
        m->dev = p.info.dev;
        m->ino = p.info.ino;
        m->offset = p.offset;
        m->bytes = p.bytes;
        m->fd = p.fd;
        m->use = p.use;
        using openhtp::htp::MemoryKind;
        const MemoryKind kind = p.use == FdUse::kWeights     ? MemoryKind::kWeights
                                : p.use == FdUse::kSpillFill ? MemoryKind::kSpillFill
                                                             : MemoryKind::kTensor;
        if (Qnn_ErrorHandle_t e = ctx->stub->mem_register(ctx->remote_id, p.fd, p.offset, p.bytes, kind, &m->remote_id);
            e != QNN_SUCCESS) {
          undo();
          return e;
        }
        fd_usage_add(m->dev, m->ino, m->use);
        m->counted = true;
      }
      uncommitted = m;
      // Commit: the handle becomes visible and joins the context in one step
      // under ctx.mu, and only while the context is live, so that a racing
      // contextFree either releases it or makes this call fail.
      bool freed;
      {
        std::lock_guard lock(ctx->mu);
        freed = !context_live(*ctx);
        if (!freed) {
          memHandles[i] = ObjectTable::instance().add(ObjectKind::kMem, m);
          if (m->use == FdUse::kWeights) ctx->has_weights_buffer = true;
          if (m->use == FdUse::kSpillFill && !m->qurt) {
            ctx->has_external_spill_fill = true;
            ctx->spill_fill_dev = m->dev;
            ctx->spill_fill_ino = m->ino;
            ctx->spill_fill_fd = m->fd;
          }
          if (m->use == FdUse::kSpillFill && m->qurt) ctx->has_qurt_spill_fill = true;
          if (m->use == FdUse::kVtcmBackup) ctx->has_vtcm_backup = true;
          ctx->regions[key] = m->handle;
          ctx->mem_handles.insert(m->handle);
        }
      }
      if (freed) {
        QNN_LOG_ERROR("memRegister: context %p was freed while descriptor %u was being registered", context, i);
        undo(/*context_freed=*/true);
        return QNN_MEM_ERROR_INVALID_HANDLE;
      }
      reserved.reset();
      uncommitted.reset();
      done.push_back(std::move(m));
    }
  } catch (...) {
    undo();
    throw;
  }
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("memRegister");
}

// Every valid handle is released even when another in the array is not
// (include/QNN/QnnMem.h): a client cleaning up after a partial failure must
// not leak the good ones because one was bad. Each handle is taken out of
// the object table before it is released, and only the caller whose removal
// succeeds releases it: of two calls racing for one handle, one gets 8001.
QNN_API Qnn_ErrorHandle_t QnnMem_deRegister(const Qnn_MemHandle_t* memHandles, uint32_t numHandles) try {
  if (memHandles == nullptr || numHandles == 0) {
    QNN_LOG_ERROR("memDeRegister: needs handles and a count > 0 (count %u)", numHandles);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  bool invalid = false, in_use = false;
  std::unordered_map<const void*, uint32_t> seen;  // handle -> its first index in this call
  seen.reserve(numHandles);
  auto not_registered = [&](uint32_t i) {
    QNN_LOG_ERROR("memDeRegister: handle %u (%p) is not registered (never registered, already deregistered, or its "
                  "context was freed)",
                  i, memHandles[i]);
    invalid = true;
  };
  for (uint32_t i = 0; i < numHandles; ++i) {
    if (auto [it, first] = seen.try_emplace(memHandles[i], i); !first) {
      QNN_LOG_ERROR("memDeRegister: handle %u (%p) is handle %u again: one call releases a handle once", i,
                    memHandles[i], it->second);
      invalid = true;
      continue;
    }
    auto m = find_object<MemHandle>(ObjectKind::kMem, memHandles[i]);
    if (!m) {
      not_registered(i);
      continue;
    }
    std::shared_ptr<Object> removed;
    if (m->use == FdUse::kTensor) {
      removed = ObjectTable::instance().remove(ObjectKind::kMem, memHandles[i]);
    } else {
      // An external buffer is the context's until contextFinalize; the check
      // and the removal under ctx.mu, so that a finalize cannot come between.
      auto ctx = m->context.lock();
      bool finalized = true;
      {
        std::unique_lock<std::mutex> lock;
        if (ctx) lock = std::unique_lock(ctx->mu);
        finalized = !ctx || !ctx->deferred;
        if (!finalized) removed = ObjectTable::instance().remove(ObjectKind::kMem, memHandles[i]);
      }
      if (finalized) {
        QNN_LOG_ERROR("memDeRegister: handle %u (%p) is the context's %s, in use since contextFinalize; contextFree "
                      "releases it",
                      i, memHandles[i], fd_use_name(m->use));
        in_use = true;
        continue;
      }
    }
    if (!removed) {  // another call (or contextFree) released it since the lookup
      not_registered(i);
      continue;
    }
    deregister_one(static_cast<MemHandle&>(*removed));
  }
  if (invalid) return QNN_MEM_ERROR_INVALID_HANDLE;
  return in_use ? QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED : QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("memDeRegister");
}

}  // extern "C"
