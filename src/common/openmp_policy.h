// oneDNN (the fp32 fast kernels) runs on OpenMP. GNU OpenMP's workers spin
// after every parallel region by default; between two oneDNN convolutions the
// graph runs XNNPACK and reference kernels on the same cores, and those spins
// steal them: ResNet-18 ran 3.3x slower here with spinning workers than with
// sleeping ones (openhtp-graph-profile, 2 cores). libgomp reads its wait
// policy once, when it is loaded, so whoever loads the HTP runtime (the DSP
// process, or libQnnHtp for the in-process transport) asks for the passive
// policy first. A policy the user set explicitly is kept.
#pragma once

#include <cstdlib>

namespace openhtp {

inline void prefer_passive_openmp_wait() { setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0); }

}  // namespace openhtp
