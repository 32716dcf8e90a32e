// The indexing family's selection and fixed rearrangements: ElementWiseSelect,
// Tile, DepthToSpace, SpaceToDepth, ChannelShuffle, ExpandDims, Squeeze,
// Pack, UnPack. Expected values are written out by hand or computed in the
// test from each op's index formula; each op also runs on a non-float type
// (INT_32 or UFIXED_POINT_8, moved as bytes) and has its rules broken once.
#include "test_util.h"

namespace opstest {
namespace {

TensorDesc u8q(std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant = Quant::per_tensor(scale, offset);
  return t;
}
TensorDesc i32(std::vector<uint32_t> dims) { return typed(dtype::kInt32, std::move(dims)); }
TensorDesc b8(std::vector<uint32_t> dims) { return typed(dtype::kBool8, std::move(dims)); }

std::vector<float> iota_f(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}
std::vector<int32_t> iota_i(size_t n, int32_t start = 0) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<int32_t>(i);
  return v;
}

// ---------------- ElementWiseSelect ----------------

TEST(IndexingSelect, HandComputedBroadcast) {
  // cond [2,1] = {true, false}; a [1,3] = {1,2,3}; b [1] = {9}: row 0 from a, row 1 from b.
  Node n{"ElementWiseSelect", "sel", {b8({2, 1}), f32({1, 3}), f32({1})}, {f32({2, 3})}, {}};
  std::vector<uint8_t> c{1, 0};
  auto a = bytes_of(std::vector<float>{1, 2, 3});
  auto b = bytes_of(std::vector<float>{9});
  EXPECT_EQ(as<float>(run_raw_outputs(n, {&c, &a, &b})[0]), (std::vector<float>{1, 2, 3, 9, 9, 9}));
}

TEST(IndexingSelect, ThreeWayBroadcastInt32) {
  // cond [2,1,4], a [3,1], b [1,3,4] -> [2,3,4]; y[i,j,k] = c[i,k] ? a[j] : b[j,k].
  Node n{"ElementWiseSelect", "sel", {b8({2, 1, 4}), i32({3, 1}), i32({1, 3, 4})}, {i32({2, 3, 4})}, {}};
  std::vector<uint8_t> c{1, 0, 0, 1, 0, 1, 1, 0};
  std::vector<int32_t> a{100, 200, 300};
  std::vector<int32_t> b = iota_i(12, -6);
  auto ab = bytes_of(a), bb = bytes_of(b);
  const auto got = as<int32_t>(run_raw_outputs(n, {&c, &ab, &bb})[0]);
  ASSERT_EQ(got.size(), 24u);
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < 3; ++j)
      for (size_t k = 0; k < 4; ++k) {
        const int32_t want = c[i * 4 + k] ? a[j] : b[j * 4 + k];
        EXPECT_EQ(got[(i * 3 + j) * 4 + k], want) << i << "," << j << "," << k;
      }
}

TEST(IndexingSelect, FixedPointRequantizesTheOtherEncoding) {
  // a shares out[0]'s encoding (scale 1, offset 0): bytes copied. b has
  // scale 0.5: q 4 is 2.0, which out[0] stores as q 2.
  Node n{"ElementWiseSelect", "sel", {b8({3}), u8q({3}, 1.0f, 0), u8q({3}, 0.5f, 0)}, {u8q({3}, 1.0f, 0)}, {}};
  std::vector<uint8_t> c{1, 0, 1}, a{7, 8, 9}, b{4, 4, 4};
  EXPECT_EQ(run_raw_outputs(n, {&c, &a, &b})[0], (std::vector<uint8_t>{7, 2, 9}));
}

