// MultiClassNms (src/ops/reference/multi_class_nms.cpp): a hand-worked
// two-class selection merged by score, features carried along, padding,
// and every refusal.
#include "test_util.h"

namespace opstest {
namespace {

// The boxes of detection_nms_test.cpp (y1, x1, y2, x2): b0 [0,0,1,1];
// b1 [0,0.1,1,1.1] (IoU 0.818 with b0); b2 [0,2,1,3] disjoint; b3 = b0 with
// swapped corners; b4 [0,0,0.5,0.5] (0.25 with b0, 0.19 with b1).
const std::vector<float> kBoxes = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3, 1, 1, 0, 0, 0, 0, 0.5f, 0.5f};
// [1, 5 boxes, 2 classes]: class 0 0.9 0.8 0.7 0.6 0.5, class 1 0.1 0.95 0.2 0.3 0.96.
const std::vector<float> kScores = {0.9f, 0.1f, 0.8f, 0.95f, 0.7f, 0.2f, 0.6f, 0.3f, 0.5f, 0.96f};

Node mcnms_node(uint32_t max_det) {
  Node n;
  n.type = "MultiClassNms";
  n.inputs = {f32({1, 5, 4}), f32({1, 5, 2}), typed(dtype::kInt32, {1, 5}), f32({1, 5, 2})};
  n.outputs = {f32({1, max_det, 4}), f32({1, max_det}), typed(dtype::kInt32, {1, max_det}),
               typed(dtype::kUint32, {1}), typed(dtype::kInt32, {1, max_det}), f32({1, max_det, 2})};
  n.params = {f32_param("iou_threshold", 0.5f), f32_param("score_threshold", 0.55f)};
  return n;
}

std::vector<std::vector<uint8_t>> run_mcnms(const Node& n) {
  const auto b = bytes_of(kBoxes), s = bytes_of(kScores);
  const auto ids = bytes_of(std::vector<int32_t>{10, 11, 12, 13, 14});
  const auto feat = bytes_of(std::vector<float>{0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4.5f});
  return run_raw_outputs(n, {&b, &s, &ids, &feat});
}

TEST(MultiClassNms, HandWorkedMergedByScore) {
  // class 0 (score > 0.55, IoU <= 0.5): b0 kept, b1 dropped (0.818), b2 kept,
  //   b3 dropped (1.0), b4 below the threshold.
  // class 1: b4 (0.96) kept, b1 (0.95; 0.19 with b4) kept, the rest below.
  // Merged by score: (b4, c1, 0.96), (b1, c1, 0.95), (b0, c0, 0.9), (b2, c0, 0.7);
  // max_det 3 keeps the first three.
  const auto got = run_mcnms(mcnms_node(3));
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0, 0, 0.5f, 0.5f, 0, 0.1f, 1, 1.1f, 0, 0, 1, 1}));
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{0.96f, 0.95f, 0.9f}));
  EXPECT_EQ(as<int32_t>(got[2]), (std::vector<int32_t>{1, 1, 0}));
  EXPECT_EQ(as<uint32_t>(got[3]), std::vector<uint32_t>{3});
  EXPECT_EQ(as<int32_t>(got[4]), (std::vector<int32_t>{14, 11, 10}));
  EXPECT_EQ(as<float>(got[5]), (std::vector<float>{4, 4.5f, 1, 1.5f, 0, 0.5f}));
}

TEST(MultiClassNms, PadsPastTheKeptBoxes) {
  // max_det 6: the four kept, then two rows of 0s; count 4.
  const auto got = run_mcnms(mcnms_node(6));
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{0.96f, 0.95f, 0.9f, 0.7f, 0, 0}));
  EXPECT_EQ(as<int32_t>(got[2]), (std::vector<int32_t>{1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(as<uint32_t>(got[3]), std::vector<uint32_t>{4});
  EXPECT_EQ(as<int32_t>(got[4]), (std::vector<int32_t>{14, 11, 10, 12, 0, 0}));
  const std::vector<float> boxes = as<float>(got[0]);
  EXPECT_EQ(std::vector<float>(boxes.begin() + 12, boxes.end()), (std::vector<float>{0, 2, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(MultiClassNms, Refusals) {
  const Node good = mcnms_node(3);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.params.push_back(f32_param("soft_nms_sigma", 0.5f));
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "'soft_nms_sigma' is 0.5");
  }
  {
    Node n = good;
    n.params.push_back(u32_param("max_total_detections", 3));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "max_total_detections");
  }
  {
    Node n = good;
    n.outputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "5 outputs", "expected 6");
  }
  {
    Node n = good;
    n.inputs[1].dims = {1, 4, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (scores) dims are [1,4,2]");
  }
  {
    Node n = good;
    n.outputs[0].dims = {1, 3, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dims are [1,3,5]");
  }
  {
    Node n = good;
    n.outputs[1].dims = {1, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  }
  {
    Node n = good;
    n.outputs[2].dtype = dtype::kUint32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[2] data type is UINT_32", "expected INT_32");
  }
  {
    Node n = good;
    n.outputs[4].dtype = dtype::kUint32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[4] data type is UINT_32", "expected INT_32");
  }
  {
    Node n = good;
    n.inputs[2].dims = {1, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (feature) dims are [1,4]");
  }
  {
    Node n = good;
    n.outputs[5].dims = {1, 3, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[5]");
  }
}

}  // namespace
}  // namespace opstest
