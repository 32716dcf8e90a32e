// Which vector ISA this CPU runs, for the loops openhtp builds more than once
// (float_transcendental.cpp, float_binary.cpp): the build's baseline is
// x86-64 (SSE2), and each such loop also has AVX2 and AVX-512 builds, marked
// with target attributes and chosen by this check. Not target_clones: an
// ifunc resolver runs before ThreadSanitizer's runtime is up, and the TSan
// tree's DSP process crashed at load with it.
#pragma once

namespace openhtp::kernels {

enum class IsaLevel { kBaseline, kAvx2, kAvx512 };

// kAvx512: AVX-512 F, DQ, VL and BW; kAvx2: AVX2 and FMA. Checked once.
IsaLevel isa_level();

}  // namespace openhtp::kernels
