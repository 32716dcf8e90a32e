// L2Pool2d and GridSample: hand-worked values (each written out with the
// formula that gives it) and every rule broken once.
#include "test_util.h"

namespace opstest {
namespace {

Param filter2(uint32_t h, uint32_t w) { return u32_tensor_param("filter_size", {2}, {h, w}); }
Param stride2(uint32_t h, uint32_t w) { return u32_tensor_param("stride", {2}, {h, w}); }
Param pad22(std::vector<uint32_t> v) { return u32_tensor_param("pad_amount", {2, 2}, std::move(v)); }

// ---------------------------------------------------------------- L2Pool2d

TEST(L2Pool2d, HandComputed) {
  // One 2x2 window over 3 4 / 0 0: sqrt((9 + 16 + 0 + 0) / 4) = 2.5.
  std::vector<float> x{3, 4, 0, 0};
  Node n{"L2Pool2d", "p", {f32({1, 2, 2, 1})}, {f32({1, 1, 1, 1})},
         {filter2(2, 2), stride2(1, 1), pad22({0, 0, 0, 0})}};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{2.5f}));
  // A 1x2 window with one column of padding before: Wo = (1+2-2)/1 + 1 = 2.
  // Window 0 holds padding and 3: the padding does not count, sqrt(9/1) = 3;
  // window 1 holds 3 and -4: sqrt((9+16)/2).
  std::vector<float> r{3, -4};
  Node p{"L2Pool2d", "p", {f32({1, 1, 2, 1})}, {f32({1, 1, 2, 1})},
         {filter2(1, 2), stride2(1, 1), pad22({0, 0, 1, 0})}};
  std::vector<float> got = p.run({&r});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FLOAT_EQ(got[0], 3.0f);
  EXPECT_FLOAT_EQ(got[1], std::sqrt(12.5f));
}

TEST(L2Pool2d, ChannelsAndStride) {
  // 1x4 row, two channels, window 1x2 stride 2: windows {0,1} and {2,3}.
  // channel 0: 1 1 | 2 2 -> 1, 2; channel 1: 0 6 | 8 0 -> sqrt(18), sqrt(32).
  std::vector<float> x{1, 0, 1, 6, 2, 8, 2, 0};
  Node n{"L2Pool2d", "p", {f32({1, 1, 4, 2})}, {f32({1, 1, 2, 2})},
         {filter2(1, 2), stride2(1, 2), pad22({0, 0, 0, 0})}};
  std::vector<float> got = n.run({&x});
  ASSERT_EQ(got.size(), 4u);
  EXPECT_FLOAT_EQ(got[0], 1.0f);
  EXPECT_FLOAT_EQ(got[1], std::sqrt(18.0f));
  EXPECT_FLOAT_EQ(got[2], 2.0f);
  EXPECT_FLOAT_EQ(got[3], std::sqrt(32.0f));
}

TEST(L2Pool2d, Refusals) {
  const Node base{"L2Pool2d", "p", {f32({1, 2, 2, 1})}, {f32({1, 1, 1, 1})},
                  {filter2(2, 2), stride2(1, 1), pad22({0, 0, 0, 0})}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.params.push_back(u32_param("rounding_mode", 0));  // PoolMax2d's, not L2Pool2d's
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'rounding_mode'");
  n = base;
  n.params.push_back(bool_param("count_pad_for_edges", true));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'count_pad_for_edges'");
  n = base;
  n.params.erase(n.params.begin());
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "filter_size");
  n = base;
  n.outputs[0].dims = {1, 2, 2, 1};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[1,1,1,1]");
  n = base;
  n.inputs[0].dims = {2, 2, 1};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0]", "rank");
  n = base;
  n.inputs.push_back(f32({1}));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "input");
  // A 1x2 window with two columns of padding before a 1-wide row: window 0
  // reads only padding, so it has no mean.
  Node pad{"L2Pool2d", "p", {f32({1, 1, 1, 1})}, {f32({1, 1, 2, 1})},
           {filter2(1, 2), stride2(1, 1), pad22({0, 0, 2, 0})}};
  Status s = pad.prepare();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("padding"), std::string::npos) << s.message;
}

// -------------------------------------------------------------- GridSample

// Input 2x2, one channel: x[h][w] = 1 2 / 3 4.
const std::vector<float> kImage{1, 2, 3, 4};

std::vector<float> sample(const std::vector<float>& grid, bool align, uint32_t mode, uint32_t padding) {
  const uint32_t points = static_cast<uint32_t>(grid.size() / 2);
  Node n{"GridSample", "g", {f32({1, 2, 2, 1}), f32({1, 1, points, 2})}, {f32({1, 1, points, 1})},
         {bool_param("align_corners", align), u32_param("mode", mode), u32_param("padding_mode", padding)}};
  return n.run({&kImage, &grid});
}

TEST(GridSample, BilinearAlignCorners) {
  // align_corners: ix = (x+1)/2 * (W-1), so -1 and 1 are the corner pixels'
  // centres and 0 is the middle, (1+2+3+4)/4 = 2.5. (x, y) = (1, -1) is
  // row 0, column 1 = 2; (0, -1) halfway between 1 and 2.
  EXPECT_EQ(sample({-1, -1, 1, 1, 0, 0, 1, -1, 0, -1}, true, 0, 0), (std::vector<float>{1, 4, 2.5f, 2, 1.5f}));
}

