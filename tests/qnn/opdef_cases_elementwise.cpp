// The standalone element-wise ops (ElementWiseAbs .. ElementWiseXor): each op
// over a small vector, expected values from the formula in double (<cmath>).
#include <cmath>
#include <functional>

#include "opdef_cases.h"

namespace qnntest::opdef {
namespace {

using D = double;
using Unary = std::function<D(D)>;
using Binary = std::function<D(D, D)>;

std::vector<D> map1(const std::vector<D>& a, const Unary& f) {
  std::vector<D> y;
  for (D x : a) y.push_back(f(x));
  return y;
}
std::vector<D> map2(const std::vector<D>& a, const std::vector<D>& b, const Binary& f) {
  std::vector<D> y;
  for (size_t i = 0; i < a.size(); ++i) y.push_back(f(a[i], b[i]));
  return y;
}
uint32_t n_of(const std::vector<D>& v) { return static_cast<uint32_t>(v.size()); }

// FLOAT_32 in and out (out BOOL_8 for comparisons and logic).
Case unary(const char* op, const std::vector<D>& a, const Unary& f, double tol = 1e-5) {
  return Case{op, "float32", {f32({1, n_of(a)}, a)}, {}, {f32({1, n_of(a)}, map1(a, f))}, tol};
}
Case binary(const char* op, const std::vector<D>& a, const std::vector<D>& b, const Binary& f, bool bool_out,
            double tol = 1e-5) {
  const uint32_t n = n_of(a);
  Tensor out = bool_out ? bool8({1, n}, map2(a, b, f)) : f32({1, n}, map2(a, b, f));
  return Case{op, bool_out ? "float32 to bool" : "float32", {f32({1, n}, a), f32({1, n}, b)}, {}, {out}, tol};
}

}  // namespace

OPDEF_CASES(elementwise) {
  const std::vector<D> general = {-2.5, -1.5, -0.5, 0.0, 0.7, 1.5, 2.5, 3.0};
  const std::vector<D> unit = {-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 0.9, 1.0};
  const std::vector<D> positive = {0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 9.0, 100.0};
  const std::vector<D> a = {7.0, -7.0, 7.0, -7.0, 5.5, 2.0, 0.0, 3.0};
  const std::vector<D> b = {2.0, 2.0, -2.0, -2.0, 2.0, 2.0, 4.0, 0.5};
  auto t = [](D v) { return v != 0.0; };
  CaseList cases = {
      unary("ElementWiseAbs", general, [](D x) { return std::fabs(x); }),
      unary("ElementWiseAsin", unit, [](D x) { return std::asin(x); }),
      unary("ElementWiseAtan", general, [](D x) { return std::atan(x); }),
      unary("ElementWiseCeil", general, [](D x) { return std::ceil(x); }),
      unary("ElementWiseCos", general, [](D x) { return std::cos(x); }),
      unary("ElementWiseExp", general, [](D x) { return std::exp(x); }),
      unary("ElementWiseFloor", general, [](D x) { return std::floor(x); }),
      unary("ElementWiseLog", positive, [](D x) { return std::log(x); }),  // log(0) = -inf
      unary("ElementWiseNeg", general, [](D x) { return -x; }),
      // Half to even (nearbyint in the default rounding mode).
      unary("ElementWiseRound", general, [](D x) { return std::nearbyint(x); }),
      unary("ElementWiseRsqrt", positive, [](D x) { return 1.0 / std::sqrt(x); }),  // rsqrt(0) = inf
      unary("ElementWiseSign", general, [](D x) { return D(x > 0) - D(x < 0); }),
      unary("ElementWiseSin", general, [](D x) { return std::sin(x); }),
      unary("ElementWiseSquareRoot", positive, [](D x) { return std::sqrt(x); }),
      Case{"ElementWiseNot", "bool", {bool8({1, 8}, {0, 1, 1, 0, 0, 1, 0, 1})}, {}, {bool8({1, 8}, {1, 0, 0, 1, 1, 0, 1, 0})}},
      binary("ElementWiseAnd", a, b, [t](D x, D y) { return D(t(x) && t(y)); }, true),
      binary("ElementWiseEqual", a, b, [](D x, D y) { return D(x == y); }, true),
      binary("ElementWiseFloorDiv", a, b, [](D x, D y) { return std::floor(x / y); }, false),
      binary("ElementWiseFmod", a, b, [](D x, D y) { return std::fmod(x, y); }, false),
      binary("ElementWiseGreater", a, b, [](D x, D y) { return D(x > y); }, true),
      binary("ElementWiseGreaterEqual", a, b, [](D x, D y) { return D(x >= y); }, true),
      binary("ElementWiseLess", a, b, [](D x, D y) { return D(x < y); }, true),
      binary("ElementWiseLessEqual", a, b, [](D x, D y) { return D(x <= y); }, true),
      binary("ElementWiseMod", a, b, [](D x, D y) { return x - y * std::floor(x / y); }, false),
      binary("ElementWiseNotEqual", a, b, [](D x, D y) { return D(x != y); }, true),
      binary("ElementWiseOr", a, b, [t](D x, D y) { return D(t(x) || t(y)); }, true),
      binary("ElementWisePower", a, b, [](D x, D y) { return std::pow(x, y); }, false),
      binary("ElementWiseSquaredDifference", a, b, [](D x, D y) { return (x - y) * (x - y); }, false),
      binary("ElementWiseXor", a, b, [t](D x, D y) { return D(t(x) != t(y)); }, true),
  };

  // FLOAT_16 in and out: the values are exact in half, the results within
  // half's precision (2^-11 relative; |exp(x)| <= 20 here).
  {
    Case c = unary("ElementWiseExp", general, [](D x) { return std::exp(x); }, 20.1 * 0.001);
    c.label = "float16";
    c.inputs[0].type = c.outputs[0].type = QNN_DATATYPE_FLOAT_16;
    cases.push_back(c);
  }
  {
    Case c = binary("ElementWiseSquaredDifference", a, b, [](D x, D y) { return (x - y) * (x - y); }, false, 0.05);
    c.label = "float16";
    for (Tensor* t16 : {&c.inputs[0], &c.inputs[1], &c.outputs[0]}) t16->type = QNN_DATATYPE_FLOAT_16;
    cases.push_back(c);
  }
  // UFIXED_POINT_8: x on a grid of 1/16 (exact in the input encoding), the
  // output of sqrt quantized at 1/64: one output step of error allowed.
  {
    const std::vector<D> x = {0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 9.0, 15.0};
    cases.push_back(Case{"ElementWiseSquareRoot", "ufixed8",
                         {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 8}, x, 1.0f / 16, 0)},
                         {},
                         {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 8}, map1(x, [](D v) { return std::sqrt(v); }), 1.0f / 64, 0)},
                         1.0 / 64});
  }
  // An integer comparison: INT_32 inputs compared natively, BOOL_8 out.
  cases.push_back(Case{"ElementWiseGreater", "int32",
                       {i32({4}, {3, -2, 100000, 7}), i32({4}, {2, -2, 99999, 8})},
                       {},
                       {bool8({4}, {1, 0, 1, 0})}});
  return cases;
}

}  // namespace qnntest::opdef
