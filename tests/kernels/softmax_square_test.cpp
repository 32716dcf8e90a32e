// The fp32 Softmax (XNNPACK softmax_nc_f32) and Power-by-2 (x * x) fast
// paths against the reference: Softmax within a few float ulps over random
// rows (attention-sized included, masked -inf entries, wide ranges), at 1 and
// 2 threads; Power by 2, NaN/inf/-0 included; and the nodes each must
// decline (another axis, beta != 1, a run-time or other exponent).
// Power: the correctly rounded square, within an ulp of the reference's powf;
// other whole exponents up to 16 and +-0.5 the correctly rounded power.
#include <cmath>
#include <limits>

#include "kernel_check.h"

namespace kernelstest {
namespace {

Node softmax_node(std::vector<uint32_t> dims, std::vector<Param> params = {}) {
  return Node{"Softmax", "sm", {typed(dtype::kFloat32, dims)}, {typed(dtype::kFloat32, dims)}, std::move(params)};
}

TEST(Float32Softmax, WithinAFewUlpsOfTheReference) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 24; ++iter) {
    std::vector<uint32_t> dims = {rand_int(rng, 1, 4), rand_int(rng, 1, 64), rand_int(rng, 1, 200)};
    if (iter == 0) dims = {4, 128, 128};  // a 4-head attention over 128 positions
    const float spread = iter % 3 == 0 ? 40.0f : 4.0f;
    std::vector<float> x(count(dims));
    for (auto& v : x) v = rand_float(rng, -spread, spread);
    if (iter % 4 == 1) {
      for (size_t i = 0; i < x.size(); i += 3) x[i] = -std::numeric_limits<float>::infinity();  // masked
      for (size_t r = 0; r < x.size(); r += dims[2]) x[r + dims[2] - 1] = 0.5f;  // no row all -inf
    }
    Case c{softmax_node(dims), {to_bytes(x)}, {false}};
    c.bind_static();
    const std::vector<float> want = from_bytes<float>(run_reference(c));
    for (size_t threads : {1, 2}) {
      ThreadEnv env(threads);
      const uint64_t splits = openhtp::threads::split_dispatches();
      const std::vector<float> got = from_bytes<float>(run_fast(c, fast_path("Softmax", "xnnpack"), env.env()));
      if (iter == 0 && threads == 2) {
        // 64K elements: split over both threads (xnnpack_softmax.cpp).
        EXPECT_GT(openhtp::threads::split_dispatches(), splits) << "the attention softmax ran on one thread";
      }
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        // Probabilities in [0, 1]: a relative bound of 2e-6 (a few float
        // ulps of exp and of the row sum) plus 1e-9 for the tiniest.
        ASSERT_NEAR(got[i], want[i], 2e-6 * want[i] + 1e-9) << "element " << i << " iter " << iter;
      }
    }
  }
}

// Rows holding NaN or +inf, or all -inf, give the reference's NaN row (they
// came out of XNNPACK as -inf, never a probability); the other rows of the
// same input keep their values.
TEST(Float32Softmax, NonFiniteRowsGiveTheReferencesAnswer) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (uint32_t width : {4u, 37u, 4000u}) {
    const std::vector<uint32_t> dims = {4, width};
    std::vector<float> x(count(dims));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) * 0.25f;
    for (uint32_t j = 0; j < width; ++j) x[2 * width + j] = -inf;  // row 2: all -inf
    x[0] = nan;                                                    // row 0: a NaN
    x[width + width / 2] = inf;                                    // row 1: +inf
    Case c{softmax_node(dims), {to_bytes(x)}, {false}};
    c.bind_static();
    const Bytes ref = run_reference(c);
    const std::vector<float> want = from_bytes<float>(ref);
    ASSERT_TRUE(std::isnan(want[0]) && std::isnan(want[width]) && std::isnan(want[2 * width]))
        << "the reference's own answer changed";
    for (size_t threads : {1, 2}) {
      ThreadEnv env(threads);
      bool accepted = false;
      EXPECT_EQ(run_fast(c, fast_path("Softmax", "xnnpack"), env.env(), &accepted), ref) << "width " << width;
      EXPECT_TRUE(accepted);
    }
  }
}

