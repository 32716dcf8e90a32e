#include "test_util.h"

namespace opstest {
namespace {

TEST(LogSoftmax, HandComputed) {
  // Row {0, ln 3}: softmax {1/4, 3/4} -> log {-ln 4, ln 3 - ln 4}.
  Node n{"LogSoftmax", "ls", {f32({2, 2})}, {f32({2, 2})}, {u32_param("axis", 1)}};
  std::vector<float> x{0.0f, std::log(3.0f), 7.0f, 7.0f};
  std::vector<float> y = n.run({&x});
  EXPECT_NEAR(y[0], -std::log(4.0), 1e-6);
  EXPECT_NEAR(y[1], std::log(3.0) - std::log(4.0), 1e-6);
  EXPECT_NEAR(y[2], -std::log(2.0), 1e-6);  // equal entries: log(1/2)
  EXPECT_NEAR(y[3], -std::log(2.0), 1e-6);
  // axis 0 of the same data: columns {0, 7} and {ln 3, 7}; beta = 0 makes
  // every entry log(1/2) whatever x is.
  Node b{"LogSoftmax", "ls", {f32({2, 2})}, {f32({2, 2})}, {u32_param("axis", 0), f32_param("beta", 0.0f)}};
  y = b.run({&x});
  for (float v : y) EXPECT_NEAR(v, -std::log(2.0), 1e-6);
}

TEST(LogSoftmax, LargeInputsStayFinite) {
  // exp(2000) overflows even double; the result is still exact: {-ln 2, -ln 2, -4000 - ln 2}.
  Node n{"LogSoftmax", "ls", {f32({3})}, {f32({3})}, {u32_param("axis", 0), f32_param("beta", 2.0f)}};
  std::vector<float> x{1000.0f, 1000.0f, -1000.0f};
  std::vector<float> y = n.run({&x});
  EXPECT_NEAR(y[0], -std::log(2.0), 1e-6);
  EXPECT_NEAR(y[1], -std::log(2.0), 1e-6);
  EXPECT_NEAR(y[2], -4000.0 - std::log(2.0), 1e-3);
}

TEST(LogSoftmax, RandomAnyAxisAgainstDouble) {
  std::mt19937 rng(71);
  for (int iter = 0; iter < 60; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 5);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 5);
    const uint32_t axis = rand_int(rng, 0, rank - 1);
    dims[axis] = rand_int(rng, 1, 20);
    const float beta = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
    std::vector<float> x = random_floats(rng, count(dims), -30.0f, 30.0f);
    Node n{"LogSoftmax", "ls", {f32(dims)}, {f32(dims)}, {u32_param("axis", axis)}};
    if (iter % 3) n.params.push_back(f32_param("beta", beta));
    const double b = (iter % 3) ? beta : 1.0;
    std::vector<float> y = n.run({&x});
    // Straight from the definition: log(exp(b x_i) / sum_j exp(b x_j)),
    // |b x| <= 60 so nothing overflows in double.
    size_t inner = 1, outer = 1;
    for (uint32_t i = axis + 1; i < rank; ++i) inner *= dims[i];
    for (uint32_t i = 0; i < axis; ++i) outer *= dims[i];
    const size_t len = dims[axis];
    for (size_t o = 0; o < outer; ++o) {
      for (size_t in = 0; in < inner; ++in) {
        double sum = 0;
        for (size_t k = 0; k < len; ++k) sum += std::exp(b * x[(o * len + k) * inner + in]);
        for (size_t k = 0; k < len; ++k) {
          const size_t i = (o * len + k) * inner + in;
          const double want = std::log(std::exp(b * x[i]) / sum);
          ASSERT_NEAR(y[i], want, 1e-5 * (1 + std::fabs(want))) << "iter " << iter << " at " << i;
        }
      }
    }
  }
}

TEST(LogSoftmaxRules, All) {
  Node n{"LogSoftmax", "ls1", {f32({2, 3, 4})}, {f32({2, 3, 4})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "LogSoftmax 'ls1': mandatory parameter 'axis' is missing");
  n.params = {u32_param("axis", 3)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'axis' is 3, expected < rank 3");
  n.params = {u32_param("axis", 1), scalar_param("beta", dtype::kFloat32, INFINITY)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'beta' is inf");
  n.params = {u32_param("axis", 1)};
  EXPECT_TRUE(n.prepare().ok());
  n.outputs[0] = f32({2, 3, 5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 2 is 5, expected 4");
  n.outputs[0] = f32({2, 12});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 2, expected 3");
  Node r6{"LogSoftmax", "ls1", {f32({1, 1, 1, 1, 1, 2})}, {f32({1, 1, 1, 1, 1, 2})}, {u32_param("axis", 0)}};
  EXPECT_STATUS(r6.prepare(), StatusCode::kUnsupported, "in[0] rank is 6");
}

}  // namespace
}  // namespace opstest
