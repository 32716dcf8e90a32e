// The team's side of a parallelize call (openmp_pthreadpool.cpp), kept out of
// team.h: only the pool implementation hands loops to a team.
#pragma once

#include <cstddef>

namespace openhtp::threads {

// share(context, t, threads): thread t's part of a loop split `threads` ways.
using ShareFn = void (*)(void* context, size_t thread, size_t threads);

namespace detail {
// When the calling thread leads a team (run_with_team), runs share on every
// thread of it, returns once all ran (rethrowing what a share threw), and
// says true; else does nothing and says false.
bool run_on_team(ShareFn share, void* context);
}  // namespace detail

}  // namespace openhtp::threads
