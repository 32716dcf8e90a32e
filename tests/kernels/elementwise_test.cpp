// The element-wise fast paths (xnnpack_binary.cpp, xnnpack_unary.cpp,
// xnnpack_transpose.cpp) against the reference kernels: random shapes of
// rank 1..5 (with broadcasts for binary ops), data with the special values
// that tell implementations apart (±0, ±inf, NaN, rounding ties,
// subnormals, huge values), at 1 and 2 threads, plus tensors large enough
// that the pool really splits them.
#include <cmath>
#include <cstdio>
#include <limits>

#include <bit>

#include "kernel_check.h"
#include "kernels/xnnpack_elementwise.h"

namespace kernelstest {
namespace {

// Large enough for the pool to split cheap element-wise work
// (xnnpack_elementwise.h: kCheapMin, 16M); used once per kind of path (it is
// 64 MiB a tensor).
constexpr uint32_t kLarge = (16u << 20) + 37;

// XNNPACK runs its operators with subnormals flushed to zero (it sets
// FTZ/DAZ around every xnn_run_operator): a subnormal input reads as ±0 and
// a subnormal result is written as ±0, unlike the reference. Data for the
// XNNPACK-backed ops therefore has no subnormal inputs, and a result below
// 2^-126 in magnitude on both sides counts as equal (expect_same_floats).
std::vector<float> special_floats(std::mt19937& rng, size_t n, bool subnormals = true) {
  static const float kSpecial[] = {0.0f,  -0.0f, INFINITY, -INFINITY, NAN,   0.5f,   -0.5f,   1.5f,    -2.5f,
                                   3.0f,  -3.0f, 6.0f,     -1.0f,     1e30f, -1e30f, 1e-3f, 1e-40f, -1e-40f};
  const size_t n_special = std::size(kSpecial) - (subnormals ? 0 : 2);
  std::vector<float> v = random_floats(rng, n, -8.0f, 8.0f);
  for (float& x : v) {
    if (rand_int(rng, 0, 15) == 0) x = kSpecial[rand_int(rng, 0, n_special - 1)];
  }
  return v;
}

// Bit-exact, except that any NaN equals any NaN (a NaN's sign and payload
// are not part of the result) and, with `ftz`, two results below 2^-126 in
// magnitude are equal (XNNPACK flushes subnormal results).
void expect_same_floats(const Bytes& fast, const Bytes& ref, const std::string& what, bool ftz = false) {
  ASSERT_EQ(fast.size(), ref.size()) << what;
  const auto f = from_bytes<float>(fast), r = from_bytes<float>(ref);
  constexpr float kMin = std::numeric_limits<float>::min();
  for (size_t i = 0; i < f.size(); ++i) {
    if (std::isnan(f[i]) && std::isnan(r[i])) continue;
    if (ftz && std::fabs(f[i]) < kMin && std::fabs(r[i]) < kMin) continue;
    uint32_t fb, rb;
    std::memcpy(&fb, &f[i], 4);
    std::memcpy(&rb, &r[i], 4);
    ASSERT_EQ(fb, rb) << what << " at " << i << ": fast " << f[i] << " reference " << r[i];
  }
}

// The fast path takes `c` on one thread and on two, and gives the
// reference's bits (any NaN for a NaN).
void expect_taken_and_exact(const Case& c, const FastPath& fp, const ThreadEnv& one, const ThreadEnv& two) {
  const Bytes ref = run_reference(c);
  for (const ThreadEnv* env : {&one, &two}) {
    bool accepted = false;
    const Bytes fast = run_fast(c, fp, env->env(), &accepted);
    ASSERT_TRUE(accepted) << c.node.name;
    expect_same_floats(fast, ref, c.node.name);
  }
}

// Random broadcastable shapes: b's dims are a's, some set to 1, some dropped
// from the front; either may be the broadcast one.
void random_broadcast(std::mt19937& rng, std::vector<uint32_t>* a, std::vector<uint32_t>* b, std::vector<uint32_t>* y) {
  const size_t rank = rand_int(rng, 1, 5);
  a->clear();
  for (size_t i = 0; i < rank; ++i) a->push_back(rand_int(rng, 1, 7));
  *b = *a;
  if (rand_int(rng, 0, 3) != 0) {  // a quarter stay dense
    for (auto& d : *b) {
      if (rand_int(rng, 0, 2) == 0) d = 1;
    }
    while (b->size() > 1 && rand_int(rng, 0, 2) == 0) b->erase(b->begin());
  }
  *y = *a;
  if (rand_int(rng, 0, 1) != 0) std::swap(*a, *b);
}

std::vector<uint32_t> random_dims(std::mt19937& rng) {
  std::vector<uint32_t> d(rand_int(rng, 1, 5));
  for (auto& x : d) x = rand_int(rng, 1, 9);
  return d;
}

struct BinaryCase {
  const char* type;
  int operation;  // ElementWiseBinary's code, or -1 for the op itself
};
constexpr BinaryCase kBinaryF32[] = {
    {"ElementWiseAdd", -1},    {"ElementWiseMultiply", -1}, {"ElementWiseSubtract", -1},
    {"ElementWiseDivide", -1}, {"ElementWiseSquaredDifference", -1},
    {"ElementWiseBinary", 0},  {"ElementWiseBinary", 2},     {"ElementWiseBinary", 13},
    {"ElementWiseBinary", 17}, {"ElementWiseBinary", 18},
};

Case binary_case(const BinaryCase& op, TensorDesc a, TensorDesc b, TensorDesc y) {
  Case c;
  c.node.type = op.type;
  c.node.name = std::string(op.type) + (op.operation >= 0 ? "/" + std::to_string(op.operation) : "");
  c.node.inputs = {std::move(a), std::move(b)};
  c.node.outputs = {std::move(y)};
  if (op.operation >= 0) c.node.params = {u32_param("operation", op.operation)};
  c.is_static = {false, false};
  return c;
}

TEST(ElementwiseBinary, F32XnnpackExact) {
  // One correctly rounded float operation per output in both kernels.
  std::mt19937 rng(81);
  ThreadEnv one(1), two(2);
  for (const BinaryCase& op : kBinaryF32) {
    const FastPath& fp = fast_path(op.type, "xnnpack");
    for (int iter = 0; iter < 25; ++iter) {
      std::vector<uint32_t> a, b, y;
      random_broadcast(rng, &a, &b, &y);
      const bool first = &op == &kBinaryF32[0] || &op == &kBinaryF32[3];
      if (first && iter == 0) a = b = y = {kLarge};                   // dense, split over the pool
      if (first && iter == 1) a = {1, kLarge / 8, 8}, b = {8}, y = a;  // broadcast, split
      Case c = binary_case(op, f32(a), f32(b), f32(y));
      c.data = {to_bytes(special_floats(rng, count(a), false)), to_bytes(special_floats(rng, count(b), false))};
      const Bytes ref = run_reference(c);
      for (const ThreadEnv* env : {&one, &two}) {
        expect_same_floats(run_fast(c, fp, env->env()), ref, c.node.name, true);
      }
    }
  }
}

TEST(ElementwiseBinary, F32RowBroadcastExactWithSubnormals) {
  // A row broadcast down a dense input ([.., C] op [C] either way round, a
  // squeeze-excite scale) runs openhtp's own loop, not XNNPACK: the
  // reference's expression per element, so exact with subnormals kept.
  std::mt19937 rng(84);
  ThreadEnv one(1), two(2);
  for (const BinaryCase& op : kBinaryF32) {
    const FastPath& fp = fast_path(op.type, "xnnpack");
    for (int iter = 0; iter < 8; ++iter) {
      const bool large = iter == 0 && &op == &kBinaryF32[1];  // EfficientNet's, split over the pool
      const uint32_t c_len = large ? 32 : rand_int(rng, 1, 70);
      const std::vector<uint32_t> dense = {1, large ? 112u : rand_int(rng, 1, 9), large ? 112u : rand_int(rng, 1, 9),
                                           c_len};
      const std::vector<uint32_t> row = iter % 2 == 0 ? std::vector<uint32_t>{1, 1, 1, c_len}
                                                      : std::vector<uint32_t>{c_len};
      const bool row_first = iter % 4 >= 2;
      Case c = row_first ? binary_case(op, f32(row), f32(dense), f32(dense))
                         : binary_case(op, f32(dense), f32(row), f32(dense));
      c.data = {to_bytes(special_floats(rng, count(c.node.inputs[0].dims))),
                to_bytes(special_floats(rng, count(c.node.inputs[1].dims)))};
      expect_taken_and_exact(c, fp, one, two);
    }
  }
}

TEST(ElementwiseBinary, F32MaximumMinimumExact) {
  // NaN on either side gives NaN (numpy); no flushing (not XNNPACK). Dense,
  // or one value against a tensor.
  std::mt19937 rng(83);
  ThreadEnv one(1), two(2);
  const BinaryCase ops[] = {{"ElementWiseMaximum", -1}, {"ElementWiseMinimum", -1}, {"ElementWiseBinary", 10},
                            {"ElementWiseBinary", 11}};
  for (const BinaryCase& op : ops) {
    const FastPath& fp = fast_path(op.type, "xnnpack");
    for (int iter = 0; iter < 12; ++iter) {
      std::vector<uint32_t> a = iter == 0 && &op == &ops[0] ? std::vector<uint32_t>{kLarge} : random_dims(rng);
      Case c = binary_case(op, f32(a), f32(a), f32(a));
      c.data = {to_bytes(special_floats(rng, count(a))), to_bytes(special_floats(rng, count(a)))};
      const Bytes ref = run_reference(c);
      for (const ThreadEnv* env : {&one, &two}) expect_same_floats(run_fast(c, fp, env->env()), ref, c.node.name);
    }
    // One value against a tensor, either side, rank 0 to 4 for the value
    // (signed zeros and NaNs among the values: operand order matters).
    for (int iter = 0; iter < 16; ++iter) {
      const std::vector<uint32_t> t = iter == 0 && &op == &ops[1] ? std::vector<uint32_t>{kLarge} : random_dims(rng);
      const std::vector<uint32_t> one_value(iter % 5, 1u);
      if (one_value.size() > t.size()) continue;  // the output would take the value's rank
      const bool value_first = iter % 2 == 1;
      Case c = value_first ? binary_case(op, f32(one_value), f32(t), f32(t))
                           : binary_case(op, f32(t), f32(one_value), f32(t));
      c.data = {to_bytes(special_floats(rng, count(c.node.inputs[0].dims))),
                to_bytes(special_floats(rng, count(c.node.inputs[1].dims)))};
      // The value itself: +0, -0 or NaN in some iterations (the dense side
      // draws its own signed zeros and NaNs).
      const float value = iter % 4 == 1 ? 0.0f : iter % 4 == 2 ? -0.0f : iter % 8 == 3 ? NAN : 2.5f;
      c.data[value_first ? 0 : 1] = to_bytes(std::vector<float>{value});
      expect_taken_and_exact(c, fp, one, two);
    }
    // Other broadcasts: declined (the reference runs).
    Case bc = binary_case(op, f32({2, 3}), f32({3}), f32({2, 3}));
    bool accepted = true;
    run_fast(bc, fp, one.env(), &accepted);
    EXPECT_FALSE(accepted) << op.type;
  }
}

TEST(ElementwiseBinary, F16XnnpackExact) {
  // In float, rounded once to half: what the type adapter does.
  std::mt19937 rng(82);
  ThreadEnv one(1), two(2);
  for (const char* type : {"ElementWiseAdd", "ElementWiseMultiply"}) {
    const FastPath& fp = fast_path(type, "xnnpack");
    for (int iter = 0; iter < 25; ++iter) {
      std::vector<uint32_t> a, b, y;
      random_broadcast(rng, &a, &b, &y);
      if (iter == 0) a = b = y = {kLarge / 4};
      Case c = binary_case({type, -1}, typed(dtype::kFloat16, a), typed(dtype::kFloat16, b), typed(dtype::kFloat16, y));
      auto halves = [&](size_t n) {
        std::vector<uint16_t> h(n);
        const auto f = special_floats(rng, n, false);
        for (size_t i = 0; i < n; ++i) h[i] = openhtp::ops::quant::float_to_half(f[i]);
        return to_bytes(h);
      };
      c.data = {halves(count(a)), halves(count(b))};
      const Bytes ref = run_reference(c);
      for (const ThreadEnv* env : {&one, &two}) {
        bool accepted = false;
        const Bytes fast = run_fast(c, fp, env->env(), &accepted);
        if (!accepted) GTEST_SKIP() << "XNNPACK has no f16 on this CPU (F16C)";
        const auto f = from_bytes<uint16_t>(fast), r = from_bytes<uint16_t>(ref);
        for (size_t i = 0; i < f.size(); ++i) {
          const bool both_nan = std::isnan(openhtp::ops::quant::half_to_float(f[i])) &&
                                std::isnan(openhtp::ops::quant::half_to_float(r[i]));
          // Subnormal halves are normal floats: nothing is flushed here.
          if (!both_nan) {
            ASSERT_EQ(f[i], r[i]) << type << " at " << i;
          }
        }
      }
    }
  }
}

TEST(ElementwiseBinary, Declines) {
  ThreadEnv one(1);
  // Rank 0 (scalar) operands and integer tensors stay with the reference.
  Case scalar = binary_case({"ElementWiseMultiply", -1}, f32({}), f32({3}), f32({3}));
  bool accepted = true;
  run_fast(scalar, fast_path("ElementWiseMultiply", "xnnpack"), one.env(), &accepted);
  EXPECT_FALSE(accepted);
  Case ints = binary_case({"ElementWiseSubtract", -1}, typed(dtype::kInt32, {4}), typed(dtype::kInt32, {4}),
                          typed(dtype::kInt32, {4}));
  ints.data = {Bytes(16), Bytes(16)};
  run_fast(ints, fast_path("ElementWiseSubtract", "xnnpack"), one.env(), &accepted);
  EXPECT_FALSE(accepted);
  // An ElementWiseBinary operation without an XNNPACK operator (POWER).
  Case power = binary_case({"ElementWiseBinary", 16}, f32({4}), f32({4}), f32({4}));
  run_fast(power, fast_path("ElementWiseBinary", "xnnpack"), one.env(), &accepted);
  EXPECT_FALSE(accepted);
}

struct UnaryCase {
  const char* type;
  std::vector<Param> params;
  bool xnnpack = false;  // an XNNPACK operator: no subnormal inputs, subnormal results flushed
  bool f16_loop = true;  // not XNNPACK: its FLOAT_16 form runs the same loop in one pass
};

Case unary_case(const UnaryCase& op, const std::vector<uint32_t>& dims, std::mt19937& rng) {
  Case c;
  c.node.type = op.type;
  c.node.name = op.type;
  for (const Param& p : op.params) c.node.name += " " + p.name + "=" + std::to_string(p.f);
  c.node.inputs = {f32(dims)};
  c.node.outputs = {f32(dims)};
  c.node.params = op.params;
  c.is_static = {false};
  c.data = {to_bytes(special_floats(rng, count(dims), !op.xnnpack))};
  return c;
}

// Ops whose fast path is exact: the reference's expression, or an exact
// XNNPACK operator (square root, floor, ceiling, bankers rounding).
std::vector<UnaryCase> exact_unary() {
  return {
      {"Relu", {}},
      {"ReluMinMax", {f32_param("min_value", -0.5f), f32_param("max_value", 3.0f)}},
      {"ReluMinMax", {f32_param("min_value", 0.0f), f32_param("max_value", 6.0f)}},
      {"Relu1", {}},
      {"Relu6", {}},
      {"ElementWiseAbs", {}},
      {"ElementWiseNeg", {}},
      {"ElementWiseFloor", {}, true},
      {"ElementWiseCeil", {}, true},
      {"ElementWiseRound", {}, true},
      {"ElementWiseSquareRoot", {}, true},
      {"ElementWiseSign", {}},
      {"ElementWiseUnary", {u32_param("operation", 10)}},  // RECIPROCAL
      {"ElementWiseUnary", {u32_param("operation", 11)}, true},  // ROUND
      {"ElementWiseUnary", {u32_param("operation", 15)}, true},  // SQRT
      // In double, as the reference: FLOAT_16 takes the 16-bit table instead.
      {"ElementWiseRsqrt", {}, false, false},
      {"ElementWiseUnary", {u32_param("operation", 12)}, false, false},  // RSQRT
      {"ElementWiseNeuron", {u32_param("operation", 2), f32_param("alpha", 0.3f), f32_param("beta", 0.4f)}},
      {"ElementWiseNeuron", {u32_param("operation", 4)}},  // RELU
      {"ElementWiseNeuron",
       {u32_param("operation", 5), f32_param("min_value", -2.0f), f32_param("max_value", 2.0f)}},
  };
}

TEST(ElementwiseUnary, F32ExactPathsMatchReference) {
  std::mt19937 rng(91);
  ThreadEnv one(1), two(2);
  for (const UnaryCase& op : exact_unary()) {
    const FastPath& fp = fast_path(op.type, "xnnpack");
    for (int iter = 0; iter < 12; ++iter) {
      const bool large = iter == 0 && (std::string_view(op.type) == "ReluMinMax" || std::string_view(op.type) == "ElementWiseFloor");
      const std::vector<uint32_t> dims = large ? std::vector<uint32_t>{2, kLarge / 2} : random_dims(rng);
      Case c = unary_case(op, dims, rng);
      const Bytes ref = run_reference(c);
      for (const ThreadEnv* env : {&one, &two}) {
        expect_same_floats(run_fast(c, fp, env->env()), ref, c.node.name, op.xnnpack);
      }
    }
  }
}

// XNNPACK's sigmoid, elu and hardswish are approximations, and so are
// openhtp's tanh and GELU polynomials (float_transcendental.h). The bound tested
// is the one the other fp32 tests use for a single operation (K = 1 in
// kernel_check.h: 2 * (K + 2) * 2^-24 relative, about 3 ulp) plus an
// absolute 2^-24 * max(1, |x|) for results that cancel to near zero
// (hardswish near x = -3: XNNPACK computes x * (x / 6 + 0.5), where the
// rounding of x / 6 + 0.5 is absolute, not relative) and for subnormal
// results XNNPACK flushes. The worst error seen is printed.
TEST(ElementwiseUnary, F32ApproximatePathsWithinBound) {
  std::mt19937 rng(92);
  ThreadEnv one(1), two(2);
  const std::vector<UnaryCase> ops = {
      {"Sigmoid", {}, true},
      {"HardSwish", {}, true},
      {"Elu", {}, true},
      {"Elu", {f32_param("alpha", 0.7f)}, true},
      {"ElementWiseNeuron", {u32_param("operation", 0), f32_param("alpha", 1.3f)}, true},  // ELU
      {"ElementWiseNeuron", {u32_param("operation", 3)}, true},                            // HARD_SWISH
      {"ElementWiseNeuron", {u32_param("operation", 6)}, true},                            // SIGMOID
      {"Tanh", {}},
      {"Gelu", {}},
      {"ElementWiseNeuron", {u32_param("operation", 1)}},  // GELU
      {"ElementWiseNeuron", {u32_param("operation", 8)}},  // TANH
      {"ElementWiseExp", {}},
      {"ElementWiseUnary", {u32_param("operation", 5)}},  // EXP
      {"ElementWiseLog", {}},
      {"ElementWiseUnary", {u32_param("operation", 7)}},  // LOG
      {"ElementWiseSoftplus", {}},
      {"ElementWiseSoftplus", {f32_param("beta", 2.0f), f32_param("threshold", 1.5f)}},
      {"ElementWiseNeuron", {u32_param("operation", 7), f32_param("beta", 0.5f)}},  // SOFTPLUS
      {"ElementWiseNeuron", {u32_param("operation", 7), f32_param("threshold", 0.0f)}},
      {"ElementWiseSin", {}},
      {"ElementWiseCos", {}},
      {"ElementWiseUnary", {u32_param("operation", 14)}},  // SIN
      {"ElementWiseUnary", {u32_param("operation", 4)}},   // COS
  };
  for (const UnaryCase& op : ops) {
    const FastPath& fp = fast_path(op.type, "xnnpack");
    double worst_ulps = 0;
    for (int iter = 0; iter < 12; ++iter) {
      const std::vector<uint32_t> dims =
          iter == 0 && &op == &ops[0] ? std::vector<uint32_t>{kLarge} : iter < 2 ? std::vector<uint32_t>{70000} : random_dims(rng);
      Case c = unary_case(op, dims, rng);
      const auto x = from_bytes<float>(c.data[0]);
      const auto ref = from_bytes<float>(run_reference(c));
      for (const ThreadEnv* env : {&one, &two}) {
        const auto fast = from_bytes<float>(run_fast(c, fp, env->env()));
        for (size_t i = 0; i < ref.size(); ++i) {
          if (std::isnan(ref[i]) || std::isinf(ref[i])) {
            if (std::isnan(ref[i])) ASSERT_TRUE(std::isnan(fast[i])) << c.node.name << " x=" << x[i];
            else ASSERT_EQ(fast[i], ref[i]) << c.node.name << " x=" << x[i];
            continue;
          }
          const double abs_x = std::isfinite(x[i]) ? std::fabs(x[i]) : 0.0;
          const double tol = 6 * 5.97e-8 * std::fabs(ref[i]) + 5.97e-8 * std::max(1.0, abs_x);
          ASSERT_NEAR(fast[i], ref[i], tol) << c.node.name << " x=" << x[i];
          if (std::fabs(ref[i]) > 1e-30) {
            const double ulp = std::ldexp(1.0, std::ilogb(ref[i]) - 23);
            worst_ulps = std::max(worst_ulps, std::fabs(double(fast[i]) - ref[i]) / ulp);
          }
        }
      }
    }
    std::printf("%s: worst %.1f ulp against the reference\n", fp.type_name.data(), worst_ulps);
  }
}

// The same bound for openhtp's polynomials over the whole float line: every
// 4096th bit pattern (both signs, every exponent, a million values), and
// the values where their formulas change (0.625 for tanh; 0.75 sqrt 2 and
// 3.9 sqrt 2 for GELU; exp's overflow and subnormal edges; 1, sqrt(1/2)
// and the smallest normal for log; softplus's 87 and its threshold) with
// their neighbours.
// One fp32 unary node over the values xs (a sweep of the float line).
Case float_line_case(std::string_view type, std::vector<Param> params, const std::vector<float>& xs) {
  Case c;
  c.node.type = std::string(type);
  c.node.name = std::string(type);
  c.node.params = std::move(params);
  c.node.inputs = {f32({static_cast<uint32_t>(xs.size())})};
  c.node.outputs = c.node.inputs;
  c.is_static = {false};
  c.data = {to_bytes(xs)};
  return c;
}

TEST(ElementwiseUnary, F32PolynomialsWithinBoundOverEveryExponent) {
  ThreadEnv one(1);
  std::vector<float> xs;
  for (uint64_t bits = 0; bits <= UINT32_MAX; bits += 4096) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  for (float edge : {0.625f, 0.75f * 1.41421356f, 3.9f * 1.41421356f, 9.1f, 88.7228f, 87.3365f, 103.97f, 1.0f,
                     0.70710678f, 1.17549435e-38f, 87.0f, 43.5f, 3.0f, 0.78539816f, 3.14159265f, 1.57079633f,
                     6.28318531f, 355.0f, 16777216.0f}) {
    for (float e : {edge, -edge}) {
      float v = e;
      for (int k = 0; k < 4; ++k) v = std::nextafter(v, 0.0f);
      for (int k = 0; k < 9; ++k, v = std::nextafter(v, 2 * e)) xs.push_back(v);
    }
  }
  const std::vector<Param> softplus_params = {f32_param("beta", 2.0f), f32_param("threshold", 6.0f)};
  for (const char* type : {"Tanh", "Gelu", "ElementWiseExp", "ElementWiseLog", "ElementWiseSoftplus", "Softplus b=2",
                           "ElementWiseSin", "ElementWiseCos", "ElementWiseAsin", "ElementWiseAtan"}) {
    const bool softplus2 = std::string_view(type) == "Softplus b=2";
    Case c = float_line_case(softplus2 ? "ElementWiseSoftplus" : type, softplus2 ? softplus_params : std::vector<Param>{},
                             xs);
    const auto ref = from_bytes<float>(run_reference(c));
    bool accepted = false;
    const auto fast = from_bytes<float>(run_fast(c, fast_path(c.node.type, "xnnpack"), one.env(), &accepted));
    const bool periodic = c.node.type == "ElementWiseSin" || c.node.type == "ElementWiseCos";
    const bool relative = c.node.type != "Tanh" && c.node.type != "Gelu" && !periodic;
    ASSERT_TRUE(accepted) << type;
    double worst_ulps = 0, worst_share = 0;  // ulps where |y| >= 2^-20 max(1, |x|); share of the bound
    for (size_t i = 0; i < xs.size(); ++i) {
      if (std::isnan(ref[i]) || std::isinf(ref[i])) {
        if (std::isnan(ref[i])) ASSERT_TRUE(std::isnan(fast[i])) << type << " x=" << xs[i];
        else ASSERT_EQ(fast[i], ref[i]) << type << " x=" << xs[i];
        continue;
      }
      const double abs_x = std::fabs(xs[i]);
      const double tol = 6 * 5.97e-8 * std::fabs(ref[i]) + 5.97e-8 * std::max(1.0, abs_x);
      ASSERT_NEAR(fast[i], ref[i], tol) << type << " x=" << xs[i];
      const double err = std::fabs(double(fast[i]) - ref[i]);
      worst_share = std::max(worst_share, err / tol);
      if (std::fabs(ref[i]) >= std::ldexp(std::max(1.0, abs_x), -20)) {
        worst_ulps = std::max(worst_ulps, err / std::ldexp(1.0, std::ilogb(ref[i]) - 23));
      }
      // exp, log, softplus, asin and atan never cancel: they keep a relative
      // accuracy down to tiny results too (softplus far below 0 is e^{bx} /
      // b), which the absolute term of the bound would not see lost.
      if (relative && std::fabs(ref[i]) >= 0x1p-100) {
        ASSERT_LE(err / std::ldexp(1.0, std::ilogb(ref[i]) - 23), 4.0) << type << " x=" << xs[i];
      }
      // sin and cos reduce their argument exactly enough that the error
      // does not grow with |x| (as the bound's absolute term would allow)
      // up to 2^20; beyond, libm answers, as in the reference.
      if (periodic && abs_x <= 0x1p20) {
        ASSERT_LE(err, 0x1p-24 + 4 * std::ldexp(1.0, std::ilogb(std::max(double(std::fabs(ref[i])), 0x1p-126)) - 23))
            << type << " x=" << xs[i];
      } else if (periodic) {
        ASSERT_EQ(fast[i], ref[i]) << type << " x=" << xs[i];
      }
    }
    std::printf("%s: worst %.1f ulp where |y| >= 2^-20 max(1, |x|), %.2f of the bound, over the float line\n", type,
                worst_ulps, worst_share);
  }
}

// Logit computes in double as the reference does (its own log instead of
// libm's): over the float line, with and without eps, every result within
// one ulp of the reference's and its edges (0, 1, outside [0, 1], NaN,
// +-inf) the same; in practice the same bits nearly everywhere.
TEST(ElementwiseUnary, F32LogitIsTheReferencesOverTheFloatLine) {
  ThreadEnv one(1);
  std::vector<float> xs;
  for (uint64_t bits = 0; bits <= UINT32_MAX; bits += 4099) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  for (float v = 0.0f; v <= 1.0f; v += 1.0f / 4096) xs.push_back(v);  // the domain itself, densely
  for (float e : {0.5f, 1.0f, 0.0f, 1e-6f, 0.25f, 0.75f}) {
    float v = e;
    for (int k = 0; k < 4; ++k) v = std::nextafter(v, -1.0f);
    for (int k = 0; k < 9; ++k, v = std::nextafter(v, 2.0f)) xs.push_back(v);
  }
  for (const std::vector<Param>& params :
       {std::vector<Param>{}, std::vector<Param>{f32_param("eps", 1e-6f)}, std::vector<Param>{f32_param("eps", 0.25f)}}) {
    Case c = float_line_case("Logit", params, xs);
    const auto ref = from_bytes<float>(run_reference(c));
    bool accepted = false;
    const auto fast = from_bytes<float>(run_fast(c, fast_path("Logit", "xnnpack"), one.env(), &accepted));
    ASSERT_TRUE(accepted);
    size_t differ = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (std::isnan(ref[i])) {
        ASSERT_TRUE(std::isnan(fast[i])) << "x=" << xs[i];
        continue;
      }
      if (std::isinf(ref[i]) || ref[i] == 0.0f) {
        ASSERT_EQ(fast[i], ref[i]) << "x=" << xs[i];
        continue;
      }
      differ += fast[i] != ref[i];
      ASSERT_LE(std::fabs(fast[i] - ref[i]), std::fabs(std::nextafter(ref[i], INFINITY) - ref[i])) << "x=" << xs[i];
    }
    std::printf("Logit (%zu params): %zu of %zu results differ from the reference's (by one ulp)\n", params.size(),
                differ, xs.size());
    // A double log as exact as libm's differs only where the two land on
    // either side of a float rounding boundary: a handful in a million.
    EXPECT_LE(differ, xs.size() / 100000);
  }
}

// ElementWiseUnary's ASIN and ATAN are the standalone ops' polynomials,
// whole or split over the pool (from kCheapMin elements): the same bytes.
TEST(ElementwiseUnary, F32AsinAtanByOperationCodeAreTheStandaloneOps) {
  std::mt19937 rng(93);
  ThreadEnv one(1), two(2);
  const std::pair<UnaryCase, UnaryCase> pairs[] = {
      {{"ElementWiseAsin", {}}, {"ElementWiseUnary", {u32_param("operation", 1)}}},
      {{"ElementWiseAtan", {}}, {"ElementWiseUnary", {u32_param("operation", 2)}}},
  };
  for (const auto& [standalone, by_code] : pairs) {
    for (const std::vector<uint32_t>& dims :
         {std::vector<uint32_t>{3, static_cast<uint32_t>(openhtp::kernels::xnn::kCheapMin / 2 + 7)},
          std::vector<uint32_t>{50}}) {
      Case a = unary_case(standalone, dims, rng);
      Case b = unary_case(by_code, dims, rng);
      b.data = a.data;
      for (const ThreadEnv* env : {&one, &two}) {
        const Bytes want = run_fast(a, fast_path(standalone.type, "xnnpack"), env->env());
        const Bytes got = run_fast(b, fast_path(by_code.type, "xnnpack"), env->env());
        ASSERT_EQ(got, want) << standalone.type << " " << count(dims);
      }
    }
  }
}

// FLOAT_16 ops whose fp32 path is an exact loop run it in one pass,
// converting blocks of halves with the type adapter's own conversions: the
// reference's bytes (the adapter around the float reference) for every one
// of the 65536 half codes, NaNs and infinities included, on one thread and
// split over two. The exact XNNPACK operators have no FLOAT_16 form here.
TEST(ElementwiseUnary, F16ExactLoopsMatchReference) {
  std::mt19937 rng(94);
  ThreadEnv one(1), two(2);
  const std::vector<uint32_t> dims{4, 65536};  // from kCheapMin: split at two threads
  Bytes codes(count(dims) * 2);
  for (size_t i = 0; i < count(dims); ++i) {
    const uint16_t h = static_cast<uint16_t>(i);
    std::memcpy(&codes[2 * i], &h, 2);
  }
  for (const UnaryCase& op : exact_unary()) {
    Case c = unary_case(op, dims, rng);
    c.node.inputs = {typed(dtype::kFloat16, dims)};
    c.node.outputs = {typed(dtype::kFloat16, dims)};
    c.data = {codes};
    const FastPath& fp = fast_path(op.type, "xnnpack");
    bool accepted = false;
    const Bytes want = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) {
      const Bytes got = run_fast(c, fp, env->env(), &accepted);
      EXPECT_EQ(accepted, !op.xnnpack && op.f16_loop) << c.node.name;
      if (accepted) {
        EXPECT_EQ(got, want) << c.node.name;
      }
    }
  }
}

