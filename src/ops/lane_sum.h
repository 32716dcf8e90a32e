// A sum in double over eight interleaved lanes, combined in one fixed order.
//
// Why: a single running sum is one serial chain of adds (four cycles each),
// which no compiler may reorder; eight lanes let it vectorize while every
// caller that uses this gets the same bits. The reference LayerNorm/RmsNorm
// statistics and their 8-bit fast path both sum this way, so the fast path
// stays bit-exact with the reference.
#pragma once

#include <cstddef>

namespace openhtp::ops {

template <typename Term>
inline __attribute__((always_inline)) double lane_sum(size_t n, Term term) {
  double l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t c = 0;
  for (; c + 8 <= n; c += 8) {
    for (size_t k = 0; k < 8; ++k) l[k] += term(c + k);
  }
  for (; c < n; ++c) l[c % 8] += term(c);
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

}  // namespace openhtp::ops
