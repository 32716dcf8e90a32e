#include "threads/share_times.h"

namespace openhtp::threads {
namespace {
thread_local ShareTimes* tl_times = nullptr;
}  // namespace

ScopedShareTimes::ScopedShareTimes(ShareTimes* times) : saved_(tl_times) { tl_times = times; }
ScopedShareTimes::~ScopedShareTimes() { tl_times = saved_; }

ShareTimes* installed_share_times() { return tl_times; }

}  // namespace openhtp::threads
