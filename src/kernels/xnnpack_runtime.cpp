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
  for (size_t i = 0; i < n; ++i) dst[i] = src[i] ^ 0x80u;
}

}  // namespace openhtp::kernels::xnn
