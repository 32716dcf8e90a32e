#include "test_util.h"

namespace opstest {
namespace {

TEST(Relu, HandComputed) {
  Node n{"Relu", "r", {f32({2, 3})}, {f32({2, 3})}, {}};
  std::vector<float> x{-2.0f, -0.0f, 0.0f, 0.5f, 3.0f, -1e-30f};
  std::vector<float> y = n.run({&x});
  EXPECT_EQ(y, (std::vector<float>{0, 0, 0, 0.5f, 3.0f, 0}));
  std::vector<float> nan{std::nanf("")};
  Node one{"Relu", "r", {f32({1})}, {f32({1})}, {}};
  EXPECT_TRUE(std::isnan(one.run({&nan})[0]));  // NaN passes through
}

TEST(Relu, RandomAgainstComparison) {
  std::mt19937 rng(3);
  Node n{"Relu", "r", {f32({4, 5, 6})}, {f32({4, 5, 6})}, {}};
  std::vector<float> x = random_floats(rng, 120, -5, 5);
  std::vector<float> y = n.run({&x});
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] > 0 ? x[i] : 0.0f);
}

TEST(Relu, Rules) {
  Node n{"Relu", "r", {f32({2, 3})}, {f32({3, 2})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "Relu 'r': out[0] dim 0 is 3, expected 2");
  Node p{"Relu", "r", {f32({2})}, {f32({2})}, {f32_param("alpha", 0.1f)}};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'alpha'");
}

TEST(Reshape, CopiesDataUnchanged) {
  Node n{"Reshape", "rs", {f32({2, 3, 2})}, {f32({3, 4})}, {}};
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 1.5f;
  EXPECT_EQ(n.run({&x}), x);
}

TEST(Reshape, InPlaceAliasIsFine) {
  Node n{"Reshape", "rs", {f32({4})}, {f32({2, 2})}, {}};
  std::unique_ptr<OpKernel> k;
  ASSERT_TRUE(n.prepare(&k).ok());
  std::vector<float> buf{1, 2, 3, 4};
  std::vector<const void*> in{buf.data()};
  std::vector<void*> out{buf.data()};
  k->run(in, out);
  EXPECT_EQ(buf, (std::vector<float>{1, 2, 3, 4}));
}

TEST(Reshape, OmittedShapeInputIsAccepted) {
  Node n{"Reshape", "rs", {f32({4}), null_tensor()}, {f32({2, 2})}, {}};
  EXPECT_TRUE(n.prepare().ok());
}

TEST(Reshape, Rules) {
  Node n{"Reshape", "rs", {f32({2, 3})}, {f32({4, 2})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dims [4,2] hold 8 elements, expected 6");
  Node shape_in{"Reshape", "rs", {f32({2, 3}), typed(dtype::kInt32, {2})}, {f32({3, 2})}, {}};
  EXPECT_STATUS(shape_in.prepare(), StatusCode::kUnsupported, "in[1] (shape) is not supported");
  Node big{"Reshape", "rs", {f32({1, 1, 1, 1, 1, 6})}, {f32({6})}, {}};
  EXPECT_STATUS(big.prepare(), StatusCode::kUnsupported, "in[0] rank is 6");
  Node big_out{"Reshape", "rs", {f32({6})}, {f32({1, 1, 1, 1, 1, 6})}, {}};
  EXPECT_STATUS(big_out.prepare(), StatusCode::kUnsupported, "out[0] rank is 6");
}

}  // namespace
}  // namespace opstest
