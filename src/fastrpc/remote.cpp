// remote_handle64_*, fastrpc_mmap/munmap and remote_session_control: the
// FastRPC API on top of DspSession.
#include "remote.h"

#include <cstring>
#include <string>

#include "common/log.h"
#include "fastrpc/api_guard.h"
#include "fastrpc/buffer_registry.h"
#include "fastrpc/dsp_session.h"
#include "ipc/shareable_fd.h"
#include "openhtp/fastrpc_ext.h"

using openhtp::LogLevel;
using openhtp::log;
using namespace openhtp::fastrpc;

namespace {

thread_local openhtp_fastrpc_call_stats t_last_stats{};
thread_local uint64_t t_last_copy_ns[2] = {0, 0};  // in, out

// A remote handle carries the session generation in its upper half, so a
// handle that outlived its DSP process is refused, never misrouted.
remote_handle64 make_handle(uint32_t generation, uint64_t dsp_handle) {
  return (static_cast<uint64_t>(generation) << 32) | (dsp_handle & 0xffffffffu);
}

// The session `h` belongs to. Held by this thread's DspSession::current()
// cache, so it stays alive through the call without a reference count bump.
DspSession* session_for(remote_handle64 h, int* err) {
  DspSession* s = DspSession::current().get();
  if (s == nullptr || static_cast<uint32_t>(h >> 32) != s->generation()) {
    *err = AEE_EBADHANDLE;
    return nullptr;
  }
  return s;
}

bool domain_is_cdsp(const std::string& uri) {
  auto pos = uri.find("_dom=");
  if (pos == std::string::npos) return true;  // default domain: the compute DSP
  std::string dom = uri.substr(pos + 5);
  dom = dom.substr(0, dom.find_first_of("&;"));
  return dom == CDSP_DOMAIN_NAME;
}

}  // namespace

