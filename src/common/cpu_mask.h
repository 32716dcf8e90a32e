// The calling thread's CPU mask as a list of CPU numbers: read and set.
// Shared by the one-thread graph's CPU preference (threads/cpu_preference.h),
// the DSP process's start (fastrpc/dsp_session.cpp) and OpenMP's places
// (common/openmp_places.h).
#pragma once

#include <cstddef>
#include <vector>

namespace openhtp {

// The CPUs the calling thread may run on, ascending.
std::vector<int> calling_thread_cpus();
// The same into *cpus, CPUs below `limit` only; no allocation when its
// capacity is at least `limit`.
void calling_thread_cpus(std::vector<int>* cpus, size_t limit);
// Sets the calling thread's mask to `cpus` (allocates nothing); false
// (nothing changed) when it is empty or the kernel refuses.
bool set_calling_thread_cpus(const std::vector<int>& cpus);

}  // namespace openhtp
