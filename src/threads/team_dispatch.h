// The team's side of a parallelize call (openmp_pthreadpool.cpp), kept out of
// team.h: only the pool implementation hands loops to a team.
#pragma once

#include <cstddef>

namespace openhtp::threads {

// share(context, t, threads): thread t's part of a loop split `threads` ways.
using ShareFn = void (*)(void* context, size_t thread, size_t threads);

// The most bytes of job a parallelize call hands a team (run_on_team): a
// grid of six dimensions and its task, by value.
inline constexpr size_t kTeamJobBytes = 256;

namespace detail {
// When the calling thread leads a team (run_with_team), copies `job` (bytes
// <= kTeamJobBytes, trivially copyable: no pointer into it may be kept) into
// the team's own job lines, runs share(copy, t, threads) on every thread of
// the team, returns once all ran (rethrowing what a share threw) — or, under
// an UnjoinedShares (team.h), once the caller's own share ran — and says
// true; else (or when the job is larger than kTeamJobBytes) does nothing
// and says false.
//
// Why a copy: what the master built on its stack a moment ago sits in its
// own cache, and a worker that followed pointers to it (the job, its grid,
// the task, the task's captures) paid one cache-line transfer after another
// before its share could start. Copied into lines at a fixed place, the
// worker's loads of them do not wait on each other.
bool run_on_team(ShareFn share, const void* job, size_t bytes);
}  // namespace detail

}  // namespace openhtp::threads