extern "C" {

REMOTE_API int remote_handle64_open(const char* name, remote_handle64* ph) try {
  if (name == nullptr || ph == nullptr) return AEE_EBADPARM;
  std::string uri = name;
  if (!domain_is_cdsp(uri)) {
    log(LogLevel::kError, "fastrpc", "remote_handle64_open(%s): only the cdsp domain is emulated", name);
    return AEE_EUNSUPPORTED;
  }
  int err = 0;
  auto s = DspSession::get(&err);
  if (!s) return err;
  remote_arg arg;
  arg.buf.pv = uri.data();
  arg.buf.nLen = uri.size() + 1;
  uint64_t dsp_handle = 0;
  int rc = s->call(openhtp::ipc::CallOp::kOpen, 0, REMOTE_SCALARS_MAKE(0, 1, 0), &arg, &dsp_handle, nullptr);
  if (rc != 0) return rc;
  *ph = make_handle(s->generation(), dsp_handle);
  return AEE_SUCCESS;
} catch (...) {
  return api_exception("remote_handle64_open");
}

REMOTE_API int remote_handle64_invoke(remote_handle64 h, uint32_t scalars, remote_arg* pra) try {
  int err = 0;
  auto s = session_for(h, &err);
  if (!s) return err;
  CallStats stats;
  int rc = s->call(openhtp::ipc::CallOp::kInvoke, h & 0xffffffffu, scalars, pra, nullptr, &stats);
  t_last_stats = openhtp_fastrpc_call_stats{stats.bytes_copied_in, stats.bytes_copied_out, stats.bytes_by_reference,
                                            stats.fds_sent, 0};
  t_last_copy_ns[0] = stats.copy_in_ns;
  t_last_copy_ns[1] = stats.copy_out_ns;
  return rc;
} catch (...) {
  return api_exception("remote_handle64_invoke");
}

REMOTE_API int remote_handle64_close(remote_handle64 h) try {
  int err = 0;
  auto s = session_for(h, &err);
  if (!s) return err;
  return s->call(openhtp::ipc::CallOp::kClose, h & 0xffffffffu, 0, nullptr, nullptr, nullptr);
} catch (...) {
  return api_exception("remote_handle64_close");
}

REMOTE_API int fastrpc_mmap(int domain, int fd, void* addr, int offset, size_t length, enum fastrpc_map_flags flags) try {
  if (domain != CDSP_DOMAIN_ID && domain != -1) {
    log(LogLevel::kError, "fastrpc", "fastrpc_mmap: domain %d is not emulated (only cdsp, %d)", domain, CDSP_DOMAIN_ID);
    return AEE_EUNSUPPORTED;
  }
  if (flags != FASTRPC_MAP_STATIC && flags != FASTRPC_MAP_FD && flags != FASTRPC_MAP_FD_DELAYED) {
    log(LogLevel::kError, "fastrpc", "fastrpc_mmap: flags %d not supported", static_cast<int>(flags));
    return AEE_EUNSUPPORTED;
  }
  ClientBuffer buf;
  uint64_t fd_size = 0;
  if (fd >= 0) {
    const openhtp::ipc::FdMemory kind = openhtp::ipc::shareable_memory_of(fd);
    if (kind == openhtp::ipc::FdMemory::kNotShareable) {
      // The DSP process could map a regular file, but it would not be the
      // client's memory: only what both can share is accepted.
      log(LogLevel::kError, "fastrpc", "fastrpc_mmap: fd %d is not shareable memory (needs rpcmem, memfd or DMA-BUF)",
          fd);
      return AEE_EBADPARM;
    }
    if (!openhtp::ipc::seal_against_shrinking(fd, kind)) {
      log(LogLevel::kError, "fastrpc",
          "fastrpc_mmap: fd %d could shrink under the DSP (a memfd made without MFD_ALLOW_SEALING, or POSIX shm)", fd);
      return AEE_EBADPARM;
    }
  }
  if (addr == nullptr || length == 0 || offset < 0 || !key_of_fd(fd, &buf.key, &fd_size)) {
    log(LogLevel::kError, "fastrpc", "fastrpc_mmap: bad arguments (fd %d, addr %p, offset %d, length %zu)", fd, addr,
        offset, length);
    return AEE_EBADPARM;
  }
  if (static_cast<uint64_t>(offset) + length > fd_size) {
    log(LogLevel::kError, "fastrpc", "fastrpc_mmap: offset %d + length %zu exceeds fd %d's size %llu", offset, length,
        fd, static_cast<unsigned long long>(fd_size));
    return AEE_EBADPARM;
  }
  buf.base = static_cast<uint8_t*>(addr);
  buf.size = length;
  buf.fd = fd;
  buf.fd_offset = static_cast<uint64_t>(offset);
  buf.origin = BufferOrigin::kFastrpcMmap;
  if (BufferRegistry::instance().find_mapped_fd(buf.key)) {
    log(LogLevel::kError, "fastrpc", "fastrpc_mmap: fd %d is already mapped", fd);
    return AEE_EBADPARM;
  }
  // rpcmem memory mapped again (as llama.cpp's hexagon backend does): the
  // allocation itself is already passed by reference; just record the map.
  if (offset == 0 && BufferRegistry::instance().set_fastrpc_mapped(addr, buf.key, true)) return AEE_SUCCESS;
  if (!BufferRegistry::instance().add(buf)) {
    log(LogLevel::kError, "fastrpc", "fastrpc_mmap: address %p is already mapped", addr);
    return AEE_EBADPARM;
  }
  return AEE_SUCCESS;
} catch (...) {
  return api_exception("fastrpc_mmap");
}

REMOTE_API int fastrpc_munmap(int domain, int fd, void* addr, size_t length) try {
  (void)length;
  if (domain != CDSP_DOMAIN_ID && domain != -1) return AEE_EUNSUPPORTED;
  openhtp::ipc::BufferKey key;
  if (!key_of_fd(fd, &key, nullptr)) return AEE_EBADPARM;
  auto mapped = BufferRegistry::instance().find_mapped_fd(key);
  if (!mapped || (addr != nullptr && mapped->base != addr)) {
    log(LogLevel::kError, "fastrpc", "fastrpc_munmap: fd %d is not mapped", fd);
    return AEE_EBADPARM;
  }
  if (mapped->origin == BufferOrigin::kRpcmem) {
    BufferRegistry::instance().set_fastrpc_mapped(mapped->base, key, false);
    return AEE_SUCCESS;
  }
  auto removed = BufferRegistry::instance().remove(mapped->base);
  if (removed && removed->dsp_mapped && !BufferRegistry::instance().key_in_use(key)) {
    if (auto s = DspSession::current()) s->release_mappings({&key, 1});
  }
  return AEE_SUCCESS;
} catch (...) {
  return api_exception("fastrpc_munmap");
}

REMOTE_API int remote_session_control(uint32_t req, void* data, uint32_t datalen) try {
  switch (req) {
    case DSPRPC_CONTROL_UNSIGNED_MODULE:
    case FASTRPC_THREAD_PARAMS:
      // The emulated DSP has one kind of process; accepted so clients that
      // ask for an unsigned PD or thread settings run unchanged.
      if (data == nullptr || datalen == 0) return AEE_EBADPARM;
      return AEE_SUCCESS;
    case FASTRPC_REMOTE_PROCESS_KILL:
    case FASTRPC_SESSION_CLOSE:
      DspSession::close_current();
      return AEE_SUCCESS;
    default:
      log(LogLevel::kWarn, "fastrpc", "remote_session_control: request %u not supported", req);
      return AEE_EUNSUPPORTED;
  }
} catch (...) {
  return api_exception("remote_session_control");
}

OPENHTP_FASTRPC_API void openhtp_fastrpc_last_call_stats(openhtp_fastrpc_call_stats* out) try {
  if (out != nullptr) *out = t_last_stats;
} catch (...) {
  api_exception("openhtp_fastrpc_last_call_stats");
}

OPENHTP_FASTRPC_API void openhtp_fastrpc_last_call_copy_ns(uint64_t* copy_in_ns, uint64_t* copy_out_ns) try {
  if (copy_in_ns != nullptr) *copy_in_ns = t_last_copy_ns[0];
  if (copy_out_ns != nullptr) *copy_out_ns = t_last_copy_ns[1];
} catch (...) {
  api_exception("openhtp_fastrpc_last_call_copy_ns");
}

OPENHTP_FASTRPC_API void openhtp_fastrpc_note_qnn_registration(uint64_t dev, uint64_t ino, int delta) try {
  BufferRegistry::instance().note_qnn_registration(openhtp::ipc::BufferKey{dev, ino}, delta);
} catch (...) {
  api_exception("openhtp_fastrpc_note_qnn_registration");
}

OPENHTP_FASTRPC_API int openhtp_fastrpc_fd_is_mapped(int fd) try {
  openhtp::ipc::BufferKey key;
  if (!key_of_fd(fd, &key, nullptr)) return 0;
  return BufferRegistry::instance().find_mapped_fd(key) ? 1 : 0;
} catch (...) {
  api_exception("openhtp_fastrpc_fd_is_mapped");
  return 0;
}

OPENHTP_FASTRPC_API int openhtp_fastrpc_dsp_pid(void) try {
  auto s = DspSession::current();
  return s ? static_cast<int>(s->pid()) : -1;
} catch (...) {
  api_exception("openhtp_fastrpc_dsp_pid");
  return -1;
}

OPENHTP_FASTRPC_API int openhtp_fastrpc_handle_lost(remote_handle64 h) try {
  const std::shared_ptr<DspSession>& s = DspSession::current();
  if (!s || static_cast<uint32_t>(h >> 32) != s->generation()) return 1;
  return s->alive() ? 0 : 1;
} catch (...) {
  api_exception("openhtp_fastrpc_handle_lost");
  return 1;
}

OPENHTP_FASTRPC_API int openhtp_fastrpc_set_call_spin_us(uint32_t us) try {
  if (us == OPENHTP_FASTRPC_CALL_SPIN_DEFAULT) {
    set_call_spin_ns(-1);
    return AEE_SUCCESS;
  }
  // A bound keeps a caller from pinning a CPU for seconds on a typo.
  if (us > OPENHTP_FASTRPC_CALL_SPIN_MAX_US) {
    log(LogLevel::kError, "fastrpc", "openhtp_fastrpc_set_call_spin_us: %u us is above the maximum %u us", us,
        OPENHTP_FASTRPC_CALL_SPIN_MAX_US);
    return AEE_EBADPARM;
  }
  set_call_spin_ns(static_cast<int64_t>(us) * 1000);
  return AEE_SUCCESS;
} catch (...) {
  return api_exception("openhtp_fastrpc_set_call_spin_us");
}

OPENHTP_FASTRPC_API int64_t openhtp_fastrpc_call_spin_ns(void) { return call_spin_ns(); }

}  // extern "C"
