// BboxTransform, BoxWithNmsLimit, GenerateProposals and HeatMapMaxKeyPoint
// (src/ops/reference/bbox_transform.cpp, box_with_nms_limit.cpp,
// generate_proposals.cpp, heat_map_max_key_point.cpp): expected values worked
// by hand in the comments or from the formula written in the test, and every
// refusal.
#include <cmath>

#include "test_util.h"

namespace opstest {
namespace {

constexpr double kPi = 3.14159265358979323846;
const double kClip = std::log(1000.0 / 16.0);

Param f32_tensor(std::string name, std::vector<float> v) {
  Param p;
  p.name = std::move(name);
  p.is_tensor = true;
  p.dtype = dtype::kFloat32;
  p.dims = {static_cast<uint32_t>(v.size())};
  p.data = bytes_of(v);
  return p;
}

Param i32_scalar(std::string name, int32_t v) { return scalar_param(std::move(name), dtype::kInt32, v); }

void expect_near(const std::vector<float>& got, const std::vector<double>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << what << " at " << i;
}

// ---------------------------------------------------------------- BboxTransform

Node bbox_node(uint32_t rois, uint32_t classes, uint32_t batch, uint32_t dim = 4) {
  Node n;
  n.type = "BboxTransform";
  n.inputs = {f32({rois, dim}), f32({rois, classes * dim}), typed(dtype::kInt32, {rois}), f32({batch, 2})};
  n.outputs = {f32({rois, classes * dim})};
  return n;
}

std::vector<std::vector<uint8_t>> run_bbox(const Node& n, const std::vector<float>& rois,
                                           const std::vector<float>& deltas, const std::vector<int32_t>& idx,
                                           const std::vector<float>& sizes) {
  const auto r = bytes_of(rois), d = bytes_of(deltas), b = bytes_of(idx), s = bytes_of(sizes);
  return run_raw_outputs(n, {&r, &d, &b, &s});
}

// The upright formula, written out: centre += (dx/wx * w, dy/wy * h), size
// *= exp(min(d/w, log(1000/16))), clamped into (h, w).
std::vector<double> upright(const std::vector<double>& box, const std::vector<double>& d, const double wt[4],
                            double H, double W) {
  const double w = box[2] - box[0], h = box[3] - box[1];
  const double cx = box[0] + w / 2 + d[0] / wt[0] * w, cy = box[1] + h / 2 + d[1] / wt[1] * h;
  const double nw = w * std::exp(std::min(d[2] / wt[2], kClip)), nh = h * std::exp(std::min(d[3] / wt[3], kClip));
  auto c = [](double v, double hi) { return std::min(std::max(v, 0.0), hi); };
  return {c(cx - nw / 2, W), c(cy - nh / 2, H), c(cx + nw / 2, W), c(cy + nh / 2, H)};
}

TEST(BboxTransform, UprightFormulaWithWeights) {
  // One roi, two classes, weights (2, 4, 1, 0.5); image (h 200, w 300).
  const std::vector<double> roi = {10, 20, 50, 100};
  const std::vector<double> d0 = {0.4, -0.8, 0.3, 0.1}, d1 = {-1, 2, -0.5, 0.2};
  const double wt[4] = {2, 4, 1, 0.5};
  Node n = bbox_node(1, 2, 1);
  n.params = {f32_tensor("weights", {2, 4, 1, 0.5f})};
  const auto outs = run_bbox(n, {10, 20, 50, 100}, {0.4f, -0.8f, 0.3f, 0.1f, -1, 2, -0.5f, 0.2f}, {0}, {200, 300});
  std::vector<double> want = upright(roi, d0, wt, 200, 300);
  const auto w1 = upright(roi, d1, wt, 200, 300);
  want.insert(want.end(), w1.begin(), w1.end());
  expect_near(as<float>(outs[0]), want, 1e-4, "boxes");
}

TEST(BboxTransform, SizeDeltaClippedAtLog1000Over16) {
  // roi (0,0)-(2,2), dw = 10: the width grows by 1000/16 = 62.5 (not e^10):
  // 125 wide around x 1 -> (-61.5 .. 63.5), x1 clamped to 0. dh = 1: e^1.
  // Image (h 1000, w 1000).
  const auto outs = run_bbox(bbox_node(1, 1, 1), {0, 0, 2, 2}, {0, 0, 10, 1}, {0}, {1000, 1000});
  const double e = std::exp(1.0);
  // y1 = 1 - e < 0: clamped to 0.
  expect_near(as<float>(outs[0]), {0, 0, 63.5, 1 + e}, 1e-3, "clipped");
}

TEST(BboxTransform, MatchesAxisAlignedBboxTransformBelowTheClip) {
  // The shared formula: small deltas give AxisAlignedBboxTransform's boxes
  // exactly (same code path, same rounding).
  std::mt19937 rng(7);
  const uint32_t R = 5, K = 3;
  std::vector<float> rois;
  for (uint32_t r = 0; r < R; ++r) {
    const float x = float(rand_int(rng, 0, 50)), y = float(rand_int(rng, 0, 50));
    rois.insert(rois.end(), {x, y, x + float(rand_int(rng, 1, 40)), y + float(rand_int(rng, 1, 40))});
  }
  const auto deltas = random_floats(rng, R * K * 4, -1.0f, 1.0f);
  const std::vector<int32_t> idx = {0, 1, 1, 0, 1};
  const std::vector<float> sizes = {70, 80, 90, 60};
  Node a = bbox_node(R, K, 2);
  a.type = "AxisAlignedBboxTransform";
  const auto r = bytes_of(rois), d = bytes_of(deltas), b = bytes_of(idx), s = bytes_of(sizes);
  const auto want = run_raw_outputs(a, {&r, &d, &b, &s});
  const auto got = run_raw_outputs(bbox_node(R, K, 2), {&r, &d, &b, &s});
  EXPECT_EQ(got[0], want[0]);
}

TEST(BboxTransform, BatchSplitsCountRoisPerImage) {
  // Rois on images 1, 0, 1 of 3 (image 2 has none): splits (1, 2, 0).
  Node n = bbox_node(3, 1, 3);
  n.outputs.push_back(typed(dtype::kInt32, {3}));
  const auto outs = run_bbox(n, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1}, std::vector<float>(12, 0.0f), {1, 0, 1},
                             {10, 10, 10, 10, 10, 10});
  EXPECT_EQ(as<int32_t>(outs[1]), (std::vector<int32_t>{1, 2, 0}));
  expect_near(as<float>(outs[0]), {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1}, 0.0, "unchanged boxes");
}

TEST(BboxTransform, RotatedBoxes) {
  // Rotated rois (ctr_x, ctr_y, w, h, angle); image (h 100, w 100).
  //   roi 0 (50, 40, 20, 10, 30), delta (0.1, -0.2, ln 2, 0, pi/2):
  //     centre (50 + 0.1*20, 40 - 0.2*10) = (52, 38), w 40, h 10,
  //     angle 30 + 90 = 120 -> -60 in [-90, 90]; |-60| > 1: not clipped.
  //   roi 1 (5, 5, 20, 4, 0.5), delta 0: near-horizontal (|0.5| <= 1):
  //     clipped upright: x (-5 .. 15) -> (0 .. 15), y (3 .. 7):
  //     centre (7.5, 5), w 15, h 4, angle 0.5.
  Node n = bbox_node(2, 1, 1, 5);
  const auto outs = run_bbox(n, {50, 40, 20, 10, 30, 5, 5, 20, 4, 0.5f},
                             {0.1f, -0.2f, float(std::log(2.0)), 0, float(kPi / 2), 0, 0, 0, 0, 0}, {0, 0},
                             {100, 100});
  expect_near(as<float>(outs[0]), {52, 38, 40, 10, -60, 7.5, 5, 15, 4, 0.5}, 1e-4, "rotated");

  // angle_bounds (0, 180): -60 -> 120 is already there, 30+90 = 120 stays;
  // roi 1's 0.5 stays; angle_clip_threshold 0.25: roi 1 no longer clipped.
  n.params = {i32_tensor_param("angle_bounds", {2}, {0, 180}), f32_param("angle_clip_threshold", 0.25f)};
  const auto outs2 = run_bbox(n, {50, 40, 20, 10, 30, 5, 5, 20, 4, 0.5f},
                              {0.1f, -0.2f, float(std::log(2.0)), 0, float(kPi / 2), 0, 0, 0, 0, 0}, {0, 0},
                              {100, 100});
  expect_near(as<float>(outs2[0]), {52, 38, 40, 10, 120, 5, 5, 20, 4, 0.5}, 1e-4, "bounds (0,180)");

  // Several periods away: angle 10 + da = 4 pi rad (720 degrees) -> 730 -> 10.
  Node one = bbox_node(1, 1, 1, 5);
  const auto outs3 = run_bbox(one, {50, 50, 10, 10, 10}, {0, 0, 0, 0, float(4 * kPi)}, {0}, {100, 100});
  EXPECT_NEAR(as<float>(outs3[0])[4], 10.0, 1e-3);
}

TEST(BboxTransform, ApplyScaleAcceptedWithoutEffect) {
  Node n = bbox_node(1, 1, 1);
  const auto base = run_bbox(n, {1, 2, 5, 9}, {0.1f, 0.2f, 0.3f, -0.4f}, {0}, {50, 50});
  n.params = {bool_param("apply_scale", false)};
  const auto off = run_bbox(n, {1, 2, 5, 9}, {0.1f, 0.2f, 0.3f, -0.4f}, {0}, {50, 50});
  EXPECT_EQ(base[0], off[0]);
}

TEST(BboxTransform, Refusals) {
  const Node good = bbox_node(2, 3, 1);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.params = {f32_tensor("weights", {1, -1, 1, 1})};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'weights' element 1 is -1");
  }
  {
    Node n = good;
    n.params = {i32_tensor_param("angle_bounds", {2}, {-90, 0})};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'angle_bounds' is [-90,0]", "multiple of 180");
  }
  {
    Node n = good;
    n.params = {i32_tensor_param("angle_bounds", {2}, {90, -90})};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'angle_bounds' is [90,-90]");
  }
  {
    Node n = good;
    n.params = {i32_tensor_param("angle_bounds", {3}, {0, 90, 180})};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'angle_bounds' must be an INT_32 or FLOAT_32 tensor");
  }
  {
    Node n = good;
    n.params = {f32_param("angle_clip_threshold", std::nanf(""))};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "angle_clip_threshold");
  }
  {
    Node n = good;
    n.params = {f32_param("rotated", 1)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'rotated'");
  }
  {
    Node n = good;
    n.inputs[0].dims = {2, 6};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (rois) dim 1 is 6");
  }
  {
    Node n = good;
    n.inputs[0].dims = {2, 4, 1};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (rois) rank is 3");
  }
  {
    Node n = good;
    n.inputs[1].dims = {2, 10};
    n.outputs[0].dims = {2, 10};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (deltas) dims are [2,10]");
  }
  {
    Node n = bbox_node(2, 3, 1, 5);
    n.inputs[1].dims = {2, 12};
    n.outputs[0].dims = {2, 12};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (deltas) dims are [2,12]", "num_classes*5");
  }
  {
    Node n = good;
    n.inputs[2].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) data type is FLOAT_32");
  }
  {
    Node n = good;
    n.inputs[3].dims = {1, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[3] (image_sizes) dim 1 is 3");
  }
  {
    Node n = good;
    n.outputs[0].dims = {2, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
  {
    Node n = good;
    n.outputs.push_back(typed(dtype::kInt32, {2}));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  }
  {
    Node n = good;
    n.outputs.push_back(f32({1}));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1] data type is FLOAT_32");
  }
  {
    Node n = good;
    const std::vector<int32_t> idx = {0, 1};
    n.inputs[2].static_data = idx.data();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) element 1 is 1");
  }
  {
    Node n = good;
    n.inputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "3 inputs, expected 4");
  }
}

