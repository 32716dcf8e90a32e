#include "htp/call_control.h"

#include <time.h>

namespace openhtp::htp {

int64_t monotonic_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

CallControl::Verdict CallControl::check() const {
  if (abort != nullptr && abort->load(std::memory_order_acquire) != 0) return Verdict::kAborted;
  if (deadline_ns != 0 && monotonic_now_ns() >= deadline_ns) return Verdict::kTimedOut;
  return Verdict::kGoOn;
}

}  // namespace openhtp::htp
