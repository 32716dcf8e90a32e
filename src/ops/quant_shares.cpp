#include "ops/quant_shares.h"

#include "ops/quant.h"
#include "threads/shares.h"

namespace openhtp::ops::quant {

void to_float_in_shares(const TensorDesc& t, const void* src, float* dst, pthreadpool_t pool) {
  auto body = [&](size_t begin, size_t n) { to_float(t, src, dst, begin, n); };
  threads::run_in_shares(pool, t.num_elements(), threads::kShareMinElems, body);
}

void from_float_in_shares(const TensorDesc& t, const float* src, void* dst, pthreadpool_t pool) {
  auto body = [&](size_t begin, size_t n) { from_float(t, src, dst, begin, n); };
  threads::run_in_shares(pool, t.num_elements(), threads::kShareMinElems, body);
}

}  // namespace openhtp::ops::quant
