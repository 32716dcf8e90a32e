// The norm family (src/ops/reference/norm_group.cpp): normalizations,
// reductions, LogSoftmax, Argmax/Argmin and TopK. Expected values from the
// formula in each case, computed in double (population statistics).
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "opdef_cases.h"

namespace qnntest::opdef {
namespace {

using D = double;

D mean(const std::vector<D>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / D(v.size()); }
D variance(const std::vector<D>& v) {
  const D m = mean(v);
  D s = 0;
  for (D x : v) s += (x - m) * (x - m);
  return s / D(v.size());
}

// A reduction of x [d0, d1, d2] over the axes flagged in `reduce`: the
// output in row-major order of the kept positions.
std::vector<D> reduce3(const std::vector<D>& x, const uint32_t (&d)[3], const bool (&reduce)[3],
                       const std::function<D(const std::vector<D>&)>& f) {
  std::vector<D> y;
  const uint32_t o0 = reduce[0] ? 1 : d[0], o1 = reduce[1] ? 1 : d[1], o2 = reduce[2] ? 1 : d[2];
  for (uint32_t a = 0; a < o0; ++a)
    for (uint32_t b = 0; b < o1; ++b)
      for (uint32_t c = 0; c < o2; ++c) {
        std::vector<D> group;
        for (uint32_t i = 0; i < d[0]; ++i)
          for (uint32_t j = 0; j < d[1]; ++j)
            for (uint32_t k = 0; k < d[2]; ++k) {
              if ((reduce[0] || i == a) && (reduce[1] || j == b) && (reduce[2] || k == c))
                group.push_back(x[(i * d[1] + j) * d[2] + k]);
            }
        y.push_back(f(group));
      }
  return y;
}

}  // namespace

OPDEF_CASES(norm) {
  CaseList cases;
  const std::vector<D> x24 = {1.0, -2.0, 3.5, 0.5, -1.5, 4.0, 2.0, -0.5};  // [2, 4]

  // LogSoftmax along axis 0 of [2, 4], beta 0.5: y = b*x - log(sum_j exp(b*x_j)).
  {
    std::vector<D> y(8);
    for (int c = 0; c < 4; ++c) {
      const D s = std::exp(0.5 * x24[c]) + std::exp(0.5 * x24[4 + c]);
      y[c] = 0.5 * x24[c] - std::log(s);
      y[4 + c] = 0.5 * x24[4 + c] - std::log(s);
    }
    cases.push_back({"LogSoftmax", "axis 0 beta 0.5", {f32({2, 4}, x24)},
                     {scalar_u32("axis", 0), scalar_f32("beta", 0.5f)}, {f32({2, 4}, y)}});
  }

  // LayerNorm and RmsNorm over the last axis of [2, 4], gamma and beta [4].
  {
    const std::vector<D> gamma = {1.0, 0.5, 2.0, -1.0}, beta = {0.0, 0.25, -0.5, 1.0};
    const D eps = 0.001;
    std::vector<D> ln, rms;
    for (int r = 0; r < 2; ++r) {
      const std::vector<D> row(x24.begin() + r * 4, x24.begin() + r * 4 + 4);
      const D m = mean(row), v = variance(row);
      D ms = 0;
      for (D e : row) ms += e * e / 4;
      for (int c = 0; c < 4; ++c) {
        ln.push_back((row[c] - m) / std::sqrt(v + eps) * gamma[c] + beta[c]);
        rms.push_back(row[c] / std::sqrt(ms + eps) * gamma[c] + beta[c]);
      }
    }
    cases.push_back({"LayerNorm", "last axis, gamma and beta",
                     {f32({2, 4}, x24), fixed_static(f32({4}, gamma)), fixed_static(f32({4}, beta))},
                     {scalar_f32("epsilon", float(eps)), tensor_u32("axes", {1}, {1})}, {f32({2, 4}, ln)}});
    cases.push_back({"RmsNorm", "last axis, gamma and beta",
                     {f32({2, 4}, x24), fixed_static(f32({4}, gamma)), fixed_static(f32({4}, beta))},
                     {scalar_f32("epsilon", float(eps)), tensor_u32("axes", {1}, {1})}, {f32({2, 4}, rms)}});
  }

  // InstanceNorm, [1, 2, 2, 2] NHWC: per channel over the 4 spatial positions.
  {
    const std::vector<D> x = {1, 10, 2, 20, 3, 30, 6, 0};  // channel 0: 1 2 3 6; channel 1: 10 20 30 0
    const std::vector<D> gamma = {2.0, 0.5}, beta = {1.0, -1.0};
    const D eps = 1e-5;
    std::vector<D> y(8);
    for (int c = 0; c < 2; ++c) {
      std::vector<D> ch;
      for (int p = 0; p < 4; ++p) ch.push_back(x[p * 2 + c]);
      for (int p = 0; p < 4; ++p) y[p * 2 + c] = (ch[p] - mean(ch)) / std::sqrt(variance(ch) + eps) * gamma[c] + beta[c];
    }
    cases.push_back({"InstanceNorm", "NHWC across spatial",
                     {f32({1, 2, 2, 2}, x), fixed_static(f32({2}, gamma)), fixed_static(f32({2}, beta))},
                     {scalar_f32("epsilon", float(eps))}, {f32({1, 2, 2, 2}, y)}});
  }

  // GroupNorm, [1, 2, 4] with 2 groups of 2 channels, each over 2 positions x 2 channels.
  {
    const std::vector<D> x = {1, 2, 10, -10, 3, 6, 0, 4};
    const std::vector<D> gamma = {1.0, 2.0, 0.5, -1.0}, beta = {0.0, 1.0, 0.0, 0.5};
    const D eps = 1e-5;
    std::vector<D> y(8);
    for (int g = 0; g < 2; ++g) {
      std::vector<D> grp;
      for (int p = 0; p < 2; ++p)
        for (int c = 2 * g; c < 2 * g + 2; ++c) grp.push_back(x[p * 4 + c]);
      const D m = mean(grp), s = std::sqrt(variance(grp) + eps);
      for (int p = 0; p < 2; ++p)
        for (int c = 2 * g; c < 2 * g + 2; ++c) y[p * 4 + c] = (x[p * 4 + c] - m) / s * gamma[c] + beta[c];
    }
    cases.push_back({"GroupNorm", "2 groups of 2 channels",
                     {f32({1, 2, 4}, x), fixed_static(f32({4}, gamma)), fixed_static(f32({4}, beta))},
                     {scalar_f32("epsilon", float(eps)), scalar_u32("group", 2)}, {f32({1, 2, 4}, y)}});
  }

  // Batchnorm: y = x * weights[c] + biases[c] along the last axis.
  {
    const std::vector<D> w = {2.0, -1.0, 0.5, 0.0}, bias = {0.5, 0.0, -1.0, 3.0};
    std::vector<D> y;
    for (int i = 0; i < 8; ++i) y.push_back(x24[i] * w[i % 4] + bias[i % 4]);
    cases.push_back({"Batchnorm", "per channel affine",
                     {f32({2, 4}, x24), fixed_static(f32({4}, w)), fixed_static(f32({4}, bias))}, {}, {f32({2, 4}, y)}});
  }

  // The reductions over x [2, 3, 2]: axis 1 dropped, and axes {0, 2} kept as 1s.
  {
    const std::vector<D> x = {1.0, -2.0, 3.0, 0.5, -1.5, 4.0, 2.0, 2.5, -3.0, 1.0, 0.25, -0.5};
    const uint32_t d[3] = {2, 3, 2};
    const bool axis1[3] = {false, true, false}, axes02[3] = {true, false, true};
    struct R {
      const char* op;
      std::function<D(const std::vector<D>&)> f;
    };
    const R rs[] = {
        {"ReduceMean", [](const std::vector<D>& v) { return mean(v); }},
        {"ReduceSum", [](const std::vector<D>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }},
        {"ReduceMax", [](const std::vector<D>& v) { return *std::max_element(v.begin(), v.end()); }},
        {"ReduceMin", [](const std::vector<D>& v) { return *std::min_element(v.begin(), v.end()); }},
        {"ReduceProd", [](const std::vector<D>& v) { return std::accumulate(v.begin(), v.end(), 1.0, std::multiplies<D>()); }},
        {"ReduceSumSquare", [](const std::vector<D>& v) {
           D s = 0;
           for (D e : v) s += e * e;
           return s;
         }},
    };
    for (const R& r : rs) {
      cases.push_back({r.op, "axis 1 dropped", {f32({2, 3, 2}, x)}, {tensor_u32("axes", {1}, {1})},
                       {f32({2, 2}, reduce3(x, d, axis1, r.f))}});
      cases.push_back({r.op, "axes 0 and 2 kept", {f32({2, 3, 2}, x)},
                       {tensor_u32("axes", {2}, {0, 2}), scalar_bool("keep_dims", true)},
                       {f32({1, 3, 1}, reduce3(x, d, axes02, r.f))}});
    }
    // ReduceSum in FLOAT_16 (values exact in half; sums of three within 2^-10 of 8).
    cases.push_back({"ReduceSum", "float16", {f16({2, 3, 2}, x)}, {tensor_u32("axes", {1}, {1})},
                     {f16({2, 2}, reduce3(x, d, axis1, rs[1].f))}, 1.0 / 256});
  }

  // Argmax / Argmin along axis 1 of [2, 4] (distinct values: no ties).
  {
    std::vector<D> amax, amin;
    for (int r = 0; r < 2; ++r) {
      auto b = x24.begin() + r * 4;
      amax.push_back(D(std::max_element(b, b + 4) - b));
      amin.push_back(D(std::min_element(b, b + 4) - b));
    }
    cases.push_back({"Argmax", "axis 1", {f32({2, 4}, x24)}, {scalar_u32("axis", 1)}, {i32({2}, amax)}});
    cases.push_back({"Argmin", "axis 1 keep_dims, uint32", {f32({2, 4}, x24)},
                     {scalar_u32("axis", 1), scalar_bool("keep_dims", true)}, {u32({2, 1}, amin)}});
    // UFIXED_POINT_8 input: the comparison on the quantized values (on the 1/2 grid).
    cases.push_back({"Argmax", "ufixed8", {fixed(QNN_DATATYPE_UFIXED_POINT_8, {2, 4}, x24, 0.5f, -10)},
                     {scalar_u32("axis", 1)}, {i32({2}, amax)}});
  }

  // TopK, k = 2, along the last axis of [2, 4]: largest first, and smallest first.
  for (bool largest : {true, false}) {
    std::vector<D> vals, idx;
    for (int r = 0; r < 2; ++r) {
      std::vector<int> order = {0, 1, 2, 3};
      std::sort(order.begin(), order.end(), [&](int p, int q) {
        return largest ? x24[r * 4 + p] > x24[r * 4 + q] : x24[r * 4 + p] < x24[r * 4 + q];
      });
      for (int j = 0; j < 2; ++j) {
        vals.push_back(x24[r * 4 + order[j]]);
        idx.push_back(order[j]);
      }
    }
    cases.push_back({"TopK", largest ? "k 2 largest" : "k 2 smallest", {f32({2, 4}, x24)},
                     {scalar_u32("k", 2), scalar_bool("largest", largest)}, {f32({2, 2}, vals), i32({2, 2}, idx)}});
  }

  // ---- further parameters of the same ops ------------------------------

  // LayerNorm over the two trailing axes of [2, 2, 3] (given as {2, 1}), gamma [2, 3], no beta.
  {
    const std::vector<D> x = {1, 2, 4, -1, 0, 3, 5, 5, 6, -2, 8, 1};
    const std::vector<D> gamma = {1, 2, 0.5, -1, 1.5, 1};
    const D eps = 0.001;  // LayerNorm's default
    std::vector<D> y;
    for (int n = 0; n < 2; ++n) {
      const std::vector<D> blk(x.begin() + n * 6, x.begin() + n * 6 + 6);
      const D m = mean(blk), sd = std::sqrt(variance(blk) + eps);
      for (int i = 0; i < 6; ++i) y.push_back((blk[i] - m) / sd * gamma[i]);
    }
    cases.push_back({"LayerNorm", "two trailing axes, default epsilon", {f32({2, 2, 3}, x), fixed_static(f32({2, 3}, gamma))},
                     {tensor_u32("axes", {2}, {2, 1})}, {f32({2, 2, 3}, y)}});
    // FLOAT_16 (normalized values <= 2.2 in magnitude: half's rounding 2^-10).
    Case h{"LayerNorm", "float16", {f16({2, 2, 3}, x), fixed_static(f16({2, 3}, gamma))}, {tensor_u32("axes", {2}, {1, 2})},
           {f16({2, 2, 3}, y)}, 0.01};
    cases.push_back(h);
  }

  // InstanceNorm RMS (1) across channels (1) of [1, 1, 2, 3]: per position,
  // x / sqrt(mean over c of x^2 + eps) * gamma[c] + beta[c].
  {
    const std::vector<D> x = {3, 4, 0, 1, -2, 2};
    const std::vector<D> gamma = {1, 0.5, 2}, beta = {0, 1, -1};
    const D eps = 1e-6;
    std::vector<D> y;
    for (int p = 0; p < 2; ++p) {
      D ms = 0;
      for (int c = 0; c < 3; ++c) ms += x[p * 3 + c] * x[p * 3 + c] / 3;
      for (int c = 0; c < 3; ++c) y.push_back(x[p * 3 + c] / std::sqrt(ms + eps) * gamma[c] + beta[c]);
    }
    cases.push_back({"InstanceNorm", "rms across channel",
                     {f32({1, 1, 2, 3}, x), fixed_static(f32({3}, gamma)), fixed_static(f32({3}, beta))},
                     {scalar_f32("epsilon", float(eps)), scalar_u32("mode", 1), scalar_u32("region", 1)},
                     {f32({1, 1, 2, 3}, y)}});
    // MU_SIGMA across all (2) with normalize_variance 0: only the mean (over all of n) is subtracted.
    const D m = mean(x);
    std::vector<D> z;
    for (int i = 0; i < 6; ++i) z.push_back((x[size_t(i)] - m) * gamma[size_t(i % 3)] + beta[size_t(i % 3)]);
    cases.push_back({"InstanceNorm", "mean only across all",
                     {f32({1, 1, 2, 3}, x), fixed_static(f32({3}, gamma)), fixed_static(f32({3}, beta))},
                     {scalar_u32("region", 2), scalar_bool("normalize_variance", false)}, {f32({1, 1, 2, 3}, z)}});
  }

  // GroupNorm with one group and no gamma/beta: LayerNorm over everything of n.
  {
    const std::vector<D> x = {1, 2, 3, 4, -4, 0, 2, 9};  // [2, 1, 4]: n = 2
    std::vector<D> y;
    for (int n = 0; n < 2; ++n) {
      const std::vector<D> blk(x.begin() + n * 4, x.begin() + n * 4 + 4);
      for (D v : blk) y.push_back((v - mean(blk)) / std::sqrt(variance(blk) + 1e-3));
    }
    cases.push_back({"GroupNorm", "one group, no gamma or beta", {f32({2, 1, 4}, x)},
                     {scalar_f32("epsilon", 1e-3f), scalar_u32("group", 1)}, {f32({2, 1, 4}, y)}});
  }

  // LogSoftmax in FLOAT_16 along the last axis (|y| <= 8: half's rounding 2^-8).
  {
    std::vector<D> y;
    for (int r = 0; r < 2; ++r) {
      D s = 0;
      for (int c = 0; c < 4; ++c) s += std::exp(x24[r * 4 + c]);
      for (int c = 0; c < 4; ++c) y.push_back(x24[r * 4 + c] - std::log(s));
    }
    cases.push_back({"LogSoftmax", "float16 last axis", {f16({2, 4}, x24)}, {scalar_u32("axis", 1)}, {f16({2, 4}, y)},
                     1.0 / 64});
  }

  // ReduceMax over every axis without keep_dims: a [1] output.
  cases.push_back({"ReduceMax", "all axes to [1]", {f32({2, 4}, x24)}, {tensor_u32("axes", {2}, {0, 1})},
                   {f32({1}, {*std::max_element(x24.begin(), x24.end())})}});
  // ReduceMean in UFIXED_POINT_8 (inputs on the 1/2 grid; mean of 4 on the 1/8 grid).
  cases.push_back({"ReduceMean", "ufixed8", {fixed(QNN_DATATYPE_UFIXED_POINT_8, {2, 4}, x24, 0.5f, -10)},
                   {tensor_u32("axes", {1}, {1})},
                   {fixed(QNN_DATATYPE_UFIXED_POINT_8, {2}, {mean({1.0, -2.0, 3.5, 0.5}), mean({-1.5, 4.0, 2.0, -0.5})},
                          0.125f, -40)},
                   1e-6});

  // Argmax / Argmin ties: the first index wins (along axis 0 here).
  cases.push_back({"Argmax", "ties take the first, axis 0", {f32({3, 2}, {1, 5, 4, 5, 4, 2})}, {scalar_u32("axis", 0)},
                   {i32({2}, {1, 0})}});
  cases.push_back({"Argmin", "ties take the first", {f32({1, 5}, {3, 1, 2, 1, 1})}, {scalar_u32("axis", 1)},
                   {i32({1}, {1})}});

  // TopK ties: equal values in larger-index-first order (op facts §4.2, QNN's
  // stated rule), k = 3 of [5, 7, 5, 7, 1] -> 7 (3), 7 (1), 5 (2).
  {
    const std::vector<D> x = {5, 7, 5, 7, 1};
    std::vector<int> order = {0, 1, 2, 3, 4};
    std::stable_sort(order.begin(), order.end(), [&](int p, int q) { return x[p] != x[q] ? x[p] > x[q] : p > q; });
    std::vector<D> vals, idx;
    for (int j = 0; j < 3; ++j) vals.push_back(x[size_t(order[j])]), idx.push_back(order[j]);
    cases.push_back({"TopK", "ties larger index first, uint32 indices", {f32({1, 5}, x)}, {scalar_u32("k", 3)},
                     {f32({1, 3}, vals), u32({1, 3}, idx)}});
  }
  return cases;
}

}  // namespace qnntest::opdef