// NOT over BOOL_8 (ElementWiseNot, and ElementWiseUnary's operation 9): the
// reference's bytes, every byte value an input (any nonzero byte is true),
// split over the pool at two threads from kCheapMin elements.
TEST(ElementwiseUnary, NotOverBool8IsTheReferences) {
  std::mt19937 rng(95);
  ThreadEnv one(1), two(2);
  for (const UnaryCase& op : {UnaryCase{"ElementWiseNot", {}}, UnaryCase{"ElementWiseUnary", {u32_param("operation", 9)}}}) {
    for (const std::vector<uint32_t>& dims : {std::vector<uint32_t>{3, 5, 7}, std::vector<uint32_t>{1, 4, 65536 + 3}}) {
      Case c = unary_case(op, dims, rng);
      c.node.inputs = {typed(dtype::kBool8, dims)};
      c.node.outputs = {typed(dtype::kBool8, dims)};
      Bytes in(count(dims));
      for (size_t i = 0; i < in.size(); ++i) in[i] = rng() % 3 == 0 ? 0 : static_cast<uint8_t>(rng());
      in[0] = 0, in[1] = 1, in[2] = 255;
      c.data = {in};
      const Bytes want = run_reference(c);
      ASSERT_EQ(want.size(), in.size());
      EXPECT_EQ(want[0], 1);
      EXPECT_EQ(want[2], 0);
      for (const ThreadEnv* env : {&one, &two}) {
        bool accepted = false;
        const Bytes got = run_fast(c, fast_path(op.type, "xnnpack"), env->env(), &accepted);
        EXPECT_TRUE(accepted) << c.node.name;
        EXPECT_EQ(got, want) << c.node.name << " over " << in.size() << " bytes";
      }
    }
  }
}

