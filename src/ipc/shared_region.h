// A memfd-backed region mapped read-write: the doorbell page and the
// per-slot transport buffers of the FastRPC channel are all SharedRegions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openhtp::ipc {

class SharedRegion {
 public:
  SharedRegion() = default;
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;
  SharedRegion(SharedRegion&& o) noexcept;
  SharedRegion& operator=(SharedRegion&& o) noexcept;

  // Creates a new memfd of `size` bytes and maps it. Returns 0 or -errno.
  int create(const char* name, size_t size);
  // Maps an existing fd (takes ownership of it). Returns 0 or -errno.
  int adopt(int fd);

  // Gives the pages from `offset` (rounded up to a page) to the end back to
  // the kernel, for every process that maps the fd; the size and mappings
  // stay, and a later touch reads zeros. For a buffer that grew for one large
  // call, so it does not stay resident in both processes for good.
  void discard_pages_from(size_t offset);

  void reset();
  bool valid() const { return base_ != nullptr; }
  uint8_t* data() const { return base_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }

 private:
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;
};

}  // namespace openhtp::ipc
