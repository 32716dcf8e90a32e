// The indexing family's index-driven ops: GatherElements, GatherNd,
// ScatterElements, ScatterNd, OneHot, CumulativeSum. Expected values are the
// worked examples of the matching ONNX ops (copied by hand into the tests)
// or computed in the test from the op's formula; static out-of-range indices
// must be refused at prepare and dynamic ones clamped into the tensor.
#include "test_util.h"

namespace opstest {
namespace {

// out[0]'s bytes (run_raw_outputs' rules).
std::vector<uint8_t> run_raw(const Node& n, const std::vector<const std::vector<uint8_t>*>& ins) {
  return run_raw_outputs(n, ins)[0];
}

// Runs with float data inputs and INT_32 indices (given as raw bytes).
template <typename T = float>
std::vector<T> run_typed(const Node& n, const std::vector<std::vector<uint8_t>>& ins) {
  std::vector<const std::vector<uint8_t>*> p;
  for (const auto& v : ins) p.push_back(&v);
  return as<T>(run_raw(n, p));
}

TensorDesc i32(std::vector<uint32_t> dims) { return typed(dtype::kInt32, std::move(dims)); }
TensorDesc u8q(std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant = Quant::per_tensor(scale, offset);
  return t;
}
// A STATIC index tensor; `keep` owns the data.
TensorDesc static_i32(std::vector<uint32_t> dims, const std::vector<int32_t>& keep) {
  TensorDesc t = i32(std::move(dims));
  t.static_data = keep.data();
  return t;
}
Param i32_param(std::string name, int32_t v) { return scalar_param(std::move(name), dtype::kInt32, v); }

using B = std::vector<uint8_t>;
B fb(std::vector<float> v) { return bytes_of(v); }
B ib(std::vector<int32_t> v) { return bytes_of(v); }

// ---------------- GatherElements ----------------

TEST(IndexingGatherElements, OnnxExamples) {
  // axis 1: data [[1,2],[3,4]], indices [[0,0],[1,0]] -> [[1,1],[4,3]].
  Node a{"GatherElements", "g", {f32({2, 2}), i32({2, 2})}, {f32({2, 2})}, {u32_param("axis", 1)}};
  EXPECT_EQ(run_typed(a, {fb({1, 2, 3, 4}), ib({0, 0, 1, 0})}), (std::vector<float>{1, 1, 4, 3}));
  // axis 0 (the default): data [[1,2,3],[4,5,6],[7,8,9]], indices [[1,2,0],[2,0,0]] -> [[4,8,3],[7,2,3]].
  Node b{"GatherElements", "g", {f32({3, 3}), i32({2, 3})}, {f32({2, 3})}, {}};
  EXPECT_EQ(run_typed(b, {fb({1, 2, 3, 4, 5, 6, 7, 8, 9}), ib({1, 2, 0, 2, 0, 0})}),
            (std::vector<float>{4, 8, 3, 7, 2, 3}));
}

TEST(IndexingGatherElements, NegativeWrapsDynamicOutOfRangeClampsInt32Data) {
  // Row-wise along axis -1 (= 1) of [[10,20,30]]: -1 -> 2, 7 -> clamped to 2, -9 -> clamped to 0.
  Node n{"GatherElements", "g", {i32({1, 3}), i32({1, 4})}, {i32({1, 4})}, {i32_param("axis", -1)}};
  EXPECT_EQ(run_typed<int32_t>(n, {ib({10, 20, 30}), ib({-1, 7, -9, 1})}), (std::vector<int32_t>{30, 30, 10, 20}));
}

TEST(IndexingGatherElements, Refusals) {
  const std::vector<int32_t> bad{0, 3};
  Node n{"GatherElements", "g", {f32({2, 3}), static_i32({2, 1}, bad)}, {f32({2, 1})}, {u32_param("axis", 0)}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (indices) element 1 is 3", "[-2, 1]");
  n.inputs[1] = i32({2});
  n.outputs[0] = f32({2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "rank is 1, expected in[0]'s rank 2");
  n.inputs[1] = i32({2, 4});
  n.outputs[0] = f32({2, 4});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "dim 1 is 4, expected <= in[0] dim 1 = 3");
  n.inputs[1] = f32({2, 1});
  n.outputs[0] = f32({2, 1});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "expected INT_32 or UINT_32");
  n.inputs[1] = i32({2, 1});
  n.params = {i32_param("axis", 2)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'axis' is 2, expected in [-2, 1]");
}

// ---------------- GatherNd ----------------

TEST(IndexingGatherNd, OnnxExamples) {
  // data [[0,1],[2,3]], indices [[0,0],[1,1]] -> [0,3].
  Node a{"GatherNd", "g", {f32({2, 2}), i32({2, 2})}, {f32({2})}, {}};
  EXPECT_EQ(run_typed(a, {fb({0, 1, 2, 3}), ib({0, 0, 1, 1})}), (std::vector<float>{0, 3}));
  // indices [[1],[0]] -> rows [[2,3],[0,1]].
  Node b{"GatherNd", "g", {f32({2, 2}), i32({2, 1})}, {f32({2, 2})}, {}};
  EXPECT_EQ(run_typed(b, {fb({0, 1, 2, 3}), ib({1, 0})}), (std::vector<float>{2, 3, 0, 1}));
  // batch_dims 1: data [[[0,1],[2,3]],[[4,5],[6,7]]], indices [[1],[0]] -> [[2,3],[4,5]].
  Node c{"GatherNd", "g", {f32({2, 2, 2}), i32({2, 1})}, {f32({2, 2})}, {u32_param("batch_dims", 1)}};
  EXPECT_EQ(run_typed(c, {fb({0, 1, 2, 3, 4, 5, 6, 7}), ib({1, 0})}), (std::vector<float>{2, 3, 4, 5}));
}

TEST(IndexingGatherNd, FixedPointNegativeAndClamped) {
  // UFIXED_8 bytes move unchanged; tuple (-1, 0) -> (1, 0); (5, -7) clamps to (1, 0)... per component.
  Node n{"GatherNd", "g", {u8q({2, 3}, 0.1f, 0), i32({3, 2})}, {u8q({3}, 0.1f, 0)}, {}};
  B x{1, 2, 3, 4, 5, 6};
  B idx = ib({-1, 0, 5, -7, 0, 2});
  EXPECT_EQ(run_raw(n, {&x, &idx}), (B{4, 4, 3}));
}

TEST(IndexingGatherNd, Refusals) {
  Node n{"GatherNd", "g", {f32({2, 2}), i32({2, 3})}, {f32({2})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "last dim is 3, expected in [1, 2]");
  n.inputs[1] = i32({2, 1});
  n.params = {u32_param("batch_dims", 2)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'batch_dims' is 2");
  n.inputs = {f32({2, 2, 2}), i32({3, 1})};
  n.params = {u32_param("batch_dims", 1)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "batch dim 0 is 3, expected in[0] dim 0 = 2");
  const std::vector<int32_t> bad{0, 2};
  n.inputs = {f32({2, 2}), static_i32({1, 2}, bad)};
  n.params = {};
  n.outputs = {f32({1})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "element 1 is 2, expected in [-2, 1]");
}

// ---------------- ScatterElements ----------------

TEST(IndexingScatterElements, OnnxExamples) {
  // axis 0: zeros [3,3], indices [[1,0,2],[0,2,1]], updates [[1.0,1.1,1.2],[2.0,2.1,2.2]]
  //   -> [[2.0,1.1,0.0],[1.0,0.0,2.2],[0.0,2.1,1.2]].
  Node a{"ScatterElements", "s", {f32({3, 3}), i32({2, 3}), f32({2, 3})}, {f32({3, 3})}, {}};
  EXPECT_EQ(run_typed(a, {fb(std::vector<float>(9, 0)), ib({1, 0, 2, 0, 2, 1}), fb({1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f})}),
            (std::vector<float>{2.0f, 1.1f, 0.0f, 1.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f}));
  // axis 1, reduction ADD, a repeated index: [[1,2,3,4,5]], indices [[1,1]], updates [[1.1,2.1]] -> [[1,5.2,3,4,5]].
  Node b{"ScatterElements", "s", {f32({1, 5}), i32({1, 2}), f32({1, 2})}, {f32({1, 5})},
         {u32_param("axis", 1), u32_param("reduction", 1)}};
  const auto got = run_typed(b, {fb({1, 2, 3, 4, 5}), ib({1, 1}), fb({1.1f, 2.1f})});
  ASSERT_EQ(got.size(), 5u);
  EXPECT_NEAR(got[1], 5.2f, 1e-6f);
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_EQ(got[4], 5.0f);
}

TEST(IndexingScatterElements, Int32MulMaxAndReplaceLastWins) {
  const B data = ib({2, 3, 4}), idx = ib({0, 0, 2}), upd = ib({5, -7, 1});
  Node n{"ScatterElements", "s", {i32({3}), i32({3}), i32({3})}, {i32({3})}, {}};
  EXPECT_EQ(run_typed<int32_t>(n, {data, idx, upd}), (std::vector<int32_t>{-7, 3, 1}));  // last write wins
  n.params = {u32_param("reduction", 2)};
  EXPECT_EQ(run_typed<int32_t>(n, {data, idx, upd}), (std::vector<int32_t>{2 * 5 * -7, 3, 4}));
  n.params = {u32_param("reduction", 3)};
  EXPECT_EQ(run_typed<int32_t>(n, {data, idx, upd}), (std::vector<int32_t>{5, 3, 4}));
}

TEST(IndexingScatterElements, FixedPointThroughTheTypeAdapter) {
  // scale 0.5: data q {2,4} = {1,2}; ADD update q 6 (3.0) at index 1 -> 5.0 = q 10.
  Node n{"ScatterElements", "s", {u8q({2}, 0.5f, 0), i32({1}), u8q({1}, 0.5f, 0)}, {u8q({2}, 0.5f, 0)},
         {u32_param("reduction", 1)}};
  B x{2, 4}, idx = ib({1}), upd{6};
  EXPECT_EQ(run_raw(n, {&x, &idx, &upd}), (B{2, 10}));
}

TEST(IndexingScatterElements, Refusals) {
  Node n{"ScatterElements", "s", {f32({3}), i32({2}), f32({3})}, {f32({3})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (updates) dims are [3], expected in[1]'s [2]");
  n.inputs[2] = f32({2});
  n.params = {u32_param("reduction", 4)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'reduction' is 4");
  n.params = {};
  n.inputs[2] = i32({2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "expected in[0]'s FLOAT_32");
  const std::vector<int32_t> bad{-4, 0};
  n.inputs[2] = f32({2});
  n.inputs[1] = static_i32({2}, bad);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "element 0 is -4, expected in [-3, 2]");
  n.inputs = {typed(dtype::kBool8, {3}), i32({2}), typed(dtype::kBool8, {2})};
  n.outputs = {typed(dtype::kBool8, {3})};
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "BOOL_8");
}

// ---------------- ScatterNd ----------------

TEST(IndexingScatterNd, OnnxExampleAndSlices) {
  // data [1..8], indices [[4],[3],[1],[7]], updates [9,10,11,12] -> [1,11,3,10,9,6,7,12].
  Node a{"ScatterNd", "s", {f32({8}), i32({4, 1}), f32({4})}, {f32({8})}, {}};
  EXPECT_EQ(run_typed(a, {fb({1, 2, 3, 4, 5, 6, 7, 8}), ib({4, 3, 1, 7}), fb({9, 10, 11, 12})}),
            (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));
  // Row slices of a [3,2]: indices [[2],[0]], updates [[7,8],[5,6]].
  Node b{"ScatterNd", "s", {f32({3, 2}), i32({2, 1}), f32({2, 2})}, {f32({3, 2})}, {}};
  EXPECT_EQ(run_typed(b, {fb({0, 0, 0, 0, 0, 0}), ib({2, 0}), fb({7, 8, 5, 6})}),
            (std::vector<float>{5, 6, 0, 0, 7, 8}));
}

TEST(IndexingScatterNd, Int32AddAndMulWithRepeats) {
  // data [1,2,3,4]; tuples [1],[1],[-1] (-1 -> 3); updates [5,6,10].
  Node n{"ScatterNd", "s", {i32({4}), i32({3, 1}), i32({3})}, {i32({4})}, {u32_param("reduction", 1)}};
  const B data = ib({1, 2, 3, 4}), idx = ib({1, 1, -1}), upd = ib({5, 6, 10});
  EXPECT_EQ(run_typed<int32_t>(n, {data, idx, upd}), (std::vector<int32_t>{1, 2 + 5 + 6, 3, 4 + 10}));
  n.params = {u32_param("reduction", 2)};
  EXPECT_EQ(run_typed<int32_t>(n, {data, idx, upd}), (std::vector<int32_t>{1, 2 * 5 * 6, 3, 4 * 10}));
}

TEST(IndexingScatterNd, Refusals) {
  Node n{"ScatterNd", "s", {f32({3, 2}), i32({2, 1}), f32({2, 3})}, {f32({3, 2})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (updates) dims are [2,3], expected [2,2]");
  n.inputs[2] = f32({2, 2});
  n.params = {u32_param("reduction", 3)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'reduction' is 3");
  n.params = {u32_param("batch_dims", 0)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'batch_dims'");
  const std::vector<int32_t> bad{1, 3};
  n.params = {};
  n.inputs[1] = static_i32({2, 1}, bad);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "element 1 is 3, expected in [-3, 2]");
}

// ---------------- OneHot ----------------

TEST(IndexingOneHot, LastAxisWrapAndOutOfRange) {
  // indices [0,2,-1,5], depth 3, on 5, off 0: -1 wraps to 2, 5 gives an all-off row.
  Node n{"OneHot", "oh", {i32({4})}, {f32({4, 3})},
         {u32_param("depth", 3), f32_param("on_value", 5), f32_param("off_value", 0)}};
  EXPECT_EQ(run_typed(n, {ib({0, 2, -1, 5})}), (std::vector<float>{5, 0, 0, 0, 0, 5, 0, 0, 5, 0, 0, 0}));
}

TEST(IndexingOneHot, Axis0Int32Output) {
  // indices [[0,1],[2,1]] (2x2), depth 3, axis 0 -> [3,2,2]; y[d][i][j] = idx[i][j] == d ? 7 : -1.
  Node n{"OneHot", "oh", {i32({2, 2})}, {i32({3, 2, 2})},
         {u32_param("depth", 3), i32_param("axis", 0), f32_param("on_value", 7), f32_param("off_value", -1)}};
  const std::vector<int32_t> idx{0, 1, 2, 1};
  const auto got = run_typed<int32_t>(n, {ib(idx)});
  ASSERT_EQ(got.size(), 12u);
  for (int d = 0; d < 3; ++d)
    for (int e = 0; e < 4; ++e) EXPECT_EQ(got[d * 4 + e], idx[e] == d ? 7 : -1) << d << "," << e;
}

TEST(IndexingOneHot, Refusals) {
  Node n{"OneHot", "oh", {i32({2})}, {f32({2, 3})}, {u32_param("depth", 0)}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'depth' is 0");
  n.params = {};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'depth'");
  n.params = {u32_param("depth", 3), i32_param("axis", 2)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'axis' is 2, expected in [-2, 1]");
  n.params = {u32_param("depth", 4)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  n.params = {u32_param("depth", 3), f32_param("on_value", 0.5f)};
  n.outputs = {i32({2, 3})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'on_value' is 0.5");
  n.inputs = {f32({2})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "expected INT_32 or UINT_32");
}

// ---------------- CumulativeSum ----------------

TEST(IndexingCumulativeSum, AllFourModes) {
  const std::vector<float> x{1, 2, 3, 4, 5};
  struct Mode {
    bool exclusive, reverse;
    std::vector<float> want;
  } modes[] = {{false, false, {1, 3, 6, 10, 15}},
               {true, false, {0, 1, 3, 6, 10}},
               {false, true, {15, 14, 12, 9, 5}},
               {true, true, {14, 12, 9, 5, 0}}};
  for (const Mode& m : modes) {
    Node n{"CumulativeSum", "cs", {f32({5})}, {f32({5})},
           {u32_param("axis", 0), bool_param("exclusive", m.exclusive), bool_param("reverse", m.reverse)}};
    EXPECT_EQ(n.run({&x}), m.want) << m.exclusive << m.reverse;
  }
}

TEST(IndexingCumulativeSum, Axis0FormulaInt32AndFixedPoint) {
  // x [3,2] int32; axis 0: y[i][j] = sum_{r <= i} x[r][j].
  Node n{"CumulativeSum", "cs", {i32({3, 2})}, {i32({3, 2})}, {i32_param("axis", -2)}};
  const std::vector<int32_t> x{1, -2, 3, 4, -5, 6};
  const auto got = run_typed<int32_t>(n, {ib(x)});
  ASSERT_EQ(got.size(), 6u);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      int32_t s = 0;
      for (int r = 0; r <= i; ++r) s += x[r * 2 + j];
      EXPECT_EQ(got[i * 2 + j], s);
    }
  // UFIXED_8 scale 0.5: q {2,4,6} = {1,2,3} -> {1,3,6} = q {2,6,12}.
  Node q{"CumulativeSum", "cs", {u8q({3}, 0.5f, 0)}, {u8q({3}, 0.5f, 0)}, {u32_param("axis", 0)}};
  B xq{2, 4, 6};
  EXPECT_EQ(run_raw(q, {&xq}), (B{2, 6, 12}));
}

TEST(IndexingCumulativeSum, Refusals) {
  Node n{"CumulativeSum", "cs", {f32({2, 3})}, {f32({2, 3})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'axis'");
  n.params = {u32_param("axis", 2)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'axis' is 2, expected in [-2, 1]");
  n.params = {u32_param("axis", 1)};
  n.outputs = {f32({3, 2})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  n.outputs = {i32({2, 3})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] data type is INT_32");
}

// ---------------- BatchPermutation ----------------

TEST(IndexingBatchPermutation, PermutesRowsAndClampsDynamic) {
  // x [3,2]: rows {0,1},{2,3},{4,5}; indices [2,0,1] -> rows 2, 0, 1.
  Node n{"BatchPermutation", "bp", {f32({3, 2}), i32({3})}, {f32({3, 2})}, {}};
  EXPECT_EQ(run_typed(n, {fb({0, 1, 2, 3, 4, 5}), ib({2, 0, 1})}), (std::vector<float>{4, 5, 0, 1, 2, 3}));
  // Dynamic out-of-range: 9 clamps to row 2, -1 wraps to row 2, -8 clamps to row 0.
  EXPECT_EQ(run_typed(n, {fb({0, 1, 2, 3, 4, 5}), ib({9, -1, -8})}), (std::vector<float>{4, 5, 4, 5, 0, 1}));
}

TEST(IndexingBatchPermutation, Refusals) {
  const std::vector<int32_t> bad{0, -1};
  Node n{"BatchPermutation", "bp", {f32({2, 2}), static_i32({2}, bad)}, {f32({2, 2})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "element 1 is -1, expected in [0, 1]");
  n.inputs[1] = i32({3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "dims are [3], expected [2]");
  n.inputs[1] = i32({2});
  n.params = {u32_param("axis", 0)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'axis'");
}

}  // namespace
}  // namespace opstest