TEST(ElementwiseUnary, Declines) {
  ThreadEnv two(2);
  bool accepted = true;
  // FLOAT_16 where the f32 path is an XNNPACK operator or the sliced
  // reference (a table of 65536 answers takes those, lookup_table.h), and
  // integer Relu.
  Case half;
  half.node.type = "Sigmoid";
  half.node.inputs = {typed(dtype::kFloat16, {8})};
  half.node.outputs = {typed(dtype::kFloat16, {8})};
  half.is_static = {false};
  half.data = {Bytes(16)};
  run_fast(half, fast_path("Sigmoid", "xnnpack"), two.env(), &accepted);
  EXPECT_FALSE(accepted);
  half.node.type = "Tanh";
  half.node.inputs = {typed(dtype::kFloat16, {4u << 20})};
  half.node.outputs = {typed(dtype::kFloat16, {4u << 20})};
  half.data = {Bytes(8u << 20)};
  run_fast(half, fast_path("Tanh", "xnnpack"), two.env(), &accepted);
  EXPECT_FALSE(accepted);
  Case ints = half;
  ints.node.type = "Relu";
  ints.node.inputs = {typed(dtype::kInt32, {8})};
  ints.node.outputs = {typed(dtype::kInt32, {8})};
  ints.data = {Bytes(32)};
  run_fast(ints, fast_path("Relu", "xnnpack"), two.env(), &accepted);
  EXPECT_FALSE(accepted);
}

