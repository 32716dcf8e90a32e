#include "kernels/xnnpack_runtime.h"

#include <cstring>
#include <mutex>

namespace openhtp::kernels::xnn {

bool ready() {
  static const bool ok = xnn_initialize(nullptr) == xnn_status_success;
  return ok;
}

const void* ReadableInput::readable(const void* p, size_t bytes) {
  constexpr uintptr_t kPage = 4096;
  const uintptr_t last = reinterpret_cast<uintptr_t>(p) + bytes - 1;
  const uintptr_t over = last + XNN_EXTRA_BYTES;
  if (bytes == 0 || last / kPage == over / kPage) return p;
  std::memcpy(copy_.data(), p, bytes);
  return copy_.data();
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