// -------------------------------------------------------------- BoxWithNmsLimit

// Four rois, classes 0 (background), 1, 2. Class-1 boxes:
//   A (0,0,10,10), B (1,0,11,10), C (20,20,30,30), D (0,0,10,5)
//   IoU(A,B) = 90/110 = 0.818, IoU(A,D) = 50/100 = 0.5, IoU(B,D) = 45/105 =
//   0.4286, C disjoint from all. Class-2 boxes: the same moved 100 in x;
//   class-0 boxes: moved 500 (never output).
std::vector<float> nms_boxes() {
  const float base[4][4] = {{0, 0, 10, 10}, {1, 0, 11, 10}, {20, 20, 30, 30}, {0, 0, 10, 5}};
  const float shift[3] = {500, 0, 100};
  std::vector<float> b;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) b.insert(b.end(), {base[r][0] + shift[c], base[r][1], base[r][2] + shift[c], base[r][3]});
  return b;
}
// scores [roi, class]: class 0 high everywhere (skipped as background).
const std::vector<float> kNmsScores = {0.9f, 0.9f, 0.1f, 0.1f, 0.8f, 0.7f, 0.2f, 0.6f, 0.04f, 0.95f, 0.5f, 0.3f};

Node box_nms_node(uint32_t rois, uint32_t classes, uint32_t max_out, size_t n_outputs, uint32_t batch = 1) {
  Node n;
  n.type = "BoxWithNmsLimit";
  n.inputs = {f32({rois, classes * 4}), f32({rois, classes}), typed(dtype::kInt32, {rois})};
  n.outputs = {f32({max_out, 4}), f32({max_out}), typed(dtype::kInt32, {max_out}), typed(dtype::kInt32, {max_out})};
  if (n_outputs > 4) n.outputs.push_back(typed(dtype::kInt32, {batch}));
  if (n_outputs > 5) n.outputs.push_back(typed(dtype::kInt32, {max_out}));
  if (n_outputs > 6) n.outputs.push_back(typed(dtype::kInt32, {batch, classes}));
  n.params = {f32_param("score_threshold", 0.05f), f32_param("iou_threshold", 0.5f)};
  return n;
}

