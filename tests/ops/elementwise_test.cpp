#include <functional>

#include "test_util.h"

namespace opstest {
namespace {

TEST(ElementWiseAdd, HandComputedBroadcast) {
  // [2,1] + [3] -> [2,3]: row r, column c = a[r] + b[c].
  //   a = {10, 20}, b = {1, 2, 3}
  //   -> {11, 12, 13, 21, 22, 23}
  Node n{"ElementWiseAdd", "add", {f32({2, 1}), f32({3})}, {f32({2, 3})}, {}};
  std::vector<float> a{10, 20}, b{1, 2, 3};
  EXPECT_EQ(n.run({&a, &b}), (std::vector<float>{11, 12, 13, 21, 22, 23}));
}

TEST(ElementWiseMultiply, HandComputedBroadcastBothSides) {
  // [3,1] * [1,2] -> [3,2]: out[r][c] = a[r] * b[c]
  //   a = {1, 2, 3}, b = {10, -1} -> {10,-1, 20,-2, 30,-3}
  Node n{"ElementWiseMultiply", "mul", {f32({3, 1}), f32({1, 2})}, {f32({3, 2})}, {}};
  std::vector<float> a{1, 2, 3}, b{10, -1};
  EXPECT_EQ(n.run({&a, &b}), (std::vector<float>{10, -1, 20, -2, 30, -3}));
}

TEST(ElementWiseAdd, SameShapeAndScalarOperand) {
  Node n{"ElementWiseAdd", "add", {f32({4}), f32({})}, {f32({4})}, {}};
  std::vector<float> a{1, 2, 3, 4}, b{0.5f};
  EXPECT_EQ(n.run({&a, &b}), (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f}));
}

// Independent broadcasting: decompose each output flat index into a
// multi-index by div/mod, then map it to each input by clamping broadcast
// axes to 0 and re-linearising by Horner's rule.
size_t source_index(size_t flat, const std::vector<uint32_t>& out, const std::vector<uint32_t>& in) {
  std::vector<size_t> idx(out.size());
  for (size_t ax = out.size(); ax-- > 0;) {
    idx[ax] = flat % out[ax];
    flat /= out[ax];
  }
  size_t src = 0;
  const size_t lead = out.size() - in.size();
  for (size_t j = 0; j < in.size(); ++j) {
    const size_t i = in[j] == 1 ? 0 : idx[lead + j];
    src = src * in[j] + i;
  }
  return src;
}

template <typename Fn>
void random_broadcast_test(const char* type, uint32_t seed) {
  std::mt19937 rng(seed);
  const Fn fn;
  for (int iter = 0; iter < 200; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 5);
    std::vector<uint32_t> out(rank);
    for (auto& d : out) d = rand_int(rng, 1, 4);
    auto make_input = [&]() {
      const uint32_t r = rand_int(rng, 0, rank);
      std::vector<uint32_t> in(out.end() - r, out.end());
      for (auto& d : in) if (rand_int(rng, 0, 2) == 0) d = 1;
      return in;
    };
    std::vector<uint32_t> da = make_input(), db = make_input();
    // The output keeps every axis at least one input really has; an axis both
    // inputs broadcast (or lack) has size 1.
    std::vector<uint32_t> expect_dims(std::max(da.size(), db.size()));
    for (size_t i = 0; i < expect_dims.size(); ++i) {
      const size_t from_end = expect_dims.size() - i;
      const uint32_t x = from_end <= da.size() ? da[da.size() - from_end] : 1;
      const uint32_t y = from_end <= db.size() ? db[db.size() - from_end] : 1;
      expect_dims[i] = std::max(x, y);
    }
    if (expect_dims.empty()) continue;  // both scalars: rank 0 is unsupported (tested below)
    Node n{type, "bc", {f32(da), f32(db)}, {f32(expect_dims)}, {}};
    std::vector<float> a = random_floats(rng, count(da)), b = random_floats(rng, count(db));
    std::vector<float> got = n.run({&a, &b});
    ASSERT_EQ(got.size(), count(expect_dims));
    for (size_t i = 0; i < got.size(); ++i) {
      const float want = fn(a[source_index(i, expect_dims, da)], b[source_index(i, expect_dims, db)]);
      ASSERT_EQ(got[i], want) << type << " iter " << iter << " at " << i;
    }
  }
}

TEST(ElementWiseAdd, RandomBroadcastShapes) { random_broadcast_test<std::plus<float>>("ElementWiseAdd", 1); }
TEST(ElementWiseMultiply, RandomBroadcastShapes) {
  random_broadcast_test<std::multiplies<float>>("ElementWiseMultiply", 2);
}

TEST(ElementWiseAdd, KernelRunsRepeatedly) {
  Node n{"ElementWiseAdd", "add", {f32({2, 2}), f32({2})}, {f32({2, 2})}, {}};
  std::unique_ptr<OpKernel> k;
  ASSERT_TRUE(n.prepare(&k).ok());
  std::vector<float> a{1, 2, 3, 4}, b{10, 20}, y(4);
  std::vector<const void*> in{a.data(), b.data()};
  std::vector<void*> out{y.data()};
  k->run(in, out);
  EXPECT_EQ(y, (std::vector<float>{11, 22, 13, 24}));
  b = {100, 200};
  k->run(in, out);
  EXPECT_EQ(y, (std::vector<float>{101, 202, 103, 204}));
}

TEST(ElementWiseRules, NotBroadcastable) {
  Node n{"ElementWiseAdd", "add", {f32({2, 3}), f32({4})}, {f32({2, 3})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "ElementWiseAdd 'add'",
                "in[0] dim 1 is 3", "in[1] dim 0 is 4", "not broadcastable");
}

TEST(ElementWiseRules, OutputDimsMustMatch) {
  Node n{"ElementWiseMultiply", "mul", {f32({2, 1}), f32({3})}, {f32({2, 4})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 4, expected 3");
  n.outputs[0] = f32({6});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 1, expected 2");
}

TEST(ElementWiseRules, RankLimits) {
  Node n{"ElementWiseAdd", "add", {f32({1, 1, 1, 1, 1, 2}), f32({2})}, {f32({1, 1, 1, 1, 1, 2})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[0] rank is 6");
  Node s{"ElementWiseAdd", "add", {f32({}), f32({})}, {f32({})}, {}};
  EXPECT_STATUS(s.prepare(), StatusCode::kUnsupported, "rank");
  Node five{"ElementWiseAdd", "add", {f32({1, 2, 1, 2, 1}), f32({2, 1})}, {f32({1, 2, 1, 2, 1})}, {}};
  EXPECT_TRUE(five.prepare().ok());
}

TEST(ElementWiseRules, InputDtypesMismatch) {
  Node n{"ElementWiseAdd", "add", {f32({2}), typed(dtype::kInt64, {2})}, {f32({2})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[1] data type is INT_64");
}

}  // namespace
}  // namespace opstest
