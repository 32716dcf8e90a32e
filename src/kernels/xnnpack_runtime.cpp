#include "kernels/xnnpack_runtime.h"

#include <cstring>
#include <mutex>

namespace openhtp::kernels::xnn {

bool ready() {
  static const bool ok = xnn_initialize(nullptr) == xnn_status_success;
  return ok;
}

bool tail_readable(const void* p, size_t bytes) {
  constexpr uintptr_t kPage = 4096;
  const uintptr_t last = reinterpret_cast<uintptr_t>(p) + bytes - 1;
  return bytes == 0 || last / kPage == (last + kReadSlack) / kPage;
}

void ReadableInput::prepare(bool planned, size_t bytes) {
  bytes_ = bytes;
  copy_bytes_ = planned ? 0 : ops::align_workspace(bytes + kReadSlack);
}

const void* ReadableInput::readable(const void* p, uint8_t* copy) const {
  if (copy_bytes_ == 0 || tail_readable(p, bytes_)) return p;
  std::memcpy(copy, p, bytes_);
  return copy;
}

const void* setup_placeholder() {
  alignas(64) static const uint8_t kPlaceholder[64] = {};
  return kPlaceholder;
}

void flip_sign_bits(const uint8_t* src, uint8_t* dst, size_t n) {
  // Eight bytes at a time: GCC at -O2 leaves the byte loop scalar (it cannot
  // rule out src/dst overlap cheaply), and this pass runs over every qc8
  // input and output. src == dst (in place) is fine: each word is read
  // before it is written.
  constexpr uint64_t kMask = 0x8080808080808080ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, src + i, 8);
    w ^= kMask;
    std::memcpy(dst + i, &w, 8);
  }
  for (; i < n; ++i) dst[i] = src[i] ^ 0x80u;
}

}  // namespace openhtp::kernels::xnn
