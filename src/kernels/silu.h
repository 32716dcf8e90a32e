// SiLU (x * sigmoid(x)) over float32 in place, then a clamp: the SiLU
// epilogue of the fp32 oneDNN paths (onednn_paths.h EpilogueTail).
//
// Why ours: oneDNN 2.6's swish post-op costs ~0.3 ns an element on this
// AVX-512 machine (exp, then a division, in its JIT injector); this pass
// 0.14-0.21 ns (a 1x1 convolution 16 -> 96 at 112x112 writes 1.2M elements).
// The pass is bound by its vector instructions, not by memory, so it is
// written for few of them (silu.cpp): EfficientNet-B0 spent 18 % of a
// one-thread run in it before that, 12 % after (perf). It runs after the primitive on one thread only
// (onednn_paths.h silu_after_primitive says why not on two). An AVX-512
// loop where the CPU has it, else the same arithmetic as a loop GCC
// vectorizes.
//
// Accuracy: within 2 ulp of x * (1 / (1 + exp(-x))) computed in double, for
// x above -87 (exp(-x) as 2^k * p(r), r = -x - k ln2 in two steps, p a
// degree-6 polynomial fitted to exp's relative error). Below about -88.7,
// where |silu(x)| < 2e-37, the result is -0 (the scale 2^k overflows to
// infinity first). NaN stays NaN; silu(+inf) = +inf, silu(-inf) = NaN, as
// the double formula gives.
#pragma once

#include <cstddef>

namespace openhtp::kernels {

// y[i] = clamp(silu(y[i]), lo, hi) for i < n; lo/hi may be +-infinity.
void silu_clamp_f32(float* y, size_t n, float lo, float hi);
// The same without the AVX-512 loop (what CPUs without AVX-512F run; the
// tests hold both to the contract above).
void silu_clamp_f32_portable(float* y, size_t n, float lo, float hi);

// The same over `pixels` x `channels` (NHWC), and sums[c] += the results of
// channel c, in pixel order, in float (htp/fusion.h's channel mean: the
// global average pool after a squeeze-excite block's SiLU, summed while each
// value is in a register).
void silu_clamp_f32_sums(float* y, size_t pixels, size_t channels, float lo, float hi, float* sums);
void silu_clamp_f32_sums_portable(float* y, size_t pixels, size_t channels, float lo, float hi, float* sums);

}  // namespace openhtp::kernels
