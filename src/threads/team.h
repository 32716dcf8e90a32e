// A team: the graph pool's threads held in ONE OpenMP parallel region for a
// run of a graph's steps, so that each parallelize call in between costs a
// store and a spin instead of a parallel region of its own.
//
// Why: every OpenMP parallel region costs libgomp two FUTEX_WAKE system
// calls (one when it releases the docked workers, one from the last thread
// at the closing barrier; libgomp's Linux barriers wake unconditionally),
// and a system call costs ~1 us on the VMs this project runs on. A graph at
// two threads opens one region per split node: EfficientNet-B0 uint8 opened
// ~150 a run, ~0.3 ms of its ~2.1 (strace -c; docs/performance.md,
// "Session 8"). Inside a team the master hands a loop's shares to the other
// threads through shared memory: they spin on an epoch word between loops
// and sleep on it (ipc::FutexWord) only after kSpinNs without work, so a
// loop costs no system call while the graph keeps them busy.
//
// The OpenMP runtime stays the only one: the team's threads ARE the pool's
// OpenMP workers, inside a region the master opened; nothing else spins.
// What cannot run in a team: a kernel that opens OpenMP regions itself (a
// oneDNN primitive planned for several threads) would find itself nested and
// run on one thread, so the runtime ends the team before such a step
// (ops::OpKernel::uses_openmp_team) and starts another after it.
//
// Semantics of a parallelize call in a team: the same as outside
// (openmp_pthreadpool.cpp): tiles in contiguous shares per thread as
// OpenMP's static schedule hands them out, thread t of the team runs share
// t, the call returns when every share ran.
#pragma once

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace openhtp::threads {

// Runs body() on the calling thread with `pool`'s threads held as a team for
// its whole length. Plain body() when the pool is null or of one thread,
// when the caller already leads a team or is inside an OpenMP parallel
// region, or when OPENHTP_THREAD_TEAMS=off (read once, for comparisons). An
// exception from body() is rethrown here, after the region closed.
void run_with_team(pthreadpool_t pool, void (*body)(void*), void* context);

template <typename Body>
void run_with_team(pthreadpool_t pool, Body& body) {
  static_assert(!std::is_const_v<Body>);
  run_with_team(pool, [](void* c) { (*static_cast<Body*>(c))(); }, &body);
}

// Whether teams are on for this process (OPENHTP_THREAD_TEAMS, read once).
bool teams_enabled();

// The calling thread's team's size when it leads one, else 0.
size_t team_threads();

// Unjoined shares: while one lives on a team's master, the first parallelize
// call it makes returns once the master's own share ran, without waiting for
// the other threads' shares; each of them runs its share after the shares it
// was given before and before the ones it is given after, on the same
// thread t as always. The next joined call, join_team(), or the team's end
// waits for all of them (and throws what one of them threw).
//
// Why: a graph's steps whose shares line up (thread t of the next step reads
// only what thread t of the ones before wrote, and writes nothing another
// thread's pending share touches: htp/share_chain.h decides) need no barrier
// between them, and a barrier costs a handoff and every share's wait for the
// slowest one (docs/performance.md, "Session 25").
//
// The caller's promise: until the join, nothing on the calling thread reads
// what the loop writes or writes what it reads, and the loop's task and
// context stay valid (they are not on a stack frame that returns).
// Elsewhere (no team) it does nothing.
class UnjoinedShares {
 public:
  UnjoinedShares();
  ~UnjoinedShares();
  UnjoinedShares(const UnjoinedShares&) = delete;
  UnjoinedShares& operator=(const UnjoinedShares&) = delete;

 private:
  bool active_;
};

// Fenced shares: while one lives on a team's master, the first parallelize
// call it makes starts no share before every thread ended its share of loop
// `after` (a number team_jobs() gave in the same team) and of the loops
// before it — each thread waits for that itself, at the start of its share.
// So the loops up to `after` may be left unjoined (UnjoinedShares) even
// though this one reads what another thread wrote there, or writes what
// one read. The call joins or not as it would without the fence. Elsewhere
// (no team) it does nothing.
//
// Why: a join before the loop, or the master waiting for loop `after`
// before handing this one out, puts a round trip on the slower thread's
// path: its last store must reach the master, the master publishes the
// next job, and only then can that thread see it. Fenced, the job is
// already published when the slower thread ends its share, and each thread
// waits only for the others' `done` lines (docs/performance.md,
// "Session 27").
//
// The caller's promise: as for UnjoinedShares on the loops before, nothing
// on the calling thread touches their memory before the join; the fenced
// loop's shares may.
class FencedShares {
 public:
  explicit FencedShares(uint32_t after);
  ~FencedShares();
  FencedShares(const FencedShares&) = delete;
  FencedShares& operator=(const FencedShares&) = delete;

 private:
  bool active_;
};

// Waits for every share the calling thread's team was handed; rethrows what
// one threw. Nothing outside a team.
void join_team();

// How many loops the calling thread's team was handed so far (0 outside a
// team): the number of the last one.
uint32_t team_jobs();

// How many loops any team in this process left unjoined so far (it only
// grows): a test's way to see that steps chained.
uint64_t unjoined_dispatches();

// How many fenced loops (FencedShares) any team in this process ran so far.
uint64_t fenced_dispatches();

}  // namespace openhtp::threads
