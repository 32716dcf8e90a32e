#include "test_util.h"

namespace opstest {
namespace {

TEST(Softmax, HandComputed) {
  // Row {0, ln 3}: exp -> {1, 3}, sum 4 -> {0.25, 0.75}.
  // Row {5, 5}:    equal -> {0.5, 0.5}.
  Node n{"Softmax", "sm", {f32({2, 2})}, {f32({2, 2})}, {}};
  std::vector<float> x{0.0f, std::log(3.0f), 5.0f, 5.0f};
  std::vector<float> y = n.run({&x});
  EXPECT_NEAR(y[0], 0.25f, 1e-7);
  EXPECT_NEAR(y[1], 0.75f, 1e-7);
  EXPECT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[3], 0.5f);
  // beta = 2 on {0, ln 3}: exp(2x) -> {1, 9}, sum 10 -> {0.1, 0.9}.
  Node b{"Softmax", "sm", {f32({2})}, {f32({2})}, {f32_param("beta", 2.0f), u32_param("axis", 0)}};
  std::vector<float> x2{0.0f, std::log(3.0f)};
  y = b.run({&x2});
  EXPECT_NEAR(y[0], 0.1f, 1e-7);
  EXPECT_NEAR(y[1], 0.9f, 1e-7);
}

TEST(Softmax, LargeInputsDoNotOverflow) {
  // exp(1000) overflows float; a stable kernel subtracts the max first.
  Node n{"Softmax", "sm", {f32({3})}, {f32({3})}, {}};
  std::vector<float> x{1000.0f, 1000.0f, -1000.0f};
  std::vector<float> y = n.run({&x});
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 0.0f);
}

TEST(Softmax, RandomAgainstLongDouble) {
  std::mt19937 rng(51);
  for (int iter = 0; iter < 60; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 5);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 4);
    dims.back() = rand_int(rng, 1, 64);
    const float beta = std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
    std::vector<float> x = random_floats(rng, count(dims), -60.0f, 60.0f);
    Node n{"Softmax", "sm", {f32(dims)}, {f32(dims)}, {f32_param("beta", beta)}};
    if (iter % 2) n.params.push_back(u32_param("axis", rank - 1));
    std::vector<float> y = n.run({&x});
    const size_t cols = dims.back();
    for (size_t r = 0; r < x.size() / cols; ++r) {
      // Straight from the definition, in long double (no max subtraction:
      // |beta*x| <= 180 is within long double's exponent range).
      long double sum = 0;
      for (size_t c = 0; c < cols; ++c) sum += std::exp((long double)beta * x[r * cols + c]);
      for (size_t c = 0; c < cols; ++c) {
        const long double want = std::exp((long double)beta * x[r * cols + c]) / sum;
        ASSERT_NEAR(y[r * cols + c], (double)want, 1e-6 * (double)want + 1e-30)
            << "iter " << iter << " row " << r << " col " << c;
      }
    }
  }
}

TEST(SoftmaxRules, All) {
  Node n{"Softmax", "sm1", {f32({2, 3, 4})}, {f32({2, 3, 4})}, {u32_param("axis", 1)}};
  {
    // A middle axis: each (i, k) column of [2,3,4] sums to 1 along dim 1.
    std::mt19937 rng(7);
    std::vector<float> x = random_floats(rng, 24, -3.0f, 3.0f);
    std::vector<float> y = n.run({&x});
    ASSERT_EQ(y.size(), 24u);
    for (size_t i = 0; i < 2; ++i) {
      for (size_t k = 0; k < 4; ++k) {
        double denom = 0.0;
        for (size_t j = 0; j < 3; ++j) denom += std::exp(double{x[(i * 3 + j) * 4 + k]});
        for (size_t j = 0; j < 3; ++j) {
          EXPECT_NEAR(y[(i * 3 + j) * 4 + k], std::exp(double{x[(i * 3 + j) * 4 + k]}) / denom, 1e-6);
        }
      }
    }
  }
  n.params = {u32_param("axis", 3)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'axis' is 3, expected < rank 3");
  n.params = {u32_param("axis", 2), f32_param("beta", 0.5f)};
  EXPECT_TRUE(n.prepare().ok());
  n.params = {scalar_param("beta", dtype::kFloat32, NAN)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'beta' is nan");
  n.params = {u32_tensor_param("axis", {1}, {2})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'axis' is a tensor");
  n.params = {};
  n.outputs[0] = f32({2, 3, 5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 2 is 5, expected 4");
  Node r6{"Softmax", "sm1", {f32({1, 1, 1, 1, 1, 2})}, {f32({1, 1, 1, 1, 1, 2})}, {}};
  EXPECT_STATUS(r6.prepare(), StatusCode::kUnsupported, "in[0] rank is 6");
  Node r0{"Softmax", "sm1", {f32({})}, {f32({})}, {}};
  EXPECT_STATUS(r0.prepare(), StatusCode::kUnsupported, "in[0] rank is 0");
}

}  // namespace
}  // namespace opstest
