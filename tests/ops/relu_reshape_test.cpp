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

// Reshape is type-generic: raw elements of any size move unchanged.
std::vector<uint8_t> run_reshape_raw(const Node& n, const std::vector<uint8_t>& x) {
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  EXPECT_TRUE(s.ok()) << s.message;
  if (!s.ok()) return {};
  std::vector<uint8_t> y(n.outputs[0].num_bytes(), 0xAB);
  std::vector<const void*> in{x.data()};
  std::vector<void*> out{y.data()};
  k->run(in, out);
  return y;
}

TensorDesc u8q(std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant.present = true;
  t.quant.scale = scale;
  t.quant.offset = offset;
  return t;
}

TEST(Reshape, Ufixed8AndInt32MoveUnchanged) {
  Node q{"Reshape", "rs", {u8q({2, 3}, 0.1f, -7)}, {u8q({3, 2}, 0.1f, -7)}, {}};
  std::vector<uint8_t> x{0, 1, 127, 128, 254, 255};
  EXPECT_EQ(run_reshape_raw(q, x), x);
  Node i{"Reshape", "rs", {typed(dtype::kInt32, {3})}, {typed(dtype::kInt32, {1, 3})}, {}};
  std::vector<int32_t> v{-2147483647 - 1, 0, 2147483647};
  std::vector<uint8_t> b(12);
  std::memcpy(b.data(), v.data(), 12);
  EXPECT_EQ(run_reshape_raw(i, b), b);
}

TEST(Reshape, DifferentEncodingRequantizes) {
  // scale 1 -> scale 2 (offsets 0): q_out = round_half_even(q / 2):
  // 3 -> 1.5 -> 2, 4 -> 2, 5 -> 2.5 -> 2, 255 -> 127.5 -> 128.
  Node n{"Reshape", "rs", {u8q({4}, 1.0f, 0)}, {u8q({2, 2}, 2.0f, 0)}, {}};
  EXPECT_EQ(run_reshape_raw(n, {3, 4, 5, 255}), (std::vector<uint8_t>{2, 2, 2, 128}));
}

TEST(Reshape, TypeRules) {
  Node mix{"Reshape", "rs", {typed(dtype::kInt32, {2})}, {f32({2})}, {}};
  EXPECT_STATUS(mix.prepare(), StatusCode::kInvalidArgument, "out[0] data type is FLOAT_32, expected INT_32");
  Node no_enc{"Reshape", "rs", {typed(dtype::kUfixed8, {2})}, {u8q({2}, 1, 0)}, {}};
  EXPECT_STATUS(no_enc.prepare(), StatusCode::kInvalidArgument, "in[0] UFIXED_POINT_8 needs a quantization encoding");
  Node unknown{"Reshape", "rs", {typed(0x1234, {2})}, {f32({2})}, {}};
  EXPECT_STATUS(unknown.prepare(), StatusCode::kInvalidArgument, "in[0] has unknown data type 0x1234");
}

}  // namespace
}  // namespace opstest
