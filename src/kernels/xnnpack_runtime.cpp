#include "kernels/xnnpack_runtime.h"

#include <cstring>
#include <mutex>

#include "common/log.h"
#include "threads/threadpool.h"

namespace openhtp::kernels::xnn {

namespace {

// Runs one tiny XNNPACK operator on the caller's thread (a null pool, which
// every pthreadpool runs inline) and says whether its parallelize call came
// to openhtp's pool (threads::dispatches() moved).
bool probe_threadpool() {
  xnn_operator_t op = nullptr;
  if (xnn_create_copy_nc_x32(1, 1, 1, 0, &op) != xnn_status_success) return false;
  const Operator owner(op);
  alignas(64) uint32_t in[16 + kReadSlack / sizeof(uint32_t)] = {}, out[16] = {};
  if (xnn_setup_copy_nc_x32(op, 16, in, out, nullptr) != xnn_status_success) return false;
  const uint64_t before = threads::dispatches();
  if (xnn_run_operator(op, nullptr) != xnn_status_success) return false;
  return threads::dispatches() != before;
}

struct Library {
  bool initialized = false;
  bool shares_pool = false;
};

// xnn_initialize, then the thread-pool probe, once per process: the probe's
// warning (when there is one) comes with the first XNNPACK fast path, so it
// shows even where no operator is big enough to be given a pool.
const Library& library() {
  static const Library lib = [] {
    Library l;
    l.initialized = xnn_initialize(nullptr) == xnn_status_success;
    if (!l.initialized) return l;
    l.shares_pool = probe_threadpool();
    if (!l.shares_pool) {
      log(LogLevel::kWarn, "kernels",
          "XNNPACK's thread-pool calls go to another pthreadpool loaded in this process, not openhtp's: "
          "XNNPACK kernels run on one thread");
    }
    return l;
  }();
  return lib;
}

}  // namespace

bool ready() { return library().initialized; }

bool shares_graph_pool() { return library().shares_pool; }

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