TEST(Float32Softmax, DeclinesOtherAxesAndBeta) {
  ThreadEnv env(1);
  for (auto params : {std::vector<Param>{u32_param("axis", 1)}, std::vector<Param>{f32_param("beta", 0.5f)}}) {
    Case c{softmax_node({2, 3, 4}, params), {to_bytes(std::vector<float>(24, 1.0f))}, {false}};
    c.bind_static();
    bool accepted = true;
    run_fast(c, fast_path("Softmax", "xnnpack"), env.env(), &accepted);
    EXPECT_FALSE(accepted) << params[0].name;
  }
}

Node power_node(std::vector<uint32_t> dims, const char* type) {
  Node n{type, "pow", {typed(dtype::kFloat32, dims), typed(dtype::kFloat32, {1})}, {typed(dtype::kFloat32, dims)}, {}};
  if (std::string(type) == "ElementWiseBinary") n.params.push_back(u32_param("operation", 16));
  return n;
}

// x * x is x^2 correctly rounded; the reference's powf (glibc) is within an
// ulp of that but not always equal (x = -502.51193: powf gives 252518.25,
// the correctly rounded square is 252518.234375). So: the fast path equals
// the square computed in double and rounded once (exact: 48 bits fit), and
// is within one ulp of the reference, NaN/inf/-0/subnormal/overflow included.
TEST(Float32Square, PowerOfTwoIsTheCorrectlyRoundedSquare) {
  std::mt19937 rng(3);
  std::vector<float> x(100000);
  for (auto& v : x) v = rand_float(rng, -1e3f, 1e3f);
  x[0] = std::numeric_limits<float>::quiet_NaN();
  x[1] = std::numeric_limits<float>::infinity();
  x[2] = -std::numeric_limits<float>::infinity();
  x[3] = -0.0f;
  x[4] = 3e-39f;  // subnormal: its square flushes to 0
  x[5] = 1e20f;   // overflows to inf
  const std::vector<float> two{2.0f};
  for (const char* type : {"ElementWisePower", "ElementWiseBinary"}) {
    Case c{power_node({10, 100, 100}, type), {to_bytes(x), to_bytes(two)}, {false, true}};
    c.bind_static();
    const std::vector<float> ref = from_bytes<float>(run_reference(c));
    for (size_t threads : {1, 2}) {
      ThreadEnv env(threads);
      const char* lib = std::string(type) == "ElementWisePower" ? "vectorized" : "xnnpack";
      const std::vector<float> got = from_bytes<float>(run_fast(c, fast_path(type, lib), env.env()));
      ASSERT_EQ(got.size(), ref.size());
      for (size_t i = 0; i < got.size(); ++i) {
        const float exact = static_cast<float>(static_cast<double>(x[i]) * static_cast<double>(x[i]));
        if (std::isnan(exact)) {
          ASSERT_TRUE(std::isnan(got[i]) && std::isnan(ref[i])) << i;
          continue;
        }
        ASSERT_EQ(got[i], exact) << type << " element " << i << ": x " << x[i];
        if (std::isinf(exact)) {
          ASSERT_EQ(ref[i], exact) << i;
          continue;
        }
        ASSERT_LE(std::fabs(got[i] - ref[i]), std::fabs(std::nextafter(ref[i], INFINITY) - ref[i]))
            << type << " element " << i << ": x " << x[i] << " reference " << ref[i];
      }
    }
  }
}

