// FlatBuffers reads fields in place, so a buffer must start at an address
// aligned for its widest field (8 bytes in openhtp's schemas); the verifier
// checks alignment only relative to the buffer's start. A buffer handed over
// at any address (a client's memory, a transport offset) or a payload nested
// at an odd offset (an old or crafted binary) is read from an aligned copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace openhtp::binary {

class AlignedBytes {
 public:
  // `data` itself when 8-aligned, else a copy held by this object.
  const uint8_t* get(const uint8_t* data, size_t size) {
    if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) == 0) return data;
    words_.assign((size + 7) / 8, 0);
    if (size != 0) std::memcpy(words_.data(), data, size);
    return reinterpret_cast<const uint8_t*>(words_.data());
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace openhtp::binary
