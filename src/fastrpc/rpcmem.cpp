// rpcmem_*: allocations that the DSP process can use in place.
#include "rpcmem.h"

#include <cerrno>
#include <climits>

#include "common/log.h"
#include "fastrpc/api_guard.h"
#include "fastrpc/buffer_registry.h"
#include "fastrpc/dsp_session.h"
#include "fastrpc/shareable_memory.h"
#include "openhtp/fastrpc_ext.h"

using openhtp::LogLevel;
using openhtp::log;
using namespace openhtp::fastrpc;

namespace {

void* allocate(int heapid, uint32_t flags, size_t size) {
  // Heap ids and flags only steer placement on a phone; here every heap is the
  // same shareable memory. They are accepted, as the Linux FastRPC library does.
  (void)heapid;
  (void)flags;
  ShareableMemory mem;
  int rc = allocate_shareable(size, &mem);
  if (rc != 0) {
    log(LogLevel::kError, "rpcmem", "allocation of %zu bytes failed: errno %d", size, -rc);
    return nullptr;
  }
  ClientBuffer buf;
  buf.base = mem.base;
  buf.size = mem.size;  // the whole mapping: its tail is as usable as the rest
  buf.requested = size;
  buf.fd = mem.fd;
  buf.origin = BufferOrigin::kRpcmem;
  // The registry's insert may throw (bad_alloc); the pages must not outlive a
  // failed call (the entry point's guard turns the exception into NULL).
  try {
    if (!key_of_fd(mem.fd, &buf.key, nullptr) || !BufferRegistry::instance().add(buf)) {
      release_shareable(mem);
      return nullptr;
    }
  } catch (...) {
    release_shareable(mem);
    throw;
  }
  return mem.base;
}

}  // namespace

extern "C" {

// Empty bodies: nothing here can throw, so no guard (fastrpc/api_guard.h).
RPCMEM_API void rpcmem_init(void) {}
RPCMEM_API void rpcmem_deinit(void) {}

RPCMEM_API void* rpcmem_alloc(int heapid, uint32_t flags, int size) try {
  if (size <= 0) {
    log(LogLevel::kError, "rpcmem", "rpcmem_alloc: size must be > 0 (got %d); use rpcmem_alloc2 above 2 GiB", size);
    return nullptr;
  }
  return allocate(heapid, flags, static_cast<size_t>(size));
} catch (...) {
  api_exception("rpcmem_alloc");
  return nullptr;
}

RPCMEM_API void* rpcmem_alloc2(int heapid, uint32_t flags, size_t size) try {
  if (size == 0) {
    log(LogLevel::kError, "rpcmem", "rpcmem_alloc2: size must be > 0");
    return nullptr;
  }
  return allocate(heapid, flags, size);
} catch (...) {
  api_exception("rpcmem_alloc2");
  return nullptr;
}

RPCMEM_API void rpcmem_free(void* po) try {
  if (po == nullptr) return;
  auto found = BufferRegistry::instance().find_containing(po, 0);
  std::optional<ClientBuffer> buf;
  if (found && found->base == po && found->origin == BufferOrigin::kRpcmem) {
    buf = BufferRegistry::instance().remove(po);
  }
  if (!buf) {
    log(LogLevel::kWarn, "rpcmem", "rpcmem_free: %p is not the start of an rpcmem allocation; ignored", po);
    return;
  }
  // Freed while a QNN memory handle still names it: the DSP keeps its
  // mapping (nothing faults), so executes through the handle go on writing
  // memory the program has given up — data lost without a word, unless said
  // here (the Non-RPC domain says the same of a free() of a registered block).
  if (const int n = BufferRegistry::instance().qnn_registrations(buf->key); n > 0) {
    log(LogLevel::kWarn, "rpcmem",
        "rpcmem_free: %p (fd %d) is still registered with QNN (%d memory handle(s)); executes through them now write "
        "memory this program has freed: memDeRegister before rpcmem_free",
        po, buf->fd, n);
  }
  if (auto s = DspSession::current()) s->note_freed(buf->key);
  if (buf->dsp_mapped && !BufferRegistry::instance().key_in_use(buf->key)) {
    if (auto s = DspSession::current()) s->release_mappings({&buf->key, 1});
  }
  ShareableMemory mem{buf->fd, buf->base, buf->size};
  release_shareable(mem);
} catch (...) {
  api_exception("rpcmem_free");
}

RPCMEM_API int rpcmem_to_fd(void* po) try {
  if (po == nullptr) return -1;
  auto buf = BufferRegistry::instance().find_containing(po, 0);
  if (!buf) return -1;
  // A pointer past what was asked for is outside the allocation, even where
  // the page-rounded mapping still covers it (as the Linux FastRPC library
  // answers: it keeps the requested size).
  const size_t limit = buf->requested != 0 ? buf->requested : buf->size;
  if (static_cast<const uint8_t*>(po) - buf->base >= static_cast<ptrdiff_t>(limit)) return -1;
  return buf->fd;
} catch (...) {
  api_exception("rpcmem_to_fd");
  return -1;
}

OPENHTP_FASTRPC_API const char* openhtp_rpcmem_backing(void) try {
  return shareable_backing();
} catch (...) {
  api_exception("openhtp_rpcmem_backing");
  return "unknown";
}

}  // extern "C"