TEST(IndexingSelect, Refusals) {
  Node ok{"ElementWiseSelect", "sel", {b8({2}), f32({2}), f32({2})}, {f32({2})}, {}};
  EXPECT_TRUE(ok.prepare().ok());
  Node n = ok;
  n.inputs[0] = f32({2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (condition) data type is FLOAT_32", "BOOL_8");
  n = ok;
  n.inputs[2] = f32({3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "do not broadcast");
  n = ok;
  n.outputs[0] = f32({3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  n = ok;
  n.inputs.pop_back();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "has 2 inputs, expected 3");
  n = ok;
  n.inputs[1] = i32({2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "data movement does not convert integer types");
  n = ok;
  n.params.push_back(u32_param("axis", 0));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'axis'");
  n = ok;
  n.inputs[1] = f32({1, 1, 1, 1, 1, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "rank");
}

// ---------------- Tile ----------------

TEST(IndexingTile, FormulaRank2AndInt32) {
  // x [2,3] tiled by [2,3] -> [4,9]; y[i][j] = x[i % 2][j % 3].
  Node n{"Tile", "t", {i32({2, 3})}, {i32({4, 9})}, {u32_tensor_param("multiples", {2}, {2, 3})}};
  auto x = bytes_of(iota_i(6, 10));
  const auto got = as<int32_t>(run_raw_outputs(n, {&x})[0]);
  ASSERT_EQ(got.size(), 36u);
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 9; ++j) EXPECT_EQ(got[i * 9 + j], 10 + int32_t((i % 2) * 3 + j % 3)) << i << "," << j;
}

TEST(IndexingTile, HandComputedFloat) {
  Node n{"Tile", "t", {f32({2})}, {f32({6})}, {u32_tensor_param("multiples", {1}, {3})}};
  std::vector<float> x{1.5f, -2};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{1.5f, -2, 1.5f, -2, 1.5f, -2}));
}

TEST(IndexingTile, Refusals) {
  Node n{"Tile", "t", {f32({2, 3})}, {f32({2, 3})}, {u32_tensor_param("multiples", {2}, {1, 0})}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'multiples' element 1 is 0");
  n.params = {u32_tensor_param("multiples", {3}, {1, 1, 1})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'multiples' has 3 entries, expected rank 2");
  n.params = {u32_tensor_param("multiples", {2}, {2, 1})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  n.params = {};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'multiples'");
}

// ---------------- DepthToSpace / SpaceToDepth ----------------

TEST(IndexingDepthToSpace, HandComputedDcrAndCrd) {
  // x [1,1,1,8] = 0..7, block 2x2 -> [1,2,2,2]; output order (i, j, c).
  Node n{"DepthToSpace", "d2s", {f32({1, 1, 1, 8})}, {f32({1, 2, 2, 2})},
         {u32_tensor_param("block_size", {2}, {2, 2})}};
  const std::vector<float> x = iota_f(8);
  // DCR: y[i,j,c] = x[(i*2 + j)*2 + c].
  EXPECT_EQ(n.run({&x}), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  // CRD: y[i,j,c] = x[c*4 + i*2 + j].
  n.params.push_back(u32_param("mode", 1));
  EXPECT_EQ(n.run({&x}), (std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7}));
}

TEST(IndexingDepthToSpace, FormulaNonSquareBlockInt32) {
  // x [2,2,3,12], block [2,3] -> [2,4,9,2], both modes against the index formula.
  const uint32_t N = 2, H = 2, W = 3, C = 12, bh = 2, bw = 3, Co = C / (bh * bw);
  for (uint32_t mode : {0u, 1u}) {
    Node n{"DepthToSpace", "d2s", {i32({N, H, W, C})}, {i32({N, H * bh, W * bw, Co})},
           {u32_tensor_param("block_size", {2}, {bh, bw}), u32_param("mode", mode)}};
    auto x = bytes_of(iota_i(N * H * W * C));
    const auto got = as<int32_t>(run_raw_outputs(n, {&x})[0]);
    ASSERT_EQ(got.size(), size_t{N * H * W * C});
    for (uint32_t b = 0; b < N; ++b)
      for (uint32_t oh = 0; oh < H * bh; ++oh)
        for (uint32_t ow = 0; ow < W * bw; ++ow)
          for (uint32_t c = 0; c < Co; ++c) {
            const uint32_t h = oh / bh, i = oh % bh, w = ow / bw, j = ow % bw;
            const uint32_t d = mode == 0 ? (i * bw + j) * Co + c : c * bh * bw + i * bw + j;
            const int32_t want = int32_t(((b * H + h) * W + w) * C + d);
            EXPECT_EQ(got[((b * H * bh + oh) * W * bw + ow) * Co + c], want) << "mode " << mode;
          }
  }
}

TEST(IndexingSpaceToDepth, HandComputedAndRoundTrip) {
  // x [1,2,2,1] = {0,1,2,3} (h,w) -> [1,1,1,4]: DCR depth d = i*2 + j -> x[i][j].
  Node s2d{"SpaceToDepth", "s2d", {f32({1, 2, 2, 1})}, {f32({1, 1, 1, 4})},
           {u32_tensor_param("block_size", {2}, {2, 2})}};
  const std::vector<float> x = iota_f(4);
  EXPECT_EQ(s2d.run({&x}), (std::vector<float>{0, 1, 2, 3}));
  // x [1,4,2,3] with block [2,1]: SpaceToDepth then DepthToSpace (same mode) is the identity.
  for (uint32_t mode : {0u, 1u}) {
    Node a{"SpaceToDepth", "s2d", {u8q({1, 4, 2, 3}, 0.5f, 0)}, {u8q({1, 2, 2, 6}, 0.5f, 0)},
           {u32_tensor_param("block_size", {2}, {2, 1}), u32_param("mode", mode)}};
    Node b{"DepthToSpace", "d2s", {u8q({1, 2, 2, 6}, 0.5f, 0)}, {u8q({1, 4, 2, 3}, 0.5f, 0)},
           {u32_tensor_param("block_size", {2}, {2, 1}), u32_param("mode", mode)}};
    std::vector<uint8_t> in(24);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(3 * i + 1);
    const auto mid = run_raw_outputs(a, {&in})[0];
    EXPECT_NE(mid, in);  // the middle really is rearranged
    EXPECT_EQ(run_raw_outputs(b, {&mid})[0], in) << "mode " << mode;
  }
}

TEST(IndexingDepthSpace, Refusals) {
  Node n{"DepthToSpace", "d2s", {f32({1, 1, 1, 6})}, {f32({1, 2, 2, 1})}, {u32_tensor_param("block_size", {2}, {2, 2})}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "depth 6 is not divisible by block_size 2x2");
  n.inputs[0] = f32({1, 1, 8});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "rank is 3, expected 4");
  n.inputs[0] = f32({1, 1, 1, 4});
  n.params.push_back(u32_param("mode", 2));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'mode' is 2");
  n.params = {u32_tensor_param("block_size", {2}, {0, 2})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'block_size'", ">= 1");
  Node s{"SpaceToDepth", "s2d", {f32({1, 3, 2, 1})}, {f32({1, 1, 1, 6})}, {u32_tensor_param("block_size", {2}, {2, 2})}};
  EXPECT_STATUS(s.prepare(), StatusCode::kInvalidArgument, "spatial dims 3x2 are not divisible by block_size 2x2");
}

// ---------------- ChannelShuffle ----------------

TEST(IndexingChannelShuffle, HandComputedLastAxis) {
  // C = 6, 2 groups of 3: y[k*2 + g] = x[g*3 + k].
  Node n{"ChannelShuffle", "cs", {f32({1, 6})}, {f32({1, 6})}, {u32_param("num_groups", 2)}};
  const std::vector<float> x = iota_f(6);
  EXPECT_EQ(n.run({&x}), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(IndexingChannelShuffle, FormulaMiddleAxisInt32) {
  // x [2,6,3], axis 1, 3 groups of 2: y[a, k*3+g, i] = x[a, g*2+k, i].
  Node n{"ChannelShuffle", "cs", {i32({2, 6, 3})}, {i32({2, 6, 3})}, {u32_param("num_groups", 3), u32_param("axis", 1)}};
  auto x = bytes_of(iota_i(36));
  const auto got = as<int32_t>(run_raw_outputs(n, {&x})[0]);
  ASSERT_EQ(got.size(), 36u);
  for (int a = 0; a < 2; ++a)
    for (int k = 0; k < 2; ++k)
      for (int g = 0; g < 3; ++g)
        for (int i = 0; i < 3; ++i) EXPECT_EQ(got[(a * 6 + k * 3 + g) * 3 + i], (a * 6 + g * 2 + k) * 3 + i);
}

TEST(IndexingChannelShuffle, Refusals) {
  Node n{"ChannelShuffle", "cs", {f32({1, 6})}, {f32({1, 6})}, {u32_param("num_groups", 4)}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'num_groups' is 4", "axis 1 of size 6");
  n.params = {u32_param("num_groups", 2), u32_param("axis", 2)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'axis' is 2");
  n.params = {};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'num_groups'");
}

// ---------------- ExpandDims / Squeeze ----------------

TEST(IndexingExpandDims, AxesAndAxisKeepTheData) {
  const std::vector<float> x = iota_f(12);
  Node a{"ExpandDims", "e", {f32({3, 4})}, {f32({1, 3, 1, 4})}, {u32_tensor_param("axes", {2}, {0, 2})}};
  EXPECT_EQ(a.run({&x}), x);
  Node b{"ExpandDims", "e", {f32({3, 4})}, {f32({3, 4, 1})}, {u32_param("axis", 2)}};
  EXPECT_EQ(b.run({&x}), x);
  // A requantizing copy: q 10 at scale 0.5 is 5.0, q 5 at scale 1.
  Node c{"ExpandDims", "e", {u8q({2}, 0.5f, 0)}, {u8q({1, 2}, 1.0f, 0)}, {u32_param("axis", 0)}};
  std::vector<uint8_t> q{10, 4};
  EXPECT_EQ(run_raw_outputs(c, {&q})[0], (std::vector<uint8_t>{5, 2}));
}

TEST(IndexingExpandDims, Refusals) {
  Node n{"ExpandDims", "e", {f32({3, 4})}, {f32({1, 3, 4})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'axes'");
  n.params = {u32_param("axis", 0), u32_tensor_param("axes", {1}, {0})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "both given");
  n.params = {u32_param("axis", 3)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "element 0 is 3, expected < output rank 3");
  n.params = {u32_tensor_param("axes", {2}, {1, 1})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "repeats axis 1");
  n.params = {u32_param("axis", 1)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
}

TEST(IndexingSqueeze, DefaultAndAxes) {
  const std::vector<float> x = iota_f(6);
  Node a{"Squeeze", "s", {f32({1, 2, 1, 3})}, {f32({2, 3})}, {}};
  EXPECT_EQ(a.run({&x}), x);
  Node b{"Squeeze", "s", {f32({1, 2, 1, 3})}, {f32({2, 1, 3})}, {u32_tensor_param("axes", {1}, {0})}};
  EXPECT_EQ(b.run({&x}), x);
  Node c{"Squeeze", "s", {i32({1, 3})}, {i32({3})}, {u32_tensor_param("axes", {1}, {0})}};
  auto xi = bytes_of(std::vector<int32_t>{-1, 7, 1 << 30});
  EXPECT_EQ(as<int32_t>(run_raw_outputs(c, {&xi})[0]), (std::vector<int32_t>{-1, 7, 1 << 30}));
}

TEST(IndexingSqueeze, Refusals) {
  Node n{"Squeeze", "s", {f32({1, 2})}, {f32({1})}, {u32_tensor_param("axes", {1}, {1})}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "names axis 1 of size 2");
  n.params = {u32_tensor_param("axes", {1}, {2})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "element 0 is 2, expected < rank 2");
  n.params = {};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");  // default gives [2]
}

// ---------------- Pack / UnPack ----------------

TEST(IndexingPack, FormulaBothAxes) {
  // Three [2] inputs; in_k[i] = 10*k + i.
  std::vector<std::vector<uint8_t>> ins;
  for (int k = 0; k < 3; ++k) ins.push_back(bytes_of(std::vector<int32_t>{10 * k, 10 * k + 1}));
  std::vector<const std::vector<uint8_t>*> ptrs{&ins[0], &ins[1], &ins[2]};
  Node a{"Pack", "p", {i32({2}), i32({2}), i32({2})}, {i32({3, 2})}, {}};  // axis 0: y[k][i]
  EXPECT_EQ(as<int32_t>(run_raw_outputs(a, ptrs)[0]), (std::vector<int32_t>{0, 1, 10, 11, 20, 21}));
  Node b{"Pack", "p", {i32({2}), i32({2}), i32({2})}, {i32({2, 3})}, {u32_param("axis", 1)}};  // y[i][k]
  EXPECT_EQ(as<int32_t>(run_raw_outputs(b, ptrs)[0]), (std::vector<int32_t>{0, 10, 20, 1, 11, 21}));
}

TEST(IndexingPack, Refusals) {
  Node n{"Pack", "p", {f32({2}), f32({3})}, {f32({2, 2})}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] dims are [3], expected in[0]'s [2]");
  n.inputs[1] = i32({2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] data type is INT_32");
  n.inputs[1] = f32({2});
  n.params = {u32_param("axis", 2)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'axis' is 2, expected <= input rank 1");
  Node q{"Pack", "p", {u8q({2}, 1.0f, 0), u8q({2}, 2.0f, 0)}, {u8q({2, 2}, 1.0f, 0)}, {}};
  EXPECT_STATUS(q.prepare(), StatusCode::kUnsupported, "in[1] encoding");
}

TEST(IndexingUnPack, FormulaAxis1) {
  // x [2,3] -> 3 outputs of [2]: out_k[i] = x[i][k].
  Node n{"UnPack", "u", {f32({2, 3})}, {f32({2}), f32({2}), f32({2})}, {u32_param("axis", 1)}};
  auto x = bytes_of(iota_f(6));
  const auto outs = run_raw_outputs(n, {&x});
  ASSERT_EQ(outs.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(as<float>(outs[k]), (std::vector<float>{float(k), float(3 + k)})) << k;
}

TEST(IndexingUnPack, Refusals) {
  Node n{"UnPack", "u", {f32({2, 3})}, {f32({3}), f32({3})}, {u32_param("axis", 1)}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "has 2 outputs, expected 3");
  n.params = {};
  n.outputs = {f32({3}), f32({2})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  n.params = {u32_param("axis", 2)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'axis' is 2, expected < rank 2");
}

// ---------------- SpaceToBatch / BatchToSpace ----------------

TEST(IndexingSpaceToBatch, TensorFlowExample) {
  // x [1,2,2,3], block 2x2, no padding -> [4,1,1,3]: batch (i*2 + j) holds pixel (i, j).
  Node n{"SpaceToBatch", "s2b", {f32({1, 2, 2, 3})}, {f32({4, 1, 1, 3})},
         {u32_tensor_param("block_size", {2}, {2, 2}), u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0})}};
  const std::vector<float> x = iota_f(12);
  EXPECT_EQ(n.run({&x}), x);
  Node b{"BatchToSpace", "b2s", {f32({4, 1, 1, 3})}, {f32({1, 2, 2, 3})}, {u32_tensor_param("block_size", {2}, {2, 2})}};
  EXPECT_EQ(b.run({&x}), x);
}

TEST(IndexingSpaceToBatch, PaddedFormulaFixedPointAndRoundTrip) {
  // x [2,3,2,1] UFIXED_8 with offset -3 (real 0 is q 3), pad [[1,0],[0,2]], block 2x2
  // -> padded [2,4,4,1] -> [8,2,2,1]; y[(i*2+j)*2 + n, h, w] = xpad[n, 2h+i, 2w+j].
  const TensorDesc in = u8q({2, 3, 2, 1}, 0.5f, -3), out = u8q({8, 2, 2, 1}, 0.5f, -3);
  Node n{"SpaceToBatch", "s2b", {in}, {out},
         {u32_tensor_param("block_size", {2}, {2, 2}), u32_tensor_param("pad_amount", {2, 2}, {1, 0, 0, 2})}};
  std::vector<uint8_t> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(100 + i);
  const auto y = run_raw_outputs(n, {&x})[0];
  ASSERT_EQ(y.size(), 32u);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int b = 0; b < 2; ++b)
        for (int h = 0; h < 2; ++h)
          for (int w = 0; w < 2; ++w) {
            const int r = 2 * h + i - 1, c = 2 * w + j;  // unpadded source row/col
            const uint8_t want = (r >= 0 && r < 3 && c < 2) ? x[(b * 3 + r) * 2 + c] : 3;
            EXPECT_EQ(y[(((i * 2 + j) * 2 + b) * 2 + h) * 2 + w], want) << i << j << b << h << w;
          }
  Node back{"BatchToSpace", "b2s", {out}, {in},
            {u32_tensor_param("block_size", {2}, {2, 2}), u32_tensor_param("crops", {2, 2}, {1, 0, 0, 2})}};
  EXPECT_EQ(run_raw_outputs(back, {&y})[0], x);
}

TEST(IndexingSpaceToBatch, Refusals) {
  Node n{"SpaceToBatch", "s2b", {f32({1, 3, 2, 1})}, {f32({4, 1, 1, 1})}, {u32_tensor_param("block_size", {2}, {2, 2})}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "padded spatial dims 3x2 are not divisible");
  n.params.push_back(u32_tensor_param("crops", {2, 2}, {0, 0, 0, 0}));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'crops'");
  Node b{"BatchToSpace", "b2s", {f32({3, 1, 1, 1})}, {f32({1, 2, 2, 1})}, {u32_tensor_param("block_size", {2}, {2, 2})}};
  EXPECT_STATUS(b.prepare(), StatusCode::kInvalidArgument, "batch 3 is not divisible by block_size 2x2");
  b.inputs[0] = f32({4, 1, 1, 1});
  b.params.push_back(u32_tensor_param("crops", {2, 2}, {1, 1, 0, 0}));
  EXPECT_STATUS(b.prepare(), StatusCode::kInvalidArgument, "leaves nothing");
  b.params = {u32_tensor_param("block_size", {2}, {2, 2})};
  b.outputs[0] = f32({1, 2, 1, 1});
  EXPECT_STATUS(b.prepare(), StatusCode::kInvalidArgument, "out[0]");
}

}  // namespace
}  // namespace opstest
