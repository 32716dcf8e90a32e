// SiLU (x * sigmoid(x)) over float32 in place, then a clamp: the SiLU
// epilogue of the fp32 oneDNN paths (onednn_paths.h EpilogueTail).
//
// Why ours: oneDNN 2.6's swish post-op and its swish eltwise primitive cost
// 0.6-0.7 ns an element on this AVX-512 machine (exp, then a division, in its
// JIT injector), which made SiLU most of EfficientNet-B0's fp32 time: a 1x1
// convolution 16 -> 96 at 112x112 took 0.25 ms alone and 1.10 ms with the
// post-op (CPU time, one thread). This loop is ~0.25 ns an element in cache
// (GCC vectorizes it at the kernels' -O3, one clone per ISA level).
//
// Accuracy: within 2 ulp of x * (1 / (1 + exp(-x))) computed in double, for
// x above -87 (exp(-x) as 2^k * p(r), r = -x - k ln2 in two steps, p the
// degree-7 Taylor polynomial). Below about -88.7, where |silu(x)| < 2e-37,
// the result is -0 (the scale 2^k overflows to infinity first). NaN stays
// NaN; silu(+inf) = +inf, silu(-inf) = NaN, as the double formula gives.
#pragma once

#include <cstddef>

namespace openhtp::kernels {

// y[i] = clamp(silu(y[i]), lo, hi) for i < n; lo/hi may be +-infinity.
void silu_clamp_f32(float* y, size_t n, float lo, float hi);

}  // namespace openhtp::kernels
