#include "kernels/isa_level.h"

namespace openhtp::kernels {

IsaLevel isa_level() {
  static const IsaLevel level = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")) {
      return IsaLevel::kAvx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return IsaLevel::kAvx2;
    return IsaLevel::kBaseline;
  }();
  return level;
}

}  // namespace openhtp::kernels
