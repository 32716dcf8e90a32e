// The DSP process's mappings of client buffers passed by reference (rpcmem
// and fastrpc_mmap memory): mapped once, on first use, and kept until the
// client frees the buffer. Keyed by buffer identity, so the same pages are
// never mapped twice however many calls use them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include "ipc/call_protocol.h"
#include "ipc/fd_mapping.h"

namespace openhtp::dsp {

class MappingTable {
 public:
  // Maps `fd` under `key` unless already mapped; always consumes `fd`.
  // Returns false if the fd cannot be mapped, with the reason in `why`.
  bool add(const ipc::BufferKey& key, int fd, std::string* why);
  // The mapping of `key`, or null if unknown. Holding it keeps the pages
  // mapped after release().
  std::shared_ptr<ipc::FdMapping> lookup(const ipc::BufferKey& key) const;
  void release(const ipc::BufferKey& key);
  size_t count() const;

 private:
  mutable std::shared_mutex mu_;
  std::map<ipc::BufferKey, std::shared_ptr<ipc::FdMapping>> maps_;
};

}  // namespace openhtp::dsp
