// The math family (src/ops/reference/math_group.cpp, less the standalone
// element-wise ops of opdef_cases_elementwise.cpp): element-wise binary and
// unary ops, ElementWiseNeuron and the standalone activations, Prelu.
// Expected values from the formula in each case, in double.
#include <algorithm>
#include <cmath>
#include <functional>

#include "opdef_cases.h"

namespace qnntest::opdef {
namespace {

using D = double;

std::vector<D> map1(const std::vector<D>& a, const std::function<D(D)>& f) {
  std::vector<D> y;
  for (D x : a) y.push_back(f(x));
  return y;
}
std::vector<D> map2(const std::vector<D>& a, const std::vector<D>& b, const std::function<D(D, D)>& f) {
  std::vector<D> y;
  for (size_t i = 0; i < a.size(); ++i) y.push_back(f(a[i], b[i]));
  return y;
}
D sigmoid(D x) { return 1.0 / (1.0 + std::exp(-x)); }
D gelu(D x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }  // the erf form, as QNN's Gelu
D hard_swish(D x) { return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0; }

}  // namespace

OPDEF_CASES(math) {
  const std::vector<D> x = {-4.0, -2.5, -1.0, -0.25, 0.0, 0.5, 1.75, 3.5};
  const std::vector<D> a = {7.0, -3.0, 0.5, -1.25, 2.0, 6.0, -8.0, 1.0};
  const std::vector<D> b = {2.0, 4.0, -0.5, -2.5, 2.0, -3.0, 0.25, 8.0};
  const std::vector<uint32_t> d8 = {2, 4};
  auto bin = [&](const char* op, const std::function<D(D, D)>& f) {
    return Case{op, "float32", {f32(d8, a), f32(d8, b)}, {}, {f32(d8, map2(a, b, f))}};
  };
  auto act = [&](const char* op, const std::function<D(D)>& f, std::vector<Param> params = {}) {
    return Case{op, "float32", {f32(d8, x)}, std::move(params), {f32(d8, map1(x, f))}};
  };

  CaseList cases = {
      bin("ElementWiseSubtract", [](D p, D q) { return p - q; }),
      bin("ElementWiseDivide", [](D p, D q) { return p / q; }),
      bin("ElementWiseMaximum", [](D p, D q) { return std::max(p, q); }),
      bin("ElementWiseMinimum", [](D p, D q) { return std::min(p, q); }),
      act("Sigmoid", sigmoid),
      act("Tanh", [](D v) { return std::tanh(v); }),
      act("Gelu", gelu),
      act("HardSwish", hard_swish),
      act("ReluMinMax", [](D v) { return std::clamp(v, -1.0, 2.0); },
          {scalar_f32("min_value", -1.0f), scalar_f32("max_value", 2.0f)}),
  };

  // Subtract with broadcasting: [2, 1, 3] - [2, 1] gives [2, 2, 3].
  {
    const std::vector<D> p = {1, 2, 3, -4, -5, -6}, q = {0.5, -1.5};
    std::vector<D> y;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int k = 0; k < 3; ++k) y.push_back(p[i * 3 + k] - q[j]);
    cases.push_back({"ElementWiseSubtract", "broadcast [2,1,3] - [2,1]", {f32({2, 1, 3}, p), f32({2, 1}, q)}, {},
                     {f32({2, 2, 3}, y)}});
  }

  // The generic ElementWiseBinary: POWER (16) and SUBTRACT (18), and a comparison to BOOL_8.
  cases.push_back({"ElementWiseBinary", "operation POWER",
                   {f32({4}, {2, -3, 0.5, 4}), f32({4}, {3, 2, -2, 0.5})},
                   {scalar_u32("operation", 16)},
                   {f32({4}, map2({2, -3, 0.5, 4}, {3, 2, -2, 0.5}, [](D p, D q) { return std::pow(p, q); }))}});
  cases.push_back({"ElementWiseBinary", "operation SUBTRACT", {f32(d8, a), f32(d8, b)}, {scalar_u32("operation", 18)},
                   {f32(d8, map2(a, b, [](D p, D q) { return p - q; }))}});
  cases.push_back({"ElementWiseBinary", "operation LESS_EQUAL", {f32(d8, a), f32(d8, b)}, {scalar_u32("operation", 9)},
                   {bool8(d8, map2(a, b, [](D p, D q) { return D(p <= q); }))}});

