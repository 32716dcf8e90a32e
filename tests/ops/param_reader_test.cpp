// The shared parameter reader, driven directly.
#include "ops/param_reader.h"

#include "test_util.h"

namespace opstest {
namespace {

using openhtp::ops::detail::ParamReader;

struct Fixture {
  std::vector<Param> params;
  NodeDesc node() const { return NodeDesc{"p", "TestOp", {}, {}, params}; }
};

TEST(ParamReader, ScalarDefaultsWhenAbsent) {
  Fixture f;
  const NodeDesc node = f.node();
  ParamReader r(node);
  uint32_t u = 0;
  bool b = true;
  float x = 0.0f;
  EXPECT_TRUE(r.u32_scalar("group", 7u, &u).ok());
  EXPECT_EQ(u, 7u);
  EXPECT_TRUE(r.bool_scalar("keep_dims", false, &b).ok());
  EXPECT_FALSE(b);
  EXPECT_TRUE(r.f32_scalar("beta", 1.5f, &x).ok());
  EXPECT_EQ(x, 1.5f);
  EXPECT_STATUS(r.u32_scalar("axis", std::nullopt, &u), StatusCode::kInvalidArgument,
                "mandatory parameter 'axis' is missing");
}

TEST(ParamReader, ScalarsOfAnyIntegerOrFloatType) {
  Fixture f;
  f.params = {scalar_param("a", dtype::kInt8, 3),     scalar_param("b", dtype::kUint64, 5),
              scalar_param("c", dtype::kBool8, 1),    scalar_param("d", dtype::kFloat32, 4.0),
              scalar_param("e", dtype::kInt32, 2),    scalar_param("g", dtype::kFloat16, 0.5),
              scalar_param("h", dtype::kFloat32, 0.0)};
  const NodeDesc node = f.node();
  ParamReader r(node);
  uint32_t u = 0;
  bool b = false;
  float x = 0.0f;
  ASSERT_TRUE(r.u32_scalar("a", 0u, &u).ok());
  EXPECT_EQ(u, 3u);
  ASSERT_TRUE(r.u32_scalar("b", 0u, &u).ok());
  EXPECT_EQ(u, 5u);
  ASSERT_TRUE(r.bool_scalar("c", false, &b).ok());
  EXPECT_TRUE(b);
  ASSERT_TRUE(r.u32_scalar("d", 0u, &u).ok());  // integral float accepted for a u32
  EXPECT_EQ(u, 4u);
  ASSERT_TRUE(r.f32_scalar("e", 0.0f, &x).ok());  // integer accepted for a float
  EXPECT_EQ(x, 2.0f);
  ASSERT_TRUE(r.f32_scalar("g", 0.0f, &x).ok());
  EXPECT_EQ(x, 0.5f);
  ASSERT_TRUE(r.bool_scalar("h", true, &b).ok());
  EXPECT_FALSE(b);
}

TEST(ParamReader, ScalarRangeAndKindErrors) {
  Fixture f;
  f.params = {scalar_param("neg", dtype::kInt32, -2), scalar_param("frac", dtype::kFloat32, 1.5),
              scalar_param("big", dtype::kInt64, 5e9), u32_tensor_param("tens", {1}, {1}),
              scalar_param("weird", 0x7FFFFFFF, 1),
              scalar_param("inf", dtype::kFloat32, INFINITY)};
  const NodeDesc node = f.node();
  ParamReader r(node);
  uint32_t u = 0;
  float x = 0.0f;
  EXPECT_STATUS(r.u32_scalar("neg", 0u, &u), StatusCode::kInvalidArgument, "'neg' is -2");
  EXPECT_STATUS(r.u32_scalar("frac", 0u, &u), StatusCode::kInvalidArgument, "'frac' is 1.5");
  EXPECT_STATUS(r.u32_scalar("big", 0u, &u), StatusCode::kInvalidArgument, "'big' is 5000000000");
  EXPECT_STATUS(r.u32_scalar("tens", 0u, &u), StatusCode::kInvalidArgument,
                "'tens' is a tensor, expected a scalar");
  EXPECT_STATUS(r.u32_scalar("weird", 0u, &u), StatusCode::kInvalidArgument, "'weird'", "UNDEFINED");
  EXPECT_STATUS(r.f32_scalar("inf", 0.0f, &x), StatusCode::kInvalidArgument, "'inf' is inf");
}

TEST(ParamReader, TensorParams) {
  Fixture f;
  f.params = {u32_tensor_param("stride", {2}, {2, 3}), i32_tensor_param("pad", {2, 2}, {0, 1, 2, 3}),
              i32_tensor_param("negative", {2}, {1, -1}), u32_param("scalar", 1),
              u32_tensor_param("floaty", {2}, {1, 1}, dtype::kFloat32),
              u32_tensor_param("short", {2, 2}, {1, 2, 3})};
  const NodeDesc node = f.node();
  ParamReader r(node);
  static constexpr uint32_t k2[] = {2};
  static constexpr uint32_t k2x2[] = {2, 2};
  static constexpr uint32_t kDef[] = {1, 1};
  std::vector<uint32_t> v;
  ASSERT_TRUE(r.u32_tensor("stride", k2, {}, &v).ok());
  EXPECT_EQ(v, (std::vector<uint32_t>{2, 3}));
  ASSERT_TRUE(r.u32_tensor("pad", k2x2, {}, &v).ok());
  EXPECT_EQ(v, (std::vector<uint32_t>{0, 1, 2, 3}));
  ASSERT_TRUE(r.u32_tensor("dilation", k2, kDef, &v).ok());
  EXPECT_EQ(v, (std::vector<uint32_t>{1, 1}));
  EXPECT_STATUS(r.u32_tensor("missing", k2, {}, &v), StatusCode::kInvalidArgument,
                "mandatory parameter 'missing' is missing");
  EXPECT_STATUS(r.u32_tensor("stride", k2x2, {}, &v), StatusCode::kInvalidArgument,
                "'stride' dims are [2], expected [2,2]");
  EXPECT_STATUS(r.u32_tensor("negative", k2, {}, &v), StatusCode::kInvalidArgument,
                "'negative' element 1 is -1");
  EXPECT_STATUS(r.u32_tensor("scalar", k2, {}, &v), StatusCode::kInvalidArgument,
                "'scalar' is a scalar, expected a tensor of dims [2]");
  EXPECT_STATUS(r.u32_tensor("floaty", k2, {}, &v), StatusCode::kInvalidArgument,
                "'floaty' has data type FLOAT_32");
  // Dims say 4 elements but only 12 bytes are there: refused before any read.
  EXPECT_STATUS(r.u32_tensor("short", k2x2, {}, &v), StatusCode::kInvalidArgument,
                "'short' holds 12 bytes, expected 16");
}

TEST(ParamReader, NamesCheck) {
  Fixture f;
  f.params = {u32_param("a", 1), u32_param("b", 1)};
  NodeDesc node = f.node();
  EXPECT_TRUE(ParamReader(node).check_names({"a", "b", "c"}).ok());
  EXPECT_STATUS(ParamReader(node).check_names({"a"}), StatusCode::kInvalidArgument,
                "TestOp 'p': unknown parameter 'b'");
  f.params = {u32_param("a", 1), u32_param("a", 2)};
  node = f.node();
  EXPECT_STATUS(ParamReader(node).check_names({"a"}), StatusCode::kInvalidArgument,
                "parameter 'a' given twice");
}

}  // namespace
}  // namespace opstest
