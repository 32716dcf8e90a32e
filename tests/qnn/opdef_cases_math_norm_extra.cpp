// The later math and norm ops (activation_standalone.cpp, logit.cpp,
// is_inf_nan.cpp, l2_norm.cpp, lrn.cpp, moments.cpp, masked_softmax.cpp,
// rotary_embedding.cpp): one or two small cases each, expected values from
// the formula written in the case, computed in double.
#include <algorithm>
#include <cmath>
#include <limits>

#include "opdef_cases.h"

namespace qnntest::opdef {
namespace {

using D = double;

std::vector<D> map1(const std::vector<D>& x, D (*f)(D)) {
  std::vector<D> y;
  for (D v : x) y.push_back(f(v));
  return y;
}

// Softmax of v in double.
std::vector<D> softmax(const std::vector<D>& v) {
  D m = v[0];
  for (D e : v) m = std::max(m, e);
  D sum = 0;
  for (D e : v) sum += std::exp(e - m);
  std::vector<D> y;
  for (D e : v) y.push_back(std::exp(e - m) / sum);
  return y;
}

}  // namespace

OPDEF_CASES(math_norm_extra) {
  CaseList cases;
  const D inf = std::numeric_limits<D>::infinity();
  const D nan = std::numeric_limits<D>::quiet_NaN();

  // Relu1 / Relu6: clamps to [-1, 1] / [0, 6].
  const std::vector<D> x6 = {-3.0, -1.0, -0.5, 0.0, 0.75, 2.0, 6.5};
  cases.push_back({"Relu1", "clamp to [-1, 1]", {f32({7}, x6)}, {},
                   {f32({7}, map1(x6, [](D v) { return std::min(1.0, std::max(-1.0, v)); }))}});
  cases.push_back({"Relu6", "clamp to [0, 6]", {f32({7}, x6)}, {},
                   {f32({7}, map1(x6, [](D v) { return std::min(6.0, std::max(0.0, v)); }))}});
  // UFIXED_POINT_8 in at scale 0.05 offset -40 ([-2, 10.75]), out at 0.025
  // offset 0 ([0, 6.375]): one output step of error.
  cases.push_back({"Relu6", "ufixed8", {fixed(QNN_DATATYPE_UFIXED_POINT_8, {4}, {-2.0, 1.0, 5.0, 7.0}, 0.05f, -40)},
                   {}, {fixed(QNN_DATATYPE_UFIXED_POINT_8, {4}, {0.0, 1.0, 5.0, 6.0}, 0.025f, 0)}, 0.025});

  // Elu, alpha 0.5: x for x > 0, else 0.5 (e^x - 1).
  const std::vector<D> xe = {-2.0, -0.5, 0.0, 1.5};
  cases.push_back({"Elu", "alpha 0.5", {f32({4}, xe)}, {scalar_f32("alpha", 0.5f)},
                   {f32({4}, map1(xe, [](D v) { return v > 0 ? v : 0.5 * (std::exp(v) - 1.0); }))}});

  // ElementWiseSoftplus, beta 2, threshold 3: log(1 + e^(2x)) / 2, or x where 2x > 3.
  const std::vector<D> xs = {-1.0, 0.0, 1.0, 2.0};
  cases.push_back({"ElementWiseSoftplus", "beta 2 threshold 3", {f32({4}, xs)},
                   {scalar_f32("beta", 2.0f), scalar_f32("threshold", 3.0f)},
                   {f32({4}, map1(xs, [](D v) { return 2 * v > 3 ? v : std::log(1.0 + std::exp(2 * v)) / 2; }))}});

  // Logit: log(x / (1 - x)); with eps 0.1 inputs are clamped to [0.1, 0.9] first.
  const std::vector<D> xl = {0.2, 0.5, 0.8};
  cases.push_back({"Logit", "no eps", {f32({3}, xl)}, {},
                   {f32({3}, map1(xl, [](D v) { return std::log(v / (1 - v)); }))}});
  const D lo = std::log(0.1 / 0.9);
  cases.push_back({"Logit", "eps 0.1", {f32({3}, {0.0, 0.5, 1.0})}, {scalar_f32("eps", 0.1f)},
                   {f32({3}, {lo, 0.0, -lo})}});

  // IsInf (negative infinities not detected) and IsNan: BOOL_8 out.
  const std::vector<D> xi = {inf, -inf, nan, 1.0};
  cases.push_back({"IsInf", "detect_negative 0", {f32({4}, xi)}, {scalar_bool("detect_negative", false)},
                   {bool8({4}, {1, 0, 0, 0})}});
  cases.push_back({"IsNan", "float32", {f32({4}, xi)}, {}, {bool8({4}, {0, 0, 1, 0})}});

  // L2Norm along the last axis of [2,2] = {3,4 | -6,8}: norms 5 and 10.
  cases.push_back({"L2Norm", "default axis", {f32({2, 2}, {3, 4, -6, 8})}, {},
                   {f32({2, 2}, {3 / 5.0, 4 / 5.0, -6 / 10.0, 8 / 10.0})}});

  // Lrn across channels of [1,1,1,4] = {1,2,3,4}, radius 1, alpha 0.5,
  // beta 1, bias 1: y = x / (1 + 0.5 * sum of x^2 over c-1..c+1).
  {
    const std::vector<D> x = {1, 2, 3, 4};
    std::vector<D> y;
    for (int c = 0; c < 4; ++c) {
      D s = 0;
      for (int q = std::max(0, c - 1); q <= std::min(3, c + 1); ++q) s += x[q] * x[q];
      y.push_back(x[c] / (1 + 0.5 * s));
    }
    cases.push_back({"Lrn", "across channel radius 1", {f32({1, 1, 1, 4}, x)},
                     {scalar_f32("alpha", 0.5f), scalar_f32("beta", 1.0f), scalar_f32("bias", 1.0f),
                      scalar_u32("radius", 1)},
                     {f32({1, 1, 1, 4}, y)}});
  }

  // Moments of [2,3] = {1,2,3 | 4,6,8} over axis 1: means {2, 6},
  // population variances {2/3, 8/3}.
  cases.push_back({"Moments", "axis 1", {f32({2, 3}, {1, 2, 3, 4, 6, 8})}, {tensor_u32("axes", {1}, {1})},
                   {f32({2}, {2, 6}), f32({2}, {2.0 / 3, 8.0 / 3})}});

  // MaskedSoftmax, uncompressed: softmax(x + mask) along the last axis.
  {
    std::vector<D> y = softmax({1, 2, 3 - 10000.0});
    for (D v : softmax({0.5, 0, -1 - 10000.0})) y.push_back(v);
    cases.push_back({"MaskedSoftmax", "uncompressed",
                     {f32({1, 1, 2, 3}, {1, 2, 3, 0.5, 0, -1}), f32({1, 3}, {0, 0, -10000})}, {},
                     {f32({1, 1, 2, 3}, y)}});
  }
  // Compressed: lengths {1, 2} of [1,1,3,3] = x[i][j] = i + j: row 0 is the
  // one-element sequence {0}; rows 1, 2 a softmax over columns 1, 2.
  {
    std::vector<D> x, y(9, 0.0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) x.push_back(i + j);
    y[0] = 1.0;
    for (int i = 1; i < 3; ++i) {
      const std::vector<D> s = softmax({x[i * 3 + 1], x[i * 3 + 2]});
      y[i * 3 + 1] = s[0];
      y[i * 3 + 2] = s[1];
    }
    cases.push_back({"MaskedSoftmax", "compressed lengths", {f32({1, 1, 3, 3}, x), i32({1, 2}, {1, 2})},
                     {scalar_u32("mode", 1)}, {f32({1, 1, 3, 3}, y)}});
  }
  // RotaryEmbedding of x [1,1,2,2] = {1,2 | 3,4}: each position's pair
  // (x1, x2) turned by its angle (0.5, then 1.0 rad):
  // (x1 cos - x2 sin, x2 cos + x1 sin).
  {
    const D a0 = 0.5, a1 = 1.0;
    cases.push_back({"RotaryEmbedding", "halves, no position_ids",
                     {f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({2, 1}, {std::cos(a0), std::cos(a1)}),
                      f32({2, 1}, {std::sin(a0), std::sin(a1)})},
                     {scalar_bool("interleaved", false)},
                     {f32({1, 1, 2, 2}, {1 * std::cos(a0) - 2 * std::sin(a0), 2 * std::cos(a0) + 1 * std::sin(a0),
                                         3 * std::cos(a1) - 4 * std::sin(a1), 4 * std::cos(a1) + 3 * std::sin(a1)})}});
  }
  return cases;
}

}  // namespace qnntest::opdef