TEST(GridSample, BilinearHalfPixelAndZerosPadding) {
  // align_corners = 0: ix = ((x+1)*W - 1)/2. x = 0 -> 0.5 (the middle, 2.5);
  // x = -1 -> -0.5: with zeros padding only tap (0,0) is inside, weight
  // 0.5 * 0.5 -> 0.25; x = y = -0.5 -> ix = iy = 0 -> exactly pixel (0,0).
  EXPECT_EQ(sample({0, 0, -1, -1, -0.5f, -0.5f}, false, 0, 0), (std::vector<float>{2.5f, 0.25f, 1}));
}

TEST(GridSample, PaddingModes) {
  // (x, y) = (2, -0.5), align_corners = 0: ix = ((2+1)*2 - 1)/2 = 2.5,
  // iy = 0 (row 0 = 1 2).
  //   zeros:      taps at columns 2 and 3 are outside -> 0
  //   border:     ix clamped to W-1 = 1 -> 2
  //   reflection: mirrored at the outer edge 1.5 -> 0.5 -> (1 + 2)/2 = 1.5
  const std::vector<float> g{2, -0.5f};
  EXPECT_EQ(sample(g, false, 0, 0), (std::vector<float>{0}));
  EXPECT_EQ(sample(g, false, 0, 1), (std::vector<float>{2}));
  EXPECT_EQ(sample(g, false, 0, 2), (std::vector<float>{1.5f}));
  // align_corners = 1, (x, y) = (2, -1): ix = 3/2 * 1 = 1.5, iy = 0;
  // reflection mirrors at the corner centre 1 -> 0.5 -> 1.5; border -> 2.
  const std::vector<float> a{2, -1};
  EXPECT_EQ(sample(a, true, 0, 2), (std::vector<float>{1.5f}));
  EXPECT_EQ(sample(a, true, 0, 1), (std::vector<float>{2}));
  // Far outside, reflection folds back and forth: align_corners = 1,
  // x = 5 -> ix = 3; mirrored in [0, 1]: 3 -> -1 -> 1 -> column 1 = 2.
  EXPECT_EQ(sample({5, -1}, true, 0, 2), (std::vector<float>{2}));
}

TEST(GridSample, Nearest) {
  // align_corners = 1: (0.2, 0.2) -> (0.6, 0.6) -> pixel (1,1) = 4;
  // (-0.2, 0.6) -> ix 0.4 -> 0, iy 0.8 -> 1 -> 3; (0, 0) -> 0.5 rounds to
  // even 0 -> 1.
  EXPECT_EQ(sample({0.2f, 0.2f, -0.2f, 0.6f, 0, 0}, true, 1, 0), (std::vector<float>{4, 3, 1}));
  // Zeros padding: align_corners = 0, x = 1 -> ix = 1.5 rounds to 2, outside -> 0;
  // border clamps it to column 1 (row iy = 0 at y = -0.5) -> 2.
  EXPECT_EQ(sample({1, -0.5f}, false, 1, 0), (std::vector<float>{0}));
  EXPECT_EQ(sample({1, -0.5f}, false, 1, 1), (std::vector<float>{2}));
}

TEST(GridSample, BatchesAndChannels) {
  // Two images 1x2 with two channels; each batch uses its own grid. With
  // align_corners = 1, H = 1 maps every y to row 0 and x = 0 to column 0.5.
  //   image 0: (1,10) (2,20) at x = 0  -> (1.5, 15)
  //   image 1: (3,30) (5,50) at x = 1  -> (5, 50)
  std::vector<float> x{1, 10, 2, 20, 3, 30, 5, 50}, grid{0, 0, 1, 0.7f};
  Node n{"GridSample", "g", {f32({2, 1, 2, 2}), f32({2, 1, 1, 2})}, {f32({2, 1, 1, 2})},
         {bool_param("align_corners", true)}};
  EXPECT_EQ(n.run({&x, &grid}), (std::vector<float>{1.5f, 15, 5, 50}));
}

TEST(GridSample, Refusals) {
  const Node base{"GridSample", "g", {f32({1, 2, 2, 1}), f32({1, 3, 4, 2})}, {f32({1, 3, 4, 1})}, {}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.params.push_back(u32_param("mode", 2));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'mode' is 2");
  n = base;
  n.params.push_back(u32_param("padding_mode", 3));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'padding_mode' is 3");
  n = base;
  n.params.push_back(u32_param("interpolation", 0));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'interpolation'");
  n = base;
  n.inputs[1].dims = {1, 3, 4, 3};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (grid) dim 3 is 3, expected 2");
  n = base;
  n.inputs[1].dims = {2, 3, 4, 2};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (grid) dim 0 is 2, expected batch N = 1");
  n = base;
  n.outputs[0].dims = {1, 4, 3, 1};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[1,3,4,1]");
  n = base;
  n.inputs[0].dims = {1, 1, 2, 2, 1};
  n.inputs[1].dims = {1, 1, 3, 4, 3};
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "rank 5");
  n = base;
  n.inputs[0].dims = {2, 2, 1};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input)", "rank");
  n = base;
  n.inputs.resize(1);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "input");
  n = base;
  n.inputs[1].dtype = dtype::kInt32;
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[1] (grid)", "INT_32");
}

}  // namespace
}  // namespace opstest