  // The generic ElementWiseUnary: RECIPROCAL (10, no standalone op) and SIN (14).
  {
    const std::vector<D> nz = {-4.0, -2.5, -1.0, -0.25, 0.125, 0.5, 1.75, 3.5};
    cases.push_back({"ElementWiseUnary", "operation RECIPROCAL", {f32(d8, nz)}, {scalar_u32("operation", 10)},
                     {f32(d8, map1(nz, [](D v) { return 1.0 / v; }))}});
    cases.push_back({"ElementWiseUnary", "operation SIN", {f32(d8, x)}, {scalar_u32("operation", 14)},
                     {f32(d8, map1(x, [](D v) { return std::sin(v); }))}});
  }

  // ElementWiseNeuron: ELU (0) with alpha 0.5: x > 0 ? x : alpha * (e^x - 1);
  // HARD_SIGMOID (2) with alpha 0.25, beta 0.5: clamp(alpha * x + beta, 0, 1);
  // SOFTPLUS (7), beta 1: log(1 + e^x).
  cases.push_back(act("ElementWiseNeuron", [](D v) { return v > 0 ? v : 0.5 * std::expm1(v); },
                      {scalar_u32("operation", 0), scalar_f32("alpha", 0.5f)}));
  cases.back().label = "operation ELU alpha 0.5";
  cases.push_back(act("ElementWiseNeuron", [](D v) { return std::clamp(0.25 * v + 0.5, 0.0, 1.0); },
                      {scalar_u32("operation", 2), scalar_f32("alpha", 0.25f), scalar_f32("beta", 0.5f)}));
  cases.back().label = "operation HARD_SIGMOID";
  cases.push_back(act("ElementWiseNeuron", [](D v) { return std::log1p(std::exp(v)); }, {scalar_u32("operation", 7)}));
  cases.back().label = "operation SOFTPLUS";

  // Prelu: y = x >= 0 ? x : alpha * x, alpha [4] broadcast along the last axis.
  {
    const std::vector<D> alpha = {0.1, 0.25, 0.5, 2.0};
    std::vector<D> y;
    for (size_t i = 0; i < x.size(); ++i) y.push_back(x[i] >= 0 ? x[i] : alpha[i % 4] * x[i]);
    cases.push_back({"Prelu", "alpha per channel", {f32(d8, x), fixed_static(f32({4}, alpha))}, {}, {f32(d8, y)}});
  }

  // FLOAT_16: Sigmoid and Subtract (inputs exact in half, results within
  // half's rounding: 2^-11 relative, |y| <= 12 here).
  {
    Case c = act("Sigmoid", sigmoid);
    c.label = "float16";
    c.inputs[0].type = c.outputs[0].type = QNN_DATATYPE_FLOAT_16;
    c.tolerance = 1.0 / 2048;
    cases.push_back(c);
    Case s = bin("ElementWiseSubtract", [](D p, D q) { return p - q; });
    s.label = "float16";
    for (Tensor* t : {&s.inputs[0], &s.inputs[1], &s.outputs[0]}) t->type = QNN_DATATYPE_FLOAT_16;
    s.tolerance = 12.0 / 2048;
    cases.push_back(s);
  }
  // UFIXED_POINT_8: Tanh of x on the 1/16 grid (offset -128: [-8, 8)), the
  // output at 1/128 with offset -128 ([-1, 1)): one output step of error.
  cases.push_back({"Tanh", "ufixed8", {fixed(QNN_DATATYPE_UFIXED_POINT_8, d8, x, 1.0f / 16, -128)}, {},
                   {fixed(QNN_DATATYPE_UFIXED_POINT_8, d8, map1(x, [](D v) { return std::tanh(v); }), 1.0f / 128, -128)},
                   1.0 / 128});
  // ReluMinMax on INT_32: clamped natively, exact.
  cases.push_back({"ReluMinMax", "int32", {i32({5}, {-100, -3, 0, 4, 70})},
                   {scalar_f32("min_value", -3.0f), scalar_f32("max_value", 6.0f)}, {i32({5}, {-3, -3, 0, 4, 6})}});

