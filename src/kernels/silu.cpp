#include "kernels/silu.h"

#include <bit>
#include <cmath>
#include <cstdint>

namespace openhtp::kernels {

__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void silu_clamp_f32(float* y, size_t n, float lo,
                                                                                         float hi) {
  for (size_t i = 0; i < n; ++i) {
    const float x = y[i];
    // e = exp(a), a = -x, clamped so that k stays in [-126, 128]: 2^k is a
    // normal float or (k = 128) infinity.
    float a = x == x ? -x : 0.0f;  // NaN: any finite a (the division gives NaN), no NaN to integer
    a = a < -87.0f ? -87.0f : a;
    a = a > 89.0f ? 89.0f : a;
    const float k = std::nearbyint(a * 1.44269504088896341f);
    float r = std::fma(k, -0.693145751953125f, a);  // ln 2 split: the high part is exact in k * it
    r = std::fma(k, -1.428606765330187e-06f, r);
    float p = 1.0f / 5040;
    p = std::fma(p, r, 1.0f / 720);
    p = std::fma(p, r, 1.0f / 120);
    p = std::fma(p, r, 1.0f / 24);
    p = std::fma(p, r, 1.0f / 6);
    p = std::fma(p, r, 0.5f);
    p = std::fma(p, r, 1.0f);
    p = std::fma(p, r, 1.0f);
    const float scale = std::bit_cast<float>(static_cast<int32_t>(k + 127.0f) << 23);
    float v = x / std::fma(p, scale, 1.0f);
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    y[i] = v;
  }
}

}  // namespace openhtp::kernels
