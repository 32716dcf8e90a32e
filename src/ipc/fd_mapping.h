// Whole-buffer mappings of shareable memory fds (memfd, DMA-BUF) received
// from a client, one per buffer: the mmap/munmap code of the DSP side lives
// here once. The DSP process's by-reference table (src/dsp/mapping_table.h)
// and the skel's memory registrations both hold FdMappings; the cache below
// makes every registration of one buffer share one mapping, unmapped when
// the last holder lets go.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "htp/mapped_range.h"
#include "ipc/call_protocol.h"

namespace openhtp::ipc {

class FdMapping final : public htp::MappedRange {
 public:
  // Maps all of `fd` read-write, shared. The fd may be closed afterwards.
  // nullptr and *why on failure (not a mappable fd, empty, mmap refused).
  static std::shared_ptr<FdMapping> map(int fd, std::string* why);
  // Maps all of `fd` read-only, shared: memory the DSP only reads, such as
  // a finalize's static-data upload (which its client seals against writes).
  // Never put in the cache below: a registration needs a writable mapping.
  static std::shared_ptr<FdMapping> map_read_only(int fd, std::string* why);
  ~FdMapping() override;
  const BufferKey& key() const { return key_; }

 private:
  static std::shared_ptr<FdMapping> map_with(int fd, int prot, std::string* why);
  FdMapping(uint8_t* base, size_t size, BufferKey key) : MappedRange(base, size), key_(key) {}
  BufferKey key_;
};

// The identity of the buffer behind `fd` (false if fstat fails).
bool buffer_key_of(int fd, BufferKey* key);

// Registrations' mappings by buffer identity: a buffer registered many
// times (one handle per tensor of a multi-tensor shared buffer) is mapped
// once.
class FdMappingCache {
 public:
  std::shared_ptr<FdMapping> map(int fd, std::string* why);
  // Buffers some holder still maps.
  size_t live() const;

 private:
  mutable std::mutex mu_;
  std::map<BufferKey, std::weak_ptr<FdMapping>> maps_;
};

}  // namespace openhtp::ipc
