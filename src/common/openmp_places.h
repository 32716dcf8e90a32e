// OpenMP's places (OMP_PLACES, or the ones OMP_PROC_BIND makes from the
// process's CPUs) as CPU numbers, and the calling thread's mask put back to
// all of them, for a process that is about to start another.
//
// Why: when OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY is set, libgomp
// binds the thread that loads it to the first place, before main for a
// program that links it (libQnnHtp does, through oneDNN). A process started
// from that thread inherits the one-CPU mask, and its own libgomp then makes
// every place, and so binds every worker, on that CPU:
//   - openhtp-graph-profile restarts itself (common/openmp_policy.h):
//     MobileNetV2 uint8 at two threads took 2.6-2.8 ms per execute against
//     1.0;
//   - the DSP process, started by libcdsprpc from the client's thread, ran
//     with all its threads on one CPU: MobileNetV2 fp32 at two threads
//     through qnn-net-run 1.6-1.9x slower (docs/performance.md, "Session 29").
//
// The OpenMP runtime is looked up among the loaded libraries, not linked:
// libcdsprpc does not load it, and when nothing in the process has, nothing
// bound a thread.
#pragma once

#include <vector>

namespace openhtp {

// The CPUs of every OpenMP place of this process, ascending; empty when no
// OpenMP runtime is loaded or it defines no places (no binding asked for).
std::vector<int> openmp_place_cpus();

// set_calling_thread_cpus(openmp_place_cpus()) (common/cpu_mask.h).
bool widen_to_openmp_places();

}  // namespace openhtp
