// RoiPooling and AxisAlignedBboxTransform (src/ops/reference/roi_pooling.cpp,
// axis_aligned_bbox_transform.cpp): hand-worked bins and boxes, and every
// refusal.
#include <cmath>

#include "test_util.h"

namespace opstest {
namespace {

Param ratio_param(float h, float w) {
  Param p;
  p.name = "img_size_ratio";
  p.is_tensor = true;
  p.dtype = dtype::kFloat32;
  p.dims = {2};
  const float v[2] = {h, w};
  p.data.resize(sizeof v);
  std::memcpy(p.data.data(), v, sizeof v);
  return p;
}

Param f32_tensor_param(std::string name, std::vector<float> v) {
  Param p;
  p.name = std::move(name);
  p.is_tensor = true;
  p.dtype = dtype::kFloat32;
  p.dims = {static_cast<uint32_t>(v.size())};
  p.data = bytes_of(v);
  return p;
}

Node roi_pool_node(uint32_t rois, float ratio) {
  Node n;
  n.type = "RoiPooling";
  n.inputs = {f32({2, 4, 4, 1}), f32({rois, 4}), typed(dtype::kInt32, {rois})};
  n.outputs = {f32({rois, 2, 2, 1})};
  n.params = {ratio_param(ratio, ratio)};
  return n;
}

// Two 4x4 maps: batch 0 holds v = 4h + w, batch 1 holds v + 16.
std::vector<float> two_maps() {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = float(i);
  return x;
}

std::vector<float> run_roi_pool(const Node& n, const std::vector<float>& rois, const std::vector<int32_t>& idx) {
  const auto x = bytes_of(two_maps()), r = bytes_of(rois), b = bytes_of(idx);
  const auto outs = run_raw_outputs(n, {&x, &r, &b});
  return outs.empty() ? std::vector<float>{} : as<float>(outs[0]);
}

TEST(RoiPooling, HandWorkedBins) {
  // roi 0: (0,0)-(3,3) on batch 0, ratio 1: 4x4 region, bins of 2x2:
  //   max of rows 0-1 cols 0-1 = v(1,1) = 5; cols 2-3 -> v(1,3) = 7;
  //   rows 2-3 -> 13 and 15.
  // roi 1: the same on batch 1: 16 more.
  const auto got = run_roi_pool(roi_pool_node(2, 1.0f), {0, 0, 3, 3, 0, 0, 3, 3}, {0, 1});
  EXPECT_EQ(got, (std::vector<float>{5, 7, 13, 15, 21, 23, 29, 31}));
}

TEST(RoiPooling, RatioRoundingAndClamp) {
  // ratio 2: roi (2,2)-(5,7) -> x 1..round(2.5) = 3, y 1..round(3.5) = 4
  // (half away from zero); width 3, height 4; bins 1.5 wide, 2 high:
  //   rows [floor(0+1), ceil(2+1)) = [1,3) and [3, ceil(5)) clamped to [3,4)
  //   cols [1, ceil(2.5)) = [1,3) and [floor(2.5), ceil(4)) = [2,4)
  //   maxima: v(2,2) = 10, v(2,3) = 11, v(3,2) = 14, v(3,3) = 15.
  const auto got = run_roi_pool(roi_pool_node(1, 2.0f), {2, 2, 5, 7}, {0});
  EXPECT_EQ(got, (std::vector<float>{10, 11, 14, 15}));
}

TEST(RoiPooling, SmallRoiRepeatsItsPixel) {
  // A one-pixel roi at (x=2, y=1): every bin is [1,2) x [2,3) -> v(1,2) = 6.
  const auto got = run_roi_pool(roi_pool_node(1, 1.0f), {2, 1, 2, 1}, {0});
  EXPECT_EQ(got, (std::vector<float>{6, 6, 6, 6}));
}

TEST(RoiPooling, Refusals) {
  const Node good = roi_pool_node(2, 1.0f);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.params.clear();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'img_size_ratio' is mandatory");
  }
  {
    Node n = good;
    n.params = {ratio_param(0.0f, 1.0f)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'img_size_ratio' is [0,1]");
  }
  {
    Node n = good;
    n.params.push_back(u32_param("spatial_scale", 1));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "spatial_scale");
  }
  {
    Node n = good;
    n.inputs[1].dims = {2, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (rois) dim 1 is 5");
  }
  {
    Node n = good;
    n.inputs[2].dims = {3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) dim 0 is 3");
  }
  {
    Node n = good;
    n.inputs[2].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) data type is FLOAT_32");
  }
  {
    Node n = good;
    n.outputs[0].dims = {2, 2, 2, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
  {
    Node n = good;
    const std::vector<int32_t> idx = {0, 2};
    n.inputs[2].static_data = idx.data();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) element 1 is 2");
  }
}

Node bbox_node(uint32_t rois, uint32_t classes, uint32_t batch) {
  Node n;
  n.type = "AxisAlignedBboxTransform";
  n.inputs = {f32({rois, 4}), f32({rois, classes * 4}), typed(dtype::kInt32, {rois}), f32({batch, 2})};
  n.outputs = {f32({rois, classes * 4})};
  return n;
}

std::vector<float> run_bbox(const Node& n, const std::vector<float>& rois, const std::vector<float>& deltas,
                            const std::vector<int32_t>& idx, const std::vector<float>& sizes) {
  const auto r = bytes_of(rois), d = bytes_of(deltas), b = bytes_of(idx), s = bytes_of(sizes);
  const auto outs = run_raw_outputs(n, {&r, &d, &b, &s});
  return outs.empty() ? std::vector<float>{} : as<float>(outs[0]);
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << "at " << i;
}

TEST(AxisAlignedBboxTransform, HandWorkedBoxes) {
  // roi (10,20)-(30,60): w 20, h 40, centre (20,40). Image (h 45, w 100).
  //   class 0, deltas 0: the roi itself, y2 60 clamped to 45.
  //   class 1, (0.5, -0.25, ln 2, 0): centre (20 + 10, 40 - 10) = (30,30),
  //     w 40, h 40 -> (10,10)-(50,50), y2 clamped to 45.
  //   class 2, (-2, 0, 0, 0): centre x 20 - 40 = -20 -> x1 -30, x2 -10, both 0
  //     (y as class 0).
  const float ln2 = std::log(2.0f);
  const auto got = run_bbox(bbox_node(1, 3, 1), {10, 20, 30, 60}, {0, 0, 0, 0, 0.5f, -0.25f, ln2, 0, -2, 0, 0, 0},
                            {0}, {45, 100});
  expect_near(got, {10, 20, 30, 45, 10, 10, 50, 45, 0, 20, 0, 45});
}

TEST(AxisAlignedBboxTransform, WeightsDivideTheDeltas) {
  // weights (2, 2, 1, 1) halve dx and dy: class 1's deltas doubled give the
  // same box as above. Roi 1 on batch 1 (image h 100, w 20): (0,0)-(10,10)
  // with dw = ln 4 / 1 -> w 40 around x 5: (-15..25) clamped to (0..20).
  const float ln2 = std::log(2.0f), ln4 = std::log(4.0f);
  Node n = bbox_node(2, 1, 2);
  n.params = {f32_tensor_param("weights", {2, 2, 1, 1})};
  const auto got = run_bbox(n, {10, 20, 30, 60, 0, 0, 10, 10}, {1, -0.5f, ln2, 0, 0, 0, ln4, 0}, {0, 1},
                            {45, 100, 100, 20});
  expect_near(got, {10, 10, 50, 45, 0, 0, 20, 10});
}

TEST(AxisAlignedBboxTransform, Refusals) {
  const Node good = bbox_node(2, 3, 1);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.params = {f32_tensor_param("weights", {1, 1, 0, 1})};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'weights' element 2 is 0");
  }
  {
    Node n = good;
    n.params = {f32_tensor_param("weights", {1, 1, 1})};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'weights' must be a FLOAT_32 tensor of shape [4]");
  }
  {
    Node n = good;
    n.params = {u32_param("apply_scale", 1)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "apply_scale");
  }
  {
    Node n = good;
    n.inputs[1].dims = {2, 10};
    n.outputs[0].dims = {2, 10};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (deltas) dims are [2,10]");
  }
  {
    Node n = good;
    n.inputs[0].dims = {2, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (rois) dim 1 is 5");
  }
  {
    Node n = good;
    n.inputs[3].dims = {1, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[3] (image_sizes) dim 1 is 3");
  }
  {
    Node n = good;
    n.inputs[2].dims = {1};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) dim 0 is 1");
  }
  {
    Node n = good;
    const std::vector<int32_t> idx = {0, 1};
    n.inputs[2].static_data = idx.data();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) element 1 is 1");
  }
  {
    Node n = good;
    n.outputs[0].dims = {2, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
  {
    Node n = good;
    n.inputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "3 inputs");
  }
}

}  // namespace
}  // namespace opstest
