// oneDNN (the fp32 and int8 convolution/GEMM kernels) runs on OpenMP, whose
// workers wait between parallel regions. libgomp reads how they wait once,
// when it is loaded, so whoever loads the HTP runtime (the DSP process, or
// libQnnHtp for the in-process transport) states the policy first. A policy
// the user set explicitly (OMP_WAIT_POLICY or GOMP_SPINCOUNT) is kept.
//
// The policy: spin a while, then sleep (libgomp's own default, 300000 spins,
// written out so that it holds whatever else set the environment). A
// sleeping worker costs a futex wake-up per region, ~50 us on these VMs
// (bench_execute's raw wake-up), and a graph runs one oneDNN region per
// convolution: at 2 threads, forcing PASSIVE made MobileNetV2 uint8 5.1 ms
// against 2.3 ms spinning, EfficientNet-B0 fp32 14.8 against 10.8
// (openhtp-graph-profile, docs/performance.md "OpenMP workers spin, then
// sleep"). The spin ends on its own, and libgomp shortens it to 100 spins
// when it has more threads than CPUs, so a worker never holds a core it is
// not about to use for long. (An earlier session forced PASSIVE when
// XNNPACK's workers also spun; they now yield after each call.)
#pragma once

#include <cstdlib>

namespace openhtp {

inline void prefer_openmp_spin_then_sleep() {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) setenv("GOMP_SPINCOUNT", "300000", /*overwrite=*/0);
}

// Whether the environment already states the policy (a tool that links
// oneDNN, and so loads libgomp before main, restarts once when it does not).
inline bool openmp_policy_set() {
  return std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr;
}

}  // namespace openhtp