  // Plain integers, computed natively (values a float detour would round:
  // 16777217 = 2^24 + 1 is not a float).
  cases.push_back({"ElementWiseSubtract", "int32 beyond 2^24", {i32({3}, {16777217, -5, 100}), i32({3}, {-1, 7, 100})}, {},
                   {i32({3}, {16777218, -12, 0})}});
  // Integer division truncates toward zero (C's rule): 7/2, -7/2, 7/-2, -7/-2.
  cases.push_back({"ElementWiseDivide", "int32 truncates toward zero",
                   {i32({4}, {7, -7, 7, -7}), i32({4}, {2, 2, -2, -2})}, {}, {i32({4}, {3, -3, -3, 3})}});
  {
    const std::vector<D> p = {0, 255, 17, 200}, q = {3, 254, 17, 201};
    cases.push_back({"ElementWiseMaximum", "uint8",
                     {Tensor{QNN_DATATYPE_UINT_8, {4}, p}, Tensor{QNN_DATATYPE_UINT_8, {4}, q}}, {},
                     {Tensor{QNN_DATATYPE_UINT_8, {4}, map2(p, q, [](D u, D v) { return std::max(u, v); })}}});
  }
  // ElementWiseBinary MOD (12) on INT_32 takes the divisor's sign: x - y * floor(x / y).
  {
    const std::vector<D> p = {7, -7, 7, -7, 9}, q = {3, 3, -3, -3, 9};
    cases.push_back({"ElementWiseBinary", "int32 MOD", {i32({5}, p), i32({5}, q)}, {scalar_u32("operation", 12)},
                     {i32({5}, map2(p, q, [](D u, D v) { return u - v * std::floor(u / v); }))}});
  }
  // ElementWiseMinimum broadcasting a scalar-like [1] against [2, 4], FLOAT_16.
  cases.push_back({"ElementWiseMinimum", "float16 broadcast [1]", {f16(d8, x), f16({1}, {0.5})}, {},
                   {f16(d8, map1(x, [](D v) { return std::min(v, 0.5); }))}, 0.0});
  // ElementWiseDivide in UFIXED_POINT_8: a on 1/8, b on 1/4 (>= 0.5), a/b at 1/16 (offset -64).
  {
    const std::vector<D> p = {0.0, 1.0, 2.5, 3.0, -2.0, 7.5}, q = {0.5, 2.0, 0.75, 4.0, 1.25, 3.0};
    cases.push_back({"ElementWiseDivide", "ufixed8",
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {6}, p, 0.125f, -32), fixed(QNN_DATATYPE_UFIXED_POINT_8, {6}, q, 0.25f, 0)},
                     {},
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {6}, map2(p, q, [](D u, D v) { return u / v; }), 1.0f / 16, -64)},
                     1.0 / 16});
  }
  // Gelu and HardSwish in FLOAT_16 (|y| <= 4: half's rounding 2^-9).
  for (auto [op, f] : {std::pair<const char*, D (*)(D)>{"Gelu", gelu}, {"HardSwish", hard_swish}}) {
    Case c = act(op, f);
    c.label = "float16";
    c.inputs[0].type = c.outputs[0].type = QNN_DATATYPE_FLOAT_16;
    c.tolerance = 1.0 / 256;
    cases.push_back(c);
  }
  // Prelu with a per-element alpha [2, 4] (no broadcasting).
  {
    const std::vector<D> alpha = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
    std::vector<D> y;
    for (size_t i = 0; i < x.size(); ++i) y.push_back(x[i] >= 0 ? x[i] : alpha[i] * x[i]);
    cases.push_back({"Prelu", "alpha per element", {f32(d8, x), f32(d8, alpha)}, {}, {f32(d8, y)}});
  }
  return cases;
}

}  // namespace qnntest::opdef