// --- Transpose ---

Case transpose_case(TensorDesc x, const std::vector<uint32_t>& perm, std::mt19937& rng) {
  Case c;
  c.node.type = "Transpose";
  std::vector<uint32_t> out_dims;
  for (uint32_t p : perm) out_dims.push_back(x.dims[p]);
  TensorDesc y = x;
  y.dims = out_dims;
  c.node.name = "perm";
  for (uint32_t p : perm) c.node.name += " " + std::to_string(p);
  c.node.name += " of";
  for (uint32_t d : x.dims) c.node.name += " " + std::to_string(d);
  c.node.inputs = {x};
  c.node.outputs = {y};
  c.node.params = {u32_tensor_param("perm", {static_cast<uint32_t>(perm.size())}, perm)};
  c.is_static = {false};
  c.data = {random_bytes(rng, x.num_bytes())};
  return c;
}

TEST(Transpose, XnnpackExactAllElementSizes) {
  std::mt19937 rng(101);
  const FastPath& fp = fast_path("Transpose", "xnnpack");
  ThreadEnv one(1), two(2);
  const TensorDesc types[] = {f32({}), typed(dtype::kFloat16, {}), typed(dtype::kUint16, {}),
                              quantized(dtype::kUfixed8, {}, per_tensor(0.05f, -128)),
                              quantized(dtype::kSfixed16, {}, per_tensor(0.001f, 0)), typed(dtype::kInt8, {})};
  for (int iter = 0; iter < 120; ++iter) {
    TensorDesc x = types[iter % std::size(types)];
    x.dims = random_dims(rng);
    if (iter < 6) x.dims = {1, 3, 224, 224 + uint32_t(iter)};  // NCHW -> NHWC
    if (iter == 6 || iter == 7) x.dims = {1, 3, 2400, 2400};     // split over the pool (17M elements)
    std::vector<uint32_t> perm(x.dims.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<uint32_t>(i);
    std::shuffle(perm.begin(), perm.end(), rng);
    if (iter < 8) perm = iter % 2 == 0 ? std::vector<uint32_t>{0, 2, 3, 1} : std::vector<uint32_t>{0, 3, 1, 2};
    Case c = transpose_case(x, perm, rng);
    const Bytes ref = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) EXPECT_EQ(run_fast(c, fp, env->env()), ref) << c.node.name;
  }
}