std::vector<std::vector<uint8_t>> run_box_nms(const Node& n, const std::vector<float>& boxes,
                                              const std::vector<float>& scores, const std::vector<int32_t>& idx) {
  const auto b = bytes_of(boxes), s = bytes_of(scores), i = bytes_of(idx);
  return run_raw_outputs(n, {&b, &s, &i});
}

// The class-c box of roi r.
std::vector<double> box_of(int r, int c) {
  const auto b = nms_boxes();
  return {b[(r * 3 + c) * 4], b[(r * 3 + c) * 4 + 1], b[(r * 3 + c) * 4 + 2], b[(r * 3 + c) * 4 + 3]};
}

TEST(BoxWithNmsLimit, HardNmsPerClassGroupedByClass) {
  // class 1: A 0.9 kept; B 0.8 dropped (IoU 0.818 >= 0.5); D 0.5 dropped
  //   (IoU 0.5 >= 0.5: the comparison includes equality); C 0.6 kept.
  // class 2: B 0.7 kept; A 0.1 dropped (0.818); D 0.3 kept (0.4286 < 0.5);
  //   C 0.04 below score_threshold 0.05.
  // Rows: (c1 A .9) (c1 C .6) (c2 B .7) (c2 D .3), then two rows of 0.
  const auto outs = run_box_nms(box_nms_node(4, 3, 6, 7), nms_boxes(), kNmsScores, {0, 0, 0, 0});
  std::vector<double> want_boxes;
  for (auto [r, c] : {std::pair{0, 1}, {2, 1}, {1, 2}, {3, 2}}) {
    const auto b = box_of(r, c);
    want_boxes.insert(want_boxes.end(), b.begin(), b.end());
  }
  want_boxes.resize(24, 0.0);
  expect_near(as<float>(outs[0]), want_boxes, 0.0, "boxes");
  expect_near(as<float>(outs[1]), {0.9, 0.6, 0.7, 0.3, 0, 0}, 1e-7, "scores");
  EXPECT_EQ(as<int32_t>(outs[2]), (std::vector<int32_t>{1, 1, 2, 2, 0, 0}));
  EXPECT_EQ(as<int32_t>(outs[3]), (std::vector<int32_t>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(as<int32_t>(outs[4]), (std::vector<int32_t>{4}));
  EXPECT_EQ(as<int32_t>(outs[5]), (std::vector<int32_t>{0, 2, 1, 3, 0, 0}));
  EXPECT_EQ(as<int32_t>(outs[6]), (std::vector<int32_t>{0, 2, 2}));
}

TEST(BoxWithNmsLimit, PerImageLimitKeepsTheBestScores) {
  // pre_nms_limit 3: of .9 (c1 A), .6 (c1 C), .7 (c2 B), .3 (c2 D) the best
  // three stay, still grouped by class: (c1 A .9) (c1 C .6) (c2 B .7).
  Node n = box_nms_node(4, 3, 4, 6);
  n.params.push_back(i32_scalar("pre_nms_limit", 3));
  const auto outs = run_box_nms(n, nms_boxes(), kNmsScores, {0, 0, 0, 0});
  expect_near(as<float>(outs[1]), {0.9, 0.6, 0.7, 0}, 1e-7, "scores");
  EXPECT_EQ(as<int32_t>(outs[2]), (std::vector<int32_t>{1, 1, 2, 0}));
  EXPECT_EQ(as<int32_t>(outs[4]), (std::vector<int32_t>{3}));
  EXPECT_EQ(as<int32_t>(outs[5]), (std::vector<int32_t>{0, 2, 1, 0}));
  // A limit <= 0 is no limit: all four rows.
  Node u = box_nms_node(4, 3, 4, 4);
  u.params.push_back(i32_scalar("pre_nms_limit", -1));
  const auto all = run_box_nms(u, nms_boxes(), kNmsScores, {0, 0, 0, 0});
  expect_near(as<float>(all[1]), {0.9, 0.6, 0.7, 0.3}, 1e-7, "scores, no limit");
}

TEST(BoxWithNmsLimit, LinearSoftNms) {
  // LINEAR, iou 0.5, nms_score_threshold 0.2:
  // class 1: A .9 kept; B .8 * (1 - 0.818) = 0.1455 < 0.2 dropped; C .6
  //   untouched; D .5 * (1 - 0.5) = 0.25. Then C .6, then D .25 (C disjoint).
  // class 2: B .7; A .1 * 0.1818 dropped; D .3 (IoU 0.4286 < 0.5: weight 1).
  Node n = box_nms_node(4, 3, 6, 4);
  n.params.push_back(u32_param("nms_kernel_method", 1));
  n.params.push_back(f32_param("nms_score_threshold", 0.2f));
  const auto outs = run_box_nms(n, nms_boxes(), kNmsScores, {0, 0, 0, 0});
  expect_near(as<float>(outs[1]), {0.9, 0.6, 0.25, 0.7, 0.3, 0}, 1e-6, "scores");
  EXPECT_EQ(as<int32_t>(outs[2]), (std::vector<int32_t>{1, 1, 1, 2, 2, 0}));
  const auto b = as<float>(outs[0]);
  EXPECT_EQ(std::vector<float>(b.begin() + 8, b.begin() + 12), (std::vector<float>{0, 0, 10, 5}));  // D, class 1
}

TEST(BoxWithNmsLimit, GaussianSoftNms) {
  // GAUSSIAN, sigma 0.5, nms_score_threshold 0.2; s *= exp(-IoU^2 / sigma).
  const double iou_ab = 90.0 / 110.0, iou_ad = 0.5, iou_bd = 45.0 / 105.0;
  auto k = [](double iou) { return std::exp(-iou * iou / 0.5); };
  // class 1: A .9 kept; then B .8 k(ab), C .6, D .5 k(ad).
  const double b1 = 0.8 * k(iou_ab), d1 = 0.5 * k(iou_ad);
  ASSERT_GT(b1, 0.2);
  ASSERT_GT(d1, b1);  // after C (.6), D is the next pick, then B decays by k(bd)
  const double b1_final = b1 * k(iou_bd);
  ASSERT_LT(b1_final, 0.2);  // ... and drops
  // class 2: B .7 kept; A .1 k(ab) < .2 dropped; D .3 k(bd) kept.
  const double d2 = 0.3 * k(iou_bd);
  ASSERT_GT(d2, 0.2);
  Node n = box_nms_node(4, 3, 6, 6);
  n.params.push_back(u32_param("nms_kernel_method", 2));
  n.params.push_back(f32_param("sigma", 0.5f));
  n.params.push_back(f32_param("nms_score_threshold", 0.2f));
  const auto outs = run_box_nms(n, nms_boxes(), kNmsScores, {0, 0, 0, 0});
  expect_near(as<float>(outs[1]), {0.9, 0.6, d1, 0.7, d2, 0}, 1e-6, "scores");
  EXPECT_EQ(as<int32_t>(outs[5]), (std::vector<int32_t>{0, 2, 3, 1, 3, 0}));
}

TEST(BoxWithNmsLimit, ImagesInBatchOrderAndRowLimit) {
  // Rois 0, 1 on image 1, roi 2 on image 0 (not grouped in the input); one
  // foreground class, disjoint boxes. Image 0 first: (roi 2), then image 1
  // (roi 0 .9, roi 1 .8). With max_out 2 the last row is dropped.
  Node n = box_nms_node(3, 2, 3, 7, 2);
  const std::vector<float> boxes = {0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 5, 5, 6, 6, 0, 0, 0, 0, 9, 9, 10, 10};
  const std::vector<float> scores = {0, 0.9f, 0, 0.8f, 0, 0.3f};
  const auto outs = run_box_nms(n, boxes, scores, {1, 1, 0});
  expect_near(as<float>(outs[1]), {0.3, 0.9, 0.8}, 1e-7, "scores");
  EXPECT_EQ(as<int32_t>(outs[3]), (std::vector<int32_t>{0, 1, 1}));
  EXPECT_EQ(as<int32_t>(outs[4]), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(as<int32_t>(outs[5]), (std::vector<int32_t>{2, 0, 1}));
  EXPECT_EQ(as<int32_t>(outs[6]), (std::vector<int32_t>{0, 1, 0, 2}));
  expect_near(as<float>(outs[0]), {9, 9, 10, 10, 0, 0, 1, 1, 5, 5, 6, 6}, 0.0, "boxes");

  Node small = box_nms_node(3, 2, 2, 5, 2);
  const auto two = run_box_nms(small, boxes, scores, {1, 1, 0});
  expect_near(as<float>(two[1]), {0.3, 0.9}, 1e-7, "scores, max_out 2");
  EXPECT_EQ(as<int32_t>(two[4]), (std::vector<int32_t>{1, 1}));

  // A run-time index outside the 2 images puts its roi nowhere.
  const auto bad = run_box_nms(n, boxes, scores, {1, 5, 0});
  expect_near(as<float>(bad[1]), {0.3, 0.9, 0}, 1e-7, "scores, index 5 ignored");
}

TEST(BoxWithNmsLimit, BatchSplitsInputGivesTheImageCount) {
  Node n = box_nms_node(3, 2, 3, 5, 2);
  n.inputs.push_back(typed(dtype::kInt32, {2}));
  const std::vector<float> boxes(24, 0.0f);
  const std::vector<float> scores = {0, 0.9f, 0, 0.8f, 0, 0.3f};
  const auto b = bytes_of(boxes), s = bytes_of(scores), i = bytes_of(std::vector<int32_t>{0, 1, 1});
  const auto sp = bytes_of(std::vector<int32_t>{1, 2});
  const auto outs = run_raw_outputs(n, {&b, &s, &i, &sp});
  EXPECT_EQ(as<int32_t>(outs[4]), (std::vector<int32_t>{1, 2}));
}

TEST(BoxWithNmsLimit, Refusals) {
  const Node good = box_nms_node(4, 3, 6, 7);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.params.push_back(u32_param("nms_kernel_method", 3));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'nms_kernel_method' is 3");
  }
  {
    Node n = good;
    n.params.push_back(u32_param("nms_kernel_method", 2));
    n.params.push_back(f32_param("sigma", 0.0f));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'sigma' is 0, expected > 0 for GAUSSIAN");
  }
  {
    Node n = good;
    n.params.push_back(f32_param("pre_nms_limit", 2.5f));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'pre_nms_limit' is 2.5, expected an integer");
  }
  {
    Node n = good;
    n.params.push_back(f32_param("detections_per_im", 10));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'detections_per_im'");
  }
  {
    Node n = good;
    n.inputs[0].dims = {4, 8};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (boxes) dims are [4,8], expected [4,12]");
  }
  {
    Node n = good;
    n.inputs[1].dims = {4, 3, 1};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (scores) rank is 3");
  }
  {
    Node n = good;
    n.inputs[2].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) data type is FLOAT_32");
  }
  {
    Node n = good;
    n.inputs[2].dims = {3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) dim 0 is 3");
  }
  {
    Node n = good;
    n.inputs.push_back(typed(dtype::kInt32, {2}));  // 2 images, out[4] says 1
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[4] (batch_splits) gives 1 images, expected batch = 2");
  }
  {
    Node n = good;
    n.outputs[0].dims = {6, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dims are [6,5]");
  }
  {
    Node n = good;
    n.outputs[1].dims = {5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  }
  {
    Node n = good;
    n.outputs[2].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[2] data type is FLOAT_32");
  }
  {
    Node n = good;
    n.outputs[6].dims = {1, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[6] (keeps_size) dims are [1,2], expected [batch,3]");
  }
  {
    Node n = good;
    const std::vector<int32_t> idx = {0, 0, 1, 0};
    n.inputs[2].static_data = idx.data();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) element 2 is 1");
  }
  {
    Node n = good;
    n.outputs.resize(3);
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "3 outputs, expected 4 to 7");
  }
}

// ------------------------------------------------------------ GenerateProposals

Param ratio(float h, float w) { return f32_tensor("img_size_ratio", {h, w}); }

Node proposals_node(uint32_t N, uint32_t H, uint32_t W, uint32_t A, uint32_t max_out) {
  Node n;
  n.type = "GenerateProposals";
  n.inputs = {f32({N, H, W, A}), f32({N, H, W, A * 4}), f32({A, 4}), f32({N, 2})};
  n.outputs = {f32({max_out}), f32({max_out, 4}), typed(dtype::kInt32, {max_out})};
  n.params = {ratio(16, 16)};
  return n;
}

std::vector<std::vector<uint8_t>> run_proposals(const Node& n, const std::vector<float>& scores,
                                                const std::vector<float>& deltas, const std::vector<float>& anchors,
                                                const std::vector<float>& info) {
  const auto s = bytes_of(scores), d = bytes_of(deltas), a = bytes_of(anchors), i = bytes_of(info);
  return run_raw_outputs(n, {&s, &d, &a, &i});
}

// One image, H 1, W 2, two anchors a0 (0,0,10,10), a1 (0,0,20,20); ratio 16.
// Candidates i = w*2 + a: i0 (0,0,10,10), i1 (0,0,20,20), i2 (16,0,26,10),
// i3 (16,0,36,20). Deltas 0 except i3's dx 0.5: centre x 26 + 10 = 36 ->
// (26,0,46,20), x2 clamped to the image width 40 -> (26,0,40,20).
// Scores i0 .9, i1 .8, i2 .7, i3 .95. Image (h 100, w 40).
const std::vector<float> kPropScores = {0.9f, 0.8f, 0.7f, 0.95f};
const std::vector<float> kPropAnchors = {0, 0, 10, 10, 0, 0, 20, 20};
std::vector<float> prop_deltas() {
  std::vector<float> d(16, 0.0f);
  d[12] = 0.5f;
  return d;
}

TEST(GenerateProposals, MinSizeFilterAndOrder) {
  // min_size 12: i0 and i2 (10 wide) dropped; i3 and i1 disjoint: both kept.
  Node n = proposals_node(1, 1, 2, 2, 3);
  n.params.push_back(f32_param("min_size", 12));
  n.params.push_back(f32_param("iou_threshold", 0.5f));
  const auto outs = run_proposals(n, kPropScores, prop_deltas(), kPropAnchors, {100, 40});
  expect_near(as<float>(outs[0]), {0.95, 0.8, 0}, 1e-7, "scores");
  expect_near(as<float>(outs[1]), {26, 0, 40, 20, 0, 0, 20, 20, 0, 0, 0, 0}, 1e-5, "boxes");
  EXPECT_EQ(as<int32_t>(outs[2]), (std::vector<int32_t>{0, 0, 0}));
}

TEST(GenerateProposals, PreNmsLimitBeforeTheFilter) {
  // pre_nms_limit 2: i3 and i0 (the best two); i0 then fails min_size 12.
  Node n = proposals_node(1, 1, 2, 2, 3);
  n.params.push_back(f32_param("min_size", 12));
  n.params.push_back(u32_param("pre_nms_limit", 2));
  const auto outs = run_proposals(n, kPropScores, prop_deltas(), kPropAnchors, {100, 40});
  expect_near(as<float>(outs[0]), {0.95, 0, 0}, 1e-7, "scores");
}

TEST(GenerateProposals, HardNmsAndPostLimit) {
  // min_size 0, iou 0.2: i3 .95 kept; i0 .9 kept (disjoint from i3: touch at
  // x 26 only for i2); i1 .8: IoU with i0 100/400 = 0.25 >= 0.2 dropped;
  // i2 .7 (16,0,26,10): IoU with i3 0 (they touch), with i0 0: kept.
  Node n = proposals_node(1, 1, 2, 2, 4);
  n.params.push_back(f32_param("min_size", 0));
  n.params.push_back(f32_param("iou_threshold", 0.2f));
  const auto outs = run_proposals(n, kPropScores, prop_deltas(), kPropAnchors, {100, 40});
  expect_near(as<float>(outs[0]), {0.95, 0.9, 0.7, 0}, 1e-7, "scores");
  expect_near(as<float>(outs[1]), {26, 0, 40, 20, 0, 0, 10, 10, 16, 0, 26, 10, 0, 0, 0, 0}, 1e-5, "boxes");
  // iou 0.3: i1 (0.25 < 0.3) stays too; post_nms_limit 3 keeps three.
  Node m = proposals_node(1, 1, 2, 2, 4);
  m.params.push_back(f32_param("min_size", 0));
  m.params.push_back(f32_param("iou_threshold", 0.3f));
  m.params.push_back(i32_scalar("post_nms_limit", 3));
  const auto outs2 = run_proposals(m, kPropScores, prop_deltas(), kPropAnchors, {100, 40});
  expect_near(as<float>(outs2[0]), {0.95, 0.9, 0.8, 0}, 1e-7, "scores, post limit 3");
}

TEST(GenerateProposals, CentreOutsideTheImageDropped) {
  // Image width 16: i2 and i3 start at x 16; clamped to (16,0,16,..) they are
  // 0 wide with centre x 16, not < 16: dropped (min_size 0).
  Node n = proposals_node(1, 1, 2, 2, 4);
  n.params.push_back(f32_param("min_size", 0));
  n.params.push_back(f32_param("iou_threshold", 1.0f));
  const auto outs = run_proposals(n, kPropScores, prop_deltas(), kPropAnchors, {100, 16});
  expect_near(as<float>(outs[0]), {0.9, 0.8, 0, 0}, 1e-7, "scores");
}

TEST(GenerateProposals, XformClipAndBatches) {
  // One anchor (0,0,2,2), dw 10. bbox_xform_clip: the width grows by 62.5:
  // (-61.5 .. 63.5) -> (0 .. 63.5); without it by e^10: clamped to 1000.
  // Image 1 (same anchor, delta 0, score .6) comes after image 0.
  Node n = proposals_node(2, 1, 1, 1, 2);
  n.params.push_back(f32_param("min_size", 0));
  n.params.push_back(bool_param("bbox_xform_clip", true));
  const std::vector<float> deltas = {0, 0, 10, 0, 0, 0, 0, 0};
  const auto outs = run_proposals(n, {0.5f, 0.6f}, deltas, {0, 0, 2, 2}, {1000, 1000, 1000, 1000});
  expect_near(as<float>(outs[1]), {0, 0, 63.5, 2, 0, 0, 2, 2}, 1e-3, "clipped");
  expect_near(as<float>(outs[0]), {0.5, 0.6}, 1e-7, "scores");
  EXPECT_EQ(as<int32_t>(outs[2]), (std::vector<int32_t>{0, 1}));
  Node m = proposals_node(2, 1, 1, 1, 2);
  m.params.push_back(f32_param("min_size", 0));
  const auto outs2 = run_proposals(m, {0.5f, 0.6f}, deltas, {0, 0, 2, 2}, {1000, 1000, 1000, 1000});
  expect_near(as<float>(outs2[1]), {0, 0, 1000, 2, 0, 0, 2, 2}, 1e-3, "unclipped");
}

TEST(GenerateProposals, Refusals) {
  const Node good = proposals_node(1, 1, 2, 2, 3);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.params.clear();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'img_size_ratio' is mandatory");
  }
  {
    Node n = good;
    n.params = {ratio(16, 0)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'img_size_ratio' is [16,0]");
  }
  {
    Node n = good;
    n.params.push_back(f32_param("min_size", -1));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'min_size' is -1, expected >= 0");
  }
  {
    Node n = good;
    n.params.push_back(f32_param("spatial_scale", 0.0625f));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'spatial_scale'");
  }
  {
    Node n = good;
    n.inputs[2].dims = {2, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "rotated anchors");
  }
  {
    Node n = good;
    n.inputs[2].dims = {3, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (anchors) dims are [3,4], expected [2,4]");
  }
  {
    Node n = good;
    n.inputs[1].dims = {1, 1, 2, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (deltas) dims are [1,1,2,4], expected [1,1,2,8]");
  }
  {
    Node n = good;
    n.inputs[0].dims = {1, 2, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (scores) rank is 3");
  }
  {
    Node n = good;
    n.inputs[3].dims = {1, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[3] (image_info) dims are [1,3], expected [1,2]");
  }
  {
    Node n = good;
    n.outputs[1].dims = {3, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  }
  {
    Node n = good;
    n.outputs[2].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[2] data type is FLOAT_32");
  }
  {
    Node n = good;
    n.outputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "outputs");
  }
}

// ----------------------------------------------------------- HeatMapMaxKeyPoint

Node keypoint_node(uint32_t N, uint32_t H, uint32_t W, uint32_t K) {
  Node n;
  n.type = "HeatMapMaxKeyPoint";
  n.inputs = {f32({N, H, W, K}), f32({N, 4})};
  n.outputs = {f32({N, K}), f32({N, K, 2})};
  return n;
}

std::vector<std::vector<uint8_t>> run_keypoints(const Node& n, const std::vector<float>& maps,
                                                const std::vector<float>& boxes) {
  const auto m = bytes_of(maps), b = bytes_of(boxes);
  return run_raw_outputs(n, {&m, &b});
}

TEST(HeatMapMaxKeyPoint, QuadraticPeakRecoveredExactly) {
  // A 5x5 map sampled from a quadratic with its maximum 10 at (w 2.3, h 1.6):
  //   f = 10 - u^2 - 2 v^2 + 0.5 u v, u = w - 2.3, v = h - 1.6.
  // The best pixel is (h 2, w 2) (9.53; neighbours 9.28, 9.33, ...); central
  // differences are exact on a quadratic, so the refinement lands on
  // (2.3, 1.6) with score 10. Box (10, 20)-(60, 45): x = (2.3 + 0.5) * 50/5 +
  // 10 = 38, y = (1.6 + 0.5) * 25/5 + 20 = 30.5. Keypoint 1's map,
  // -(w - 4)^2 - h^2, peaks at the corner pixel (h 0, w 4).
  std::vector<float> maps(5 * 5 * 2);
  for (int h = 0; h < 5; ++h) {
    for (int w = 0; w < 5; ++w) {
      const double u = w - 2.3, v = h - 1.6;
      maps[(h * 5 + w) * 2] = static_cast<float>(10 - u * u - 2 * v * v + 0.5 * u * v);
      maps[(h * 5 + w) * 2 + 1] = static_cast<float>(-(w - 4) * (w - 4) - h * h);
    }
  }
  const auto outs = run_keypoints(keypoint_node(1, 5, 5, 2), maps, {10, 20, 60, 45});
  const auto scores = as<float>(outs[0]), points = as<float>(outs[1]);
  EXPECT_NEAR(scores[0], 10.0, 1e-4);
  EXPECT_NEAR(points[0], 38.0, 1e-3);
  EXPECT_NEAR(points[1], 30.5, 1e-3);
  // Keypoint 1: peak 0 at (h 0, w 4); mirrored neighbours (h -1 -> 1,
  // w 5 -> 3) make the gradient 0: no shift. x = 4.5 * 10 + 10 = 55,
  // y = 0.5 * 5 + 20 = 22.5, score 0.
  EXPECT_NEAR(scores[1], 0.0, 1e-6);
  EXPECT_NEAR(points[2], 55.0, 1e-4);
  EXPECT_NEAR(points[3], 22.5, 1e-4);
}

TEST(HeatMapMaxKeyPoint, StepLimitedTo1Point5) {
  // A 3x3 map with its maximum 0 at the centre and (rows h)
  //   -0.1 -0.1 -2 / -0.1 0 -0.9 / -2 -0.9 -0.3
  // b = (0.4, 0.4), A = [[-1, 0.9], [0.9, -1]] (det 0.19): A^-1 b = (-4, -4),
  // scaled to (-1.5, -1.5); score = 0 - b.d + d.A.d/2 with that d.
  const std::vector<float> map = {-0.1f, -0.1f, -2, -0.1f, 0, -0.9f, -2, -0.9f, -0.3f};
  const auto outs = run_keypoints(keypoint_node(1, 3, 3, 1), map, {0, 0, 30, 30});
  const double b0 = 0.4, b1 = 0.4, a00 = -1, a11 = -1, c = 0.9, dx = -1.5, dy = -1.5;
  const double want = 0 - (b0 * dx + b1 * dy) + ((a00 * dx + c * dy) * dx + (c * dx + a11 * dy) * dy) / 2;
  EXPECT_NEAR(as<float>(outs[0])[0], want, 1e-5);
  // x = (1 - 1.5 + 0.5) * 30/3 + 0 = 0, y likewise.
  EXPECT_NEAR(as<float>(outs[1])[0], 0.0, 1e-5);
  EXPECT_NEAR(as<float>(outs[1])[1], 0.0, 1e-5);
}

TEST(HeatMapMaxKeyPoint, FlatMapAndSmallBox) {
  // A constant map: the first pixel is the maximum, A = 0 is singular: no
  // shift, score the value. Box (5, 7)-(5.5, 7.2): sizes below 1 count as
  // 1: x = 0.5 * 1/4 + 5, y = 0.5 * 1/2 + 7. Non-square map (H 2, W 4).
  const auto outs = run_keypoints(keypoint_node(1, 2, 4, 1), std::vector<float>(8, 3.0f), {5, 7, 5.5f, 7.2f});
  EXPECT_FLOAT_EQ(as<float>(outs[0])[0], 3.0f);
  EXPECT_NEAR(as<float>(outs[1])[0], 5.125, 1e-5);
  EXPECT_NEAR(as<float>(outs[1])[1], 7.25, 1e-5);
}

TEST(HeatMapMaxKeyPoint, Refusals) {
  const Node good = keypoint_node(2, 4, 4, 3);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.inputs[0].dims = {2, 1, 4, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (heatmaps) dims are [2,1,4,3]", ">= 2");
  }
  {
    Node n = good;
    n.inputs[0].dims = {2, 4, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (heatmaps) rank is 3");
  }
  {
    Node n = good;
    n.inputs[1].dims = {3, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (boxes) dims are [3,4], expected [2,4]");
  }
  {
    Node n = good;
    n.outputs[0].dims = {2, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
  {
    Node n = good;
    n.outputs[1].dims = {2, 3, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  }
  {
    Node n = good;
    n.params = {u32_param("layout", 0)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'layout'");
  }
  {
    Node n = good;
    n.inputs[1].dtype = dtype::kInt32;
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[1] (boxes) data type is INT_32");
  }
  {
    Node n = good;
    n.outputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "outputs");
  }
}

}  // namespace
}  // namespace opstest
