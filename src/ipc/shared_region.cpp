#include "ipc/shared_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace openhtp::ipc {

SharedRegion::~SharedRegion() { reset(); }

SharedRegion::SharedRegion(SharedRegion&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)), size_(std::exchange(o.size_, 0)), fd_(std::exchange(o.fd_, -1)) {}

SharedRegion& SharedRegion::operator=(SharedRegion&& o) noexcept {
  if (this != &o) {
    reset();
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

void SharedRegion::reset() {
  if (base_ != nullptr) munmap(base_, size_);
  if (fd_ >= 0) close(fd_);
  base_ = nullptr;
  size_ = 0;
  fd_ = -1;
}

int SharedRegion::create(const char* name, size_t size) {
  reset();
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return -errno;
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return adopt(fd);
}

void SharedRegion::discard_pages_from(size_t offset) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  offset = (offset + page - 1) / page * page;
  if (fd_ < 0 || offset >= size_) return;
  // Best effort: a failure only leaves the pages resident.
  (void)fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                  static_cast<off_t>(size_ - offset));
}

int SharedRegion::adopt(int fd) {
  reset();
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size <= 0) {
    int e = errno ? errno : EINVAL;
    close(fd);
    return -e;
  }
  void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    close(fd);
    return -e;
  }
  base_ = static_cast<uint8_t*>(p);
  size_ = static_cast<size_t>(st.st_size);
  fd_ = fd;
  return 0;
}

}  // namespace openhtp::ipc
