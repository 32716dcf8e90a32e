// The sequence family (src/ops/reference/sequence_group.cpp): Lstm and Gru.
// Expected values from the gate equations written here in double
// (QNN's input order: Lstm forget/cell/output tensors first, input gate at
// in[16..17]; Gru update/reset/new).
#include <cmath>

#include "opdef_cases.h"

namespace qnntest::opdef {
namespace {

using D = double;

D sig(D v) { return 1.0 / (1.0 + std::exp(-v)); }

// Row j of w [rows, len] times v.
D dot(const std::vector<D>& w, size_t j, const std::vector<D>& v) {
  D s = 0;
  for (size_t k = 0; k < v.size(); ++k) s += w[j * v.size() + k] * v[k];
  return s;
}

}  // namespace

OPDEF_CASES(sequence) {
  CaseList cases;

  // Lstm, batch-major [B=1, T=2, I=2], N = 2, initial state given. The walk
  // has no NULL tensors, so the inputs stop at in[11]: no input-gate
  // tensors, which is CIFG (i = 1 - f).
  {
    const std::vector<D> x = {0.5, -1.0, 1.5, 0.25};  // [1, 2, 2]
    const std::vector<D> wxf = {0.2, -0.1, 0.4, 0.3}, wxc = {-0.3, 0.5, 0.1, 0.2}, wxo = {0.6, 0.1, -0.2, 0.4};
    const std::vector<D> whf = {0.1, 0.2, -0.3, 0.1}, whc = {0.4, -0.2, 0.2, 0.3}, who = {-0.1, 0.3, 0.2, -0.4};
    const std::vector<D> bf = {0.1, -0.2}, bc = {0.0, 0.3}, bo = {-0.1, 0.2};
    const std::vector<D> h0 = {0.1, -0.2}, c0 = {0.3, -0.1};
    std::vector<D> h = h0, c = c0, y;
    for (int t = 0; t < 2; ++t) {
      const std::vector<D> xt = {x[t * 2], x[t * 2 + 1]};
      std::vector<D> hn(2);
      for (size_t n = 0; n < 2; ++n) {
        const D f = sig(dot(wxf, n, xt) + dot(whf, n, h) + bf[n]);
        const D g = std::tanh(dot(wxc, n, xt) + dot(whc, n, h) + bc[n]);
        c[n] = f * c[n] + (1 - f) * g;
        const D o = sig(dot(wxo, n, xt) + dot(who, n, h) + bo[n]);
        hn[n] = o * std::tanh(c[n]);
      }
      h = hn;
      y.insert(y.end(), h.begin(), h.end());
    }
    cases.push_back({"Lstm", "batch-major, 2 steps, CIFG, initial state",
                     {f32({1, 2, 2}, x), fixed_static(f32({2, 2}, wxf)), fixed_static(f32({2, 2}, wxc)),
                      fixed_static(f32({2, 2}, wxo)), fixed_static(f32({2, 2}, whf)), fixed_static(f32({2, 2}, whc)),
                      fixed_static(f32({2, 2}, who)), fixed_static(f32({2}, bf)), fixed_static(f32({2}, bc)),
                      fixed_static(f32({2}, bo)), f32({1, 2}, h0), f32({1, 2}, c0)},
                     {scalar_u32("direction", 0), scalar_bool("time_major", false)},
                     {f32({1, 2, 2}, y), f32({1, 2}, c), f32({1, 2}, h)}});
  }

  // Gru, time-major [T=2, B=1, I=2], H = 2, reverse: step t = 1 first.
  {
    const std::vector<D> x = {0.5, -1.0, 1.5, 0.25};  // [2, 1, 2]
    const std::vector<D> wz = {0.2, -0.1, 0.4, 0.3}, wr = {-0.3, 0.5, 0.1, 0.2}, wn = {0.6, 0.1, -0.2, 0.4};
    const std::vector<D> rz = {0.1, 0.2, -0.3, 0.1}, rr = {0.4, -0.2, 0.2, 0.3}, rn = {-0.1, 0.3, 0.2, -0.4};
    const std::vector<D> wbz = {0.1, -0.2}, wbr = {0.0, 0.3}, wbn = {-0.1, 0.2};
    const std::vector<D> rbz = {0.05, 0.0}, rbr = {-0.1, 0.1}, rbn = {0.2, -0.05};
    const std::vector<D> h0 = {0.1, -0.2};
    std::vector<D> h = h0, y(4);
    for (int t = 1; t >= 0; --t) {
      const std::vector<D> xt = {x[t * 2], x[t * 2 + 1]};
      std::vector<D> r(2), rh(2), hn(2);
      for (size_t j = 0; j < 2; ++j) {
        r[j] = sig(dot(wr, j, xt) + wbr[j] + dot(rr, j, h) + rbr[j]);
        rh[j] = r[j] * h[j];
      }
      for (size_t j = 0; j < 2; ++j) {
        const D z = sig(dot(wz, j, xt) + wbz[j] + dot(rz, j, h) + rbz[j]);
        const D n = std::tanh(dot(wn, j, xt) + wbn[j] + dot(rn, j, rh) + rbn[j]);
        hn[j] = (1 - z) * n + z * h[j];
        y[t * 2 + j] = hn[j];
      }
      h = hn;
    }
    cases.push_back({"Gru", "time-major reverse, 2 steps, initial state",
                     {f32({2, 1, 2}, x), fixed_static(f32({2, 2}, wz)), fixed_static(f32({2, 2}, wr)),
                      fixed_static(f32({2, 2}, wn)), fixed_static(f32({2, 2}, rz)), fixed_static(f32({2, 2}, rr)),
                      fixed_static(f32({2, 2}, rn)), fixed_static(f32({2}, wbz)), fixed_static(f32({2}, wbr)),
                      fixed_static(f32({2}, wbn)), fixed_static(f32({2}, rbz)), fixed_static(f32({2}, rbr)),
                      fixed_static(f32({2}, rbn)), f32({1, 2}, h0)},
                     {scalar_u32("direction", 1), scalar_u32("linear_before_reset", 0), scalar_bool("time_major", true)},
                     {f32({2, 1, 2}, y), f32({1, 2}, h)}});
  }
  return cases;
}

}  // namespace qnntest::opdef