// Whole exponents up to 16 in magnitude and +-0.5: the correctly rounded
// power (long double powl rounded once to float, derived apart from both
// the fast path and the reference), which is within an ulp of the
// reference's powf; at the edges (NaN, +-inf, +-0, overflow, underflow, the
// power 0 of anything) exactly powf's answer.
TEST(Float32Power, WholeAndHalfExponentsGiveTheCorrectlyRoundedPower) {
  std::mt19937 rng(11);
  std::vector<float> x(20000);
  for (auto& v : x) {
    // Magnitudes over 2^-40 .. 2^40, both signs.
    const float m = std::ldexp(rand_float(rng, 1.0f, 2.0f), static_cast<int>(rng() % 81) - 40);
    v = rng() % 2 ? -m : m;
  }
  const float kInf = std::numeric_limits<float>::infinity();
  const std::vector<float> edges = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf, 0.0f, -0.0f, 1.0f, -1.0f,
                                    3e-39f, -3e-39f, 1e-45f, 3e38f, -3e38f, 1e20f, 1e-20f, 0.5f, 2.0f};
  std::copy(edges.begin(), edges.end(), x.begin());
  for (float e : {3.0f, -1.0f, -2.0f, -3.0f, 0.0f, 1.0f, 4.0f, 7.0f, 16.0f, -16.0f, 0.5f, -0.5f}) {
    for (const char* type : {"ElementWisePower", "ElementWiseBinary"}) {
      Case c{power_node({4, 5000}, type), {to_bytes(x), to_bytes(std::vector<float>{e})}, {false, true}};
      c.bind_static();
      const std::vector<float> ref = from_bytes<float>(run_reference(c));
      for (size_t threads : {1, 2}) {
        ThreadEnv env(threads);
        bool accepted = false;
        const char* lib = std::string(type) == "ElementWisePower" ? "vectorized" : "xnnpack";
        const std::vector<float> got = from_bytes<float>(run_fast(c, fast_path(type, lib), env.env(), &accepted));
        ASSERT_TRUE(accepted) << type << ", exponent " << e;
        ASSERT_EQ(got.size(), ref.size());
        for (size_t i = 0; i < got.size(); ++i) {
          const std::string at = "exponent " + std::to_string(e) + ", x " + std::to_string(x[i]) + " (element " +
                                 std::to_string(i) + ")";
          if (std::isnan(ref[i])) {
            ASSERT_TRUE(std::isnan(got[i])) << at << ": " << got[i];
            continue;
          }
          if (std::isinf(ref[i]) || ref[i] == 0.0f) {  // edges: powf's value and sign
            ASSERT_EQ(got[i], ref[i]) << at;
            ASSERT_EQ(std::signbit(got[i]), std::signbit(ref[i])) << at;
            continue;
          }
          const float exact = static_cast<float>(std::pow(static_cast<long double>(x[i]), static_cast<long double>(e)));
          ASSERT_EQ(got[i], exact) << at << ": reference " << ref[i];
          ASSERT_LE(std::fabs(got[i] - ref[i]), std::fabs(std::nextafter(ref[i], INFINITY) - ref[i])) << at;
        }
      }
    }
  }
}

TEST(Float32Power, DeclinesOtherExponents) {
  ThreadEnv env(1);
  const std::vector<float> x(8, 1.5f);
  for (float e : {2.5f, 0.25f, 17.0f, -17.0f, 1e10f, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::infinity()}) {
    Case c{power_node({8}, "ElementWisePower"), {to_bytes(x), to_bytes(std::vector<float>{e})}, {false, true}};
    c.bind_static();
    bool accepted = true;
    run_fast(c, fast_path("ElementWisePower", "vectorized"), env.env(), &accepted);
    EXPECT_FALSE(accepted) << e;
  }
  // A run-time exponent: not static.
  Case c{power_node({8}, "ElementWisePower"), {to_bytes(x), to_bytes(std::vector<float>{2.0f})}, {false, false}};
  c.bind_static();
  bool accepted = true;
  run_fast(c, fast_path("ElementWisePower", "vectorized"), env.env(), &accepted);
  EXPECT_FALSE(accepted);
}

}  // namespace
}  // namespace kernelstest
