#include "fastrpc/shareable_memory.h"

#include <fcntl.h>
#include <linux/dma-heap.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include "common/log.h"

namespace openhtp::fastrpc {
namespace {

std::once_flag g_probe_once;
int g_heap_fd = -1;  // /dev/dma_heap/system, kept open for the process lifetime

void probe_heap() {
  // OPENHTP_RPCMEM_BACKING=memfd forces the fallback (tests cover both paths).
  const char* force = getenv("OPENHTP_RPCMEM_BACKING");
  if (force != nullptr && std::string_view(force) == "memfd") return;
  g_heap_fd = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
  log(LogLevel::kInfo, "rpcmem", "backing: %s", g_heap_fd >= 0 ? "dma_heap (/dev/dma_heap/system)" : "memfd");
}

size_t page_round(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (size + page - 1) / page * page;
}

int alloc_fd(size_t size) {
  if (g_heap_fd >= 0) {
    dma_heap_allocation_data req{};
    req.len = size;
    req.fd_flags = O_RDWR | O_CLOEXEC;
    if (ioctl(g_heap_fd, DMA_HEAP_IOCTL_ALLOC, &req) == 0) return static_cast<int>(req.fd);
    log(LogLevel::kWarn, "rpcmem", "dma_heap allocation of %zu bytes failed (errno %d); using memfd", size, errno);
  }
  int fd = memfd_create("rpcmem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -errno;
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  // An rpcmem buffer has the size it was allocated with, for good: the DSP
  // process maps all of it, and a buffer shrunk under that mapping would
  // kill the DSP with SIGBUS at the next access. With the seal, ftruncate to
  // a smaller size fails (EPERM) instead, as a DMA-BUF's would.
  fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL);
  return fd;
}

}  // namespace

int allocate_shareable(size_t size, ShareableMemory* out) {
  std::call_once(g_probe_once, probe_heap);
  if (size == 0) return -EINVAL;
  const size_t rounded = page_round(size);
  if (rounded < size) return -EOVERFLOW;
  int fd = alloc_fd(rounded);
  if (fd < 0) return fd;
  void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    close(fd);
    return -e;
  }
  out->fd = fd;
  out->base = static_cast<uint8_t*>(p);
  out->size = rounded;
  return 0;
}

void release_shareable(const ShareableMemory& mem) {
  if (mem.base != nullptr) munmap(mem.base, mem.size);
  if (mem.fd >= 0) close(mem.fd);
}

const char* shareable_backing() {
  std::call_once(g_probe_once, probe_heap);
  return g_heap_fd >= 0 ? "dma_heap" : "memfd";
}

}  // namespace openhtp::fastrpc
