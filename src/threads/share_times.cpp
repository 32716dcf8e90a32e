#include "threads/share_times.h"

#include <chrono>

namespace openhtp::threads {
namespace {
thread_local ShareTimes* tl_times = nullptr;
}  // namespace

ScopedShareTimes::ScopedShareTimes(ShareTimes* times) : saved_(tl_times) { tl_times = times; }
ScopedShareTimes::~ScopedShareTimes() { tl_times = saved_; }

ShareTimes* installed_share_times() { return tl_times; }

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace openhtp::threads