// NCHW -> NHWC of 2-4 channels interleaves the planes in one loop per image
// and splits in shares of 32-pixel blocks, so a share may start and end
// inside an image of a batch. Every element size, a share boundary inside
// the second image (3 images of 48x48: 216 blocks, 108 a thread), against
// the reference on 1, 2 and 3 threads.
TEST(Transpose, InterleavedPlanesSplitInsideABatch) {
  std::mt19937 rng(103);
  const FastPath& fp = fast_path("Transpose", "xnnpack");
  ThreadEnv one(1), two(2), three(3);
  const TensorDesc types[] = {typed(dtype::kInt8, {}), typed(dtype::kFloat16, {}), f32({}), typed(dtype::kInt64, {})};
  for (const TensorDesc& type : types) {
    for (uint32_t channels = 2; channels <= 4; ++channels) {
      for (uint32_t hw : {48u, 61u}) {
        TensorDesc x = type;
        x.dims = {3, channels, hw, hw + 5};
        Case c = transpose_case(x, {0, 2, 3, 1}, rng);
        const Bytes ref = run_reference(c);
        for (const ThreadEnv* env : {&one, &two, &three}) EXPECT_EQ(run_fast(c, fp, env->env()), ref) << c.node.name;
      }
    }
  }
}

TEST(Transpose, DeclinesRequantization) {
  std::mt19937 rng(102);
  ThreadEnv one(1);
  Case c = transpose_case(quantized(dtype::kUfixed8, {2, 3}, per_tensor(0.05f, -128)), {1, 0}, rng);
  c.node.outputs[0].quant = per_tensor(0.1f, -128);
  bool accepted = true;
  run_fast(c, fast_path("Transpose", "xnnpack"), one.env(), &accepted);
  EXPECT_FALSE(accepted);
}

}  // namespace
}  // namespace kernelstest
