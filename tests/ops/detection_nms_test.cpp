// NonMaxSuppression (src/ops/reference/non_max_suppression.cpp): hand-worked
// selections (IoUs worked out in the comments), the padding and count
// outputs, ties, and every refusal.
#include "test_util.h"

namespace opstest {
namespace {

// Boxes as (y1, x1, y2, x2). IoUs, worked by hand:
//   b0 [0,0,1,1]        area 1
//   b1 [0,0.1,1,1.1]    area 1; with b0: inter 0.9, union 1.1 -> 0.818
//   b2 [0,2,1,3]        disjoint from all others
//   b3 [1,1,0,0]        b0 with its corners swapped: IoU with b0 = 1, with b1 0.818
//   b4 [0,0,0.5,0.5]    area 0.25; with b0 and b3: 0.25; with b1: inter
//                       0.5*0.4 = 0.2, union 1.05 -> 0.19
const std::vector<float> kBoxes = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3, 1, 1, 0, 0, 0, 0, 0.5f, 0.5f};

Node nms_node(uint32_t batch, uint32_t classes, uint32_t boxes, uint32_t max_boxes, std::vector<uint32_t> count_dims,
              float iou = 0.5f, float score = 0.55f) {
  Node n;
  n.type = "NonMaxSuppression";
  n.inputs = {f32({batch, boxes, 4}), f32({batch, classes, boxes})};
  n.outputs = {typed(dtype::kInt32, {batch * classes * max_boxes, 3})};
  if (!count_dims.empty()) n.outputs.push_back(typed(dtype::kInt32, count_dims));
  n.params = {f32_param("iou_threshold", iou), f32_param("score_threshold", score),
              u32_param("max_boxes_selected", max_boxes)};
  return n;
}

std::vector<std::vector<int32_t>> run_nms(const Node& n, const std::vector<float>& boxes,
                                          const std::vector<float>& scores) {
  const auto b = bytes_of(boxes), s = bytes_of(scores);
  std::vector<std::vector<int32_t>> outs;
  for (const auto& o : run_raw_outputs(n, {&b, &s})) outs.push_back(as<int32_t>(o));
  return outs;
}

TEST(NonMaxSuppression, HandWorkedTwoClasses) {
  // class 0 scores 0.9 0.8 0.7 0.6 0.5, iou 0.5, score > 0.55, at most 3:
  //   b0 kept; b1 (0.818 with b0) dropped; b2 kept; b3 (1.0 with b0)
  //   dropped; b4 scores 0.5, not above 0.55: stop.       -> b0, b2
  // class 1 scores 0.1 0.95 0.2 0.3 0.96:
  //   b4 kept; b1 (0.19 with b4) kept; b3 scores 0.3, not above 0.55:
  //   stop.                                                 -> b4, b1
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.6f, 0.5f, 0.1f, 0.95f, 0.2f, 0.3f, 0.96f};
  const auto got = run_nms(nms_node(1, 2, 5, 3, {1}), kBoxes, scores);
  ASSERT_EQ(got.size(), 2u);
  const std::vector<int32_t> want = {0, 0, 0, 0, 0, 2, 0, 1, 4, 0, 1, 1, /* padding */ 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(got[0], want);
  EXPECT_EQ(got[1], std::vector<int32_t>{4});
}

TEST(NonMaxSuppression, MaxBoxesAndThresholds) {
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.6f, 0.5f, 0.1f, 0.95f, 0.2f, 0.3f, 0.96f};
  {
    // At most 1 per class: b0 and b4.
    const auto got = run_nms(nms_node(1, 2, 5, 1, {1}), kBoxes, scores);
    EXPECT_EQ(got[0], (std::vector<int32_t>{0, 0, 0, 0, 1, 4}));
    EXPECT_EQ(got[1], std::vector<int32_t>{2});
  }
  {
    // score_threshold 0.15 lets class 1 go on past b1: b3 (0.818 with b1)
    // dropped, b2 (0.2) kept, b0 (0.1) not above 0.15.
    const auto got = run_nms(nms_node(1, 2, 5, 4, {1}, 0.5f, 0.15f), kBoxes, scores);
    EXPECT_EQ(got[0], (std::vector<int32_t>{0, 0, 0, 0, 0, 2, 0, 0, 4, 0, 1, 4, 0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(got[1], std::vector<int32_t>{6});
  }
  {
    // iou_threshold 0.9 keeps b1 (0.818) in class 0; b3 (1.0 with b0) still
    // goes. score_threshold 0: class 0 then reaches b4 (0.25 with b0, 0.19
    // with b1, 0 with b2) but the limit of 3 is already met.
    const auto got = run_nms(nms_node(1, 1, 5, 3, {1}, 0.9f, 0.0f), kBoxes, {0.9f, 0.8f, 0.7f, 0.6f, 0.5f});
    EXPECT_EQ(got[0], (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 0, 0, 2}));
    EXPECT_EQ(got[1], std::vector<int32_t>{3});
  }
}

TEST(NonMaxSuppression, TiesTakeTheLowerBoxFirst) {
  // Two disjoint boxes with equal scores: box 0 is listed before box 1.
  const std::vector<float> boxes = {0, 2, 1, 3, 0, 0, 1, 1};
  const auto got = run_nms(nms_node(1, 1, 2, 2, {}), boxes, {0.7f, 0.7f});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<int32_t>{0, 0, 0, 0, 0, 1}));
}

TEST(NonMaxSuppression, BatchesAndPerBatchCounts) {
  // Batch 0: b0 and b1 (the same box) -> b0 only. Batch 1: both disjoint -> 2.
  const std::vector<float> boxes = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 2, 1, 3};
  const auto got = run_nms(nms_node(2, 1, 2, 2, {2}), boxes, {0.6f, 0.9f, 0.6f, 0.9f});
  ASSERT_EQ(got.size(), 2u);
  // Batch 0 keeps b1 (score 0.9); batch 1 keeps b1 then b0.
  EXPECT_EQ(got[0], (std::vector<int32_t>{0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(got[1], (std::vector<int32_t>{1, 2}));
}

TEST(NonMaxSuppression, Refusals) {
  const Node good = nms_node(1, 2, 5, 3, {1});
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.params[2] = u32_param("max_boxes_selected", 0);
    n.outputs[0].dims = {0, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'max_boxes_selected' is 0");
  }
  {
    Node n = good;
    n.params.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "max_boxes_selected");
  }
  {
    Node n = good;
    n.params.push_back(u32_param("center_point_box", 1));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "center_point_box");
  }
  {
    Node n = good;
    n.outputs[0].dims = {5, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
  {
    Node n = good;
    n.outputs[0].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] data type is FLOAT_32", "INT_32 or UINT_32");
  }
  {
    Node n = good;
    n.outputs[1].dims = {3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1] dims are [3]");
  }
  {
    Node n = good;
    n.inputs[0].dims = {1, 5, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (boxes) dim 2 is 5");
  }
  {
    Node n = good;
    n.inputs[1].dims = {1, 2, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (scores) dims are [1,2,4]");
  }
  {
    Node n = good;
    n.inputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "1 inputs");
  }
  {
    Node n = good;
    n.inputs[1].dtype = dtype::kInt32;
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[1] (scores) data type is INT_32");
  }
}

}  // namespace
}  // namespace opstest
