// Memory the runtime may read and write in place for as long as it holds a
// reference: a client buffer mapped into this process (an fd mapping, see
// src/ipc/fd_mapping.h) or, in the Non-RPC domain, a block of the DSP heap.
// Whoever made it decides how it is released; the runtime only keeps the
// shared_ptr alive while a registration uses it, so a buffer is never
// unmapped under a running graph.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openhtp::htp {

class MappedRange {
 public:
  MappedRange(uint8_t* base, size_t size) : base_(base), size_(size) {}
  virtual ~MappedRange() = default;
  MappedRange(const MappedRange&) = delete;
  MappedRange& operator=(const MappedRange&) = delete;

  uint8_t* base() const { return base_; }
  size_t size() const { return size_; }
  // True when [offset, offset + bytes) lies inside the range (no overflow).
  bool contains(uint64_t offset, uint64_t bytes) const { return offset <= size_ && bytes <= size_ - offset; }

 private:
  uint8_t* base_;
  size_t size_;
};

}  // namespace openhtp::htp
