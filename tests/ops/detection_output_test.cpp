// DetectionOutput (src/ops/reference/detection_output.cpp): TFLite-style box
// decoding checked against the formula, FAST and REGULAR selections worked
// by hand, the background options, per-batch anchors, padding, and every
// refusal.
#include <cmath>
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

Param f32_tensor_param(std::string name, std::vector<uint32_t> dims, std::vector<float> values) {
  Param p;
  p.name = std::move(name);
  p.is_tensor = true;
  p.dtype = dtype::kFloat32;
  p.dims = std::move(dims);
  p.data.resize(values.size() * sizeof(float));
  std::memcpy(p.data.data(), values.data(), p.data.size());
  return p;
}
Param i32_param(std::string name, int32_t v) { return scalar_param(std::move(name), dtype::kInt32, v); }

// Four anchors (ycenter, xcenter, h, w); with zero encodings and scaling
// factors 1 each decodes to its own corners (ymin, xmin, ymax, xmax):
//   a0 [0,0,1,1]; a1 [0,0.1,1,1.1] (IoU with a0 0.9/1.1 = 0.818);
//   a2 [0,2,1,3] disjoint from all; a3 [0,0,0.5,0.5] (0.25 with a0).
const std::vector<float> kAnchors = {0.5f, 0.5f, 1, 1, 0.5f, 0.6f, 1, 1, 0.5f, 2.5f, 1, 1, 0.25f, 0.25f, 0.5f, 0.5f};
const std::vector<float> kZeroDeltas(16, 0.0f);
// Scores [anchor][background 0, class 1, class 2].
const std::vector<float> kScores = {0.99f, 0.6f, 0.3f,   // a0
                                    0.0f,  0.2f, 0.8f,   // a1
                                    0.5f,  0.4f, 0.4f,   // a2
                                    0.0f,  0.1f, 0.05f};  // a3

const std::vector<float> kBoxA0 = {0, 0, 1, 1}, kBoxA1 = {0, 0.1f, 1, 1.1f}, kBoxA2 = {0, 2, 1, 3};

Node det_node(uint32_t max_det, uint32_t nms_type) {
  Node n;
  n.type = "DetectionOutput";
  n.inputs = {f32({1, 4, 3}), f32({1, 4, 4}), f32({4, 4})};
  n.outputs = {f32({1, max_det}), f32({1, max_det, 4}), typed(dtype::kInt32, {1, max_det}),
               typed(dtype::kUint32, {1})};
  n.params = {f32_tensor_param("delta_scaling_factors", {4}, {1, 1, 1, 1}), f32_param("confidence_threshold", 0.4f),
              f32_param("iou_threshold", 0.5f), u32_param("nms_type", nms_type)};
  return n;
}

struct Result {
  std::vector<float> scores, boxes;
  std::vector<int32_t> classes;
  std::vector<uint32_t> count;
};

Result run_det(const Node& n, const std::vector<float>& scores = kScores,
               const std::vector<float>& deltas = kZeroDeltas, const std::vector<float>& anchors = kAnchors) {
  const auto s = bytes_of(scores), d = bytes_of(deltas), a = bytes_of(anchors);
  const auto got = run_raw_outputs(n, {&s, &d, &a});
  return {as<float>(got[0]), as<float>(got[1]), as<int32_t>(got[2]), as<uint32_t>(got[3])};
}

std::vector<float> rows(std::initializer_list<std::vector<float>> boxes, size_t pad_rows) {
  std::vector<float> v;
  for (const auto& b : boxes) v.insert(v.end(), b.begin(), b.end());
  v.insert(v.end(), pad_rows * 4, 0.0f);
  return v;
}

// Decoded corners come from float centre-size arithmetic (0.6f - 0.5f is
// not exactly 0.1f): compared within 1e-6.
void expect_boxes(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(DetectionOutput, DecodesWithTheScalingFactors) {
  // One anchor (yc 0.5, xc 0.25, h 0.4, w 0.2), encoding (dy 1, dx -2,
  // dh 5 ln2, dw -5 ln2), factors (10, 10, 5, 5):
  //   yc = 1/10*0.4 + 0.5 = 0.54, xc = -2/10*0.2 + 0.25 = 0.21,
  //   h = exp(ln2)*0.4 = 0.8, w = exp(-ln2)*0.2 = 0.1
  //   box (0.14, 0.16, 0.94, 0.26). Class 1 (0.7) beats the background's 0.1.
  Node n;
  n.type = "DetectionOutput";
  n.inputs = {f32({1, 1, 2}), f32({1, 1, 4}), f32({1, 1, 4})};
  n.outputs = {f32({1, 2}), f32({1, 2, 4}), typed(dtype::kInt32, {1, 2}), typed(dtype::kUint32, {1})};
  n.params = {f32_tensor_param("delta_scaling_factors", {4}, {10, 10, 5, 5}), f32_param("confidence_threshold", 0.5f),
              f32_param("iou_threshold", 0.5f)};
  const float ln2 = std::log(2.0f);
  const Result r = run_det(n, {0.1f, 0.7f}, {1, -2, 5 * ln2, -5 * ln2}, {0.5f, 0.25f, 0.4f, 0.2f});
  const double yc = 1.0 / 10 * 0.4 + 0.5, xc = -2.0 / 10 * 0.2 + 0.25;
  const double h = std::exp(5 * std::log(2.0) / 5) * 0.4, w = std::exp(-5 * std::log(2.0) / 5) * 0.2;
  const std::vector<double> want = {yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2, 0, 0, 0, 0};
  ASSERT_EQ(r.boxes.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(r.boxes[i], want[i], 1e-6) << i;
  EXPECT_EQ(r.scores, (std::vector<float>{0.7f, 0}));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(r.count, std::vector<uint32_t>{1});
}

TEST(DetectionOutput, FastIsClassAgnosticOverEachAnchorsBestClass) {
  // Best non-background class per anchor: a0 c1 0.6, a1 c2 0.8, a2 c1 0.4
  // (tie with c2: the lower class; 0.4 >= the threshold 0.4), a3 c1 0.1
  // (below). One NMS: a1 kept, a0 dropped (0.818 > 0.5), a2 kept.
  const Result r = run_det(det_node(3, 0));
  EXPECT_EQ(r.scores, (std::vector<float>{0.8f, 0.4f, 0}));
  expect_boxes(r.boxes, rows({kBoxA1, kBoxA2}, 1));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{2, 1, 0}));
  EXPECT_EQ(r.count, std::vector<uint32_t>{2});
}

TEST(DetectionOutput, RegularIsPerClassThenMergedByScore) {
  // class 1: a0 0.6 kept, a2 0.4 kept (disjoint); class 2: a1 0.8 kept, a2
  // 0.4 kept, a0 0.3 below. The background column takes no part. Merged:
  // (a1,c2,0.8) (a0,c1,0.6) (a2,c1,0.4) (a2,c2,0.4) (tie: lower class first).
  Result r = run_det(det_node(5, 1));
  EXPECT_EQ(r.scores, (std::vector<float>{0.8f, 0.6f, 0.4f, 0.4f, 0}));
  expect_boxes(r.boxes, rows({kBoxA1, kBoxA0, kBoxA2, kBoxA2}, 1));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{2, 1, 1, 2, 0}));
  EXPECT_EQ(r.count, std::vector<uint32_t>{4});
  // max_det 3 keeps the best three.
  r = run_det(det_node(3, 1));
  EXPECT_EQ(r.scores, (std::vector<float>{0.8f, 0.6f, 0.4f}));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{2, 1, 1}));
  EXPECT_EQ(r.count, std::vector<uint32_t>{3});
  // detection_limit 1: one per class, (a1,c2) and (a0,c1).
  Node n = det_node(3, 1);
  n.params.push_back(i32_param("detection_limit", 1));
  r = run_det(n);
  EXPECT_EQ(r.scores, (std::vector<float>{0.8f, 0.6f, 0}));
  expect_boxes(r.boxes, rows({kBoxA1, kBoxA0}, 1));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{2, 1, 0}));
  EXPECT_EQ(r.count, std::vector<uint32_t>{2});
}

TEST(DetectionOutput, BackgroundInNmsAndInTheOutput) {
  // REGULAR with use_bg_in_nms: background kept a0 0.99, a2 0.5 (a1, a3 0 below).
  Node n = det_node(4, 1);
  n.params.push_back(bool_param("use_bg_in_nms", true));
  Result r = run_det(n);  // output_background defaults to true
  EXPECT_EQ(r.scores, (std::vector<float>{0.99f, 0.8f, 0.6f, 0.5f}));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{0, 2, 1, 0}));
  expect_boxes(r.boxes, rows({kBoxA0, kBoxA1, kBoxA0, kBoxA2}, 0));
  n.params.push_back(bool_param("output_background", false));
  r = run_det(n);  // the background picks dropped: the plain REGULAR result
  EXPECT_EQ(r.scores, (std::vector<float>{0.8f, 0.6f, 0.4f, 0.4f}));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{2, 1, 1, 2}));
  EXPECT_EQ(r.count, std::vector<uint32_t>{4});

  // FAST with use_bg_in_nms: best per anchor a0 bg 0.99, a1 c2 0.8, a2 bg 0.5;
  // a0 suppresses a1 (0.818); a2 kept.
  Node f = det_node(3, 0);
  f.params.push_back(bool_param("use_bg_in_nms", true));
  r = run_det(f);
  EXPECT_EQ(r.scores, (std::vector<float>{0.99f, 0.5f, 0}));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{0, 0, 0}));
  expect_boxes(r.boxes, rows({kBoxA0, kBoxA2}, 1));
  EXPECT_EQ(r.count, std::vector<uint32_t>{2});
  // ... and without output_background nothing is left (a1 was suppressed).
  f.params.push_back(bool_param("output_background", false));
  r = run_det(f);
  EXPECT_EQ(r.scores, (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(r.count, std::vector<uint32_t>{0});

  // No background class (index out of range): every column competes; FAST
  // best a0 0.99 (class 0) as above.
  Node none = det_node(3, 0);
  none.params.push_back(i32_param("background_class_idx", -1));
  r = run_det(none);
  EXPECT_EQ(r.scores, (std::vector<float>{0.99f, 0.5f, 0}));
  EXPECT_EQ(r.classes, (std::vector<int32_t>{0, 0, 0}));
}

TEST(DetectionOutput, BatchesWithTheirOwnAnchorsFloatClassesIntCount) {
  // batch 2, one anchor each, one class and no background (index 5): batch 0
  // anchor (0.5,0.5,1,1) -> [0,0,1,1] score 0.9; batch 1 anchor
  // (1.5,2.5,1,2) -> [1,1.5,2,3.5] score 0.7 (deltas 0).
  Node n;
  n.type = "DetectionOutput";
  n.inputs = {f32({2, 1, 1}), f32({2, 1, 4}), f32({2, 1, 4})};
  n.outputs = {f32({2, 2}), f32({2, 2, 4}), f32({2, 2}), typed(dtype::kInt32, {2})};
  n.params = {f32_tensor_param("delta_scaling_factors", {4}, {10, 10, 5, 5}), f32_param("confidence_threshold", 0.0f),
              f32_param("iou_threshold", 0.5f), u32_param("nms_type", 1), u32_param("background_class_idx", 5)};
  const auto s = bytes_of(std::vector<float>{0.9f, 0.7f}), d = bytes_of(std::vector<float>(8, 0.0f));
  const auto a = bytes_of(std::vector<float>{0.5f, 0.5f, 1, 1, 1.5f, 2.5f, 1, 2});
  const auto got = run_raw_outputs(n, {&s, &d, &a});
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0.9f, 0, 0.7f, 0}));
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{0, 0, 1, 1, 0, 0, 0, 0, 1, 1.5f, 2, 3.5f, 0, 0, 0, 0}));
  EXPECT_EQ(as<float>(got[2]), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(as<int32_t>(got[3]), (std::vector<int32_t>{1, 1}));
}

TEST(DetectionOutput, NanScoresAreNeverCandidates) {
  std::vector<float> s = kScores;
  s[5] = std::numeric_limits<float>::quiet_NaN();  // a1 class 2
  // FAST: a1's best is now c1 0.2 (below); a0 c1 0.6 kept, a2 c1 0.4 kept.
  const Result r = run_det(det_node(3, 0), s);
  EXPECT_EQ(r.scores, (std::vector<float>{0.6f, 0.4f, 0}));
  expect_boxes(r.boxes, rows({kBoxA0, kBoxA2}, 1));
  EXPECT_EQ(r.count, std::vector<uint32_t>{2});
}

TEST(DetectionOutput, Refusals) {
  const Node good = det_node(3, 1);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  auto with_param = [&](Param p) {
    Node n = good;
    for (auto& q : n.params) {
      if (q.name == p.name) {
        q = p;
        return n;
      }
    }
    n.params.push_back(std::move(p));
    return n;
  };
  auto without_param = [&](const std::string& name) {
    Node n = good;
    std::erase_if(n.params, [&](const Param& q) { return q.name == name; });
    return n;
  };
  {
    Node n = good;
    n.inputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "2");
  }
  {
    Node n = good;
    n.outputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "3");
  }
  {
    Node n = good;
    n.inputs[0].dims = {4, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (class scores)");
  }
  {
    Node n = good;
    n.inputs[1].dims = {1, 4, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (box encodings) dims are [1,4,5]");
  }
  {
    Node n = good;
    n.inputs[2].dims = {3, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (anchors) dims are [3,4]");
  }
  {
    Node n = good;
    n.inputs[2].dims = {2, 4, 4};  // batch is 1
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (anchors) dims are [2,4,4]");
  }
  {
    Node n = good;
    n.inputs[0].dtype = dtype::kInt32;
    const Status s = n.prepare();
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message.find("in[0]"), std::string::npos) << s.message;
  }
  {
    Node n = good;
    n.outputs[2].dtype = dtype::kInt8;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[2] data type is INT_8");
  }
  {
    Node n = good;
    n.outputs[3].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[3] data type is FLOAT_32");
  }
  {
    Node n = good;
    n.outputs[0].dims = {2, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dims are [2,3]");
  }
  {
    Node n = good;
    n.outputs[1].dims = {1, 3, 5};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  }
  {
    Node n = good;
    n.outputs[2].dims = {1, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[2]");
  }
  {
    Node n = good;
    n.outputs[3].dims = {2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[3]");
  }
  EXPECT_STATUS(with_param(f32_param("keep_top_k", 3)).prepare(), StatusCode::kInvalidArgument, "keep_top_k");
  EXPECT_STATUS(without_param("delta_scaling_factors").prepare(), StatusCode::kInvalidArgument,
                "'delta_scaling_factors' is missing");
  EXPECT_STATUS(with_param(f32_tensor_param("delta_scaling_factors", {3}, {1, 1, 1})).prepare(),
                StatusCode::kInvalidArgument, "'delta_scaling_factors' must be a FLOAT_32 tensor of shape [4]");
  EXPECT_STATUS(with_param(f32_tensor_param("delta_scaling_factors", {4}, {1, 0, 1, 1})).prepare(),
                StatusCode::kInvalidArgument, "'delta_scaling_factors' element 1 is 0");
  EXPECT_STATUS(without_param("confidence_threshold").prepare(), StatusCode::kInvalidArgument, "confidence_threshold");
  EXPECT_STATUS(with_param(f32_param("confidence_threshold", std::nanf(""))).prepare(), StatusCode::kInvalidArgument,
                "'confidence_threshold' is nan");
  EXPECT_STATUS(without_param("iou_threshold").prepare(), StatusCode::kInvalidArgument, "iou_threshold");
  EXPECT_STATUS(with_param(f32_param("iou_threshold", 1.5f)).prepare(), StatusCode::kInvalidArgument,
                "'iou_threshold' is 1.5");
  EXPECT_STATUS(with_param(u32_param("nms_type", 2)).prepare(), StatusCode::kInvalidArgument, "'nms_type' is 2");
  EXPECT_STATUS(with_param(bool_param("share_location", false)).prepare(), StatusCode::kUnsupported,
                "'share_location' is false");
  EXPECT_STATUS(with_param(f32_param("nms_eta", 0.0f)).prepare(), StatusCode::kInvalidArgument, "'nms_eta' is 0");
  EXPECT_STATUS(with_param(f32_param("nms_eta", 0.5f)).prepare(), StatusCode::kUnsupported, "'nms_eta' is 0.5");
  {
    Node n = det_node(3, 0);
    n.params.push_back(i32_param("detection_limit", 2));
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "'detection_limit' is 2", "FAST");
    n.params.back() = i32_param("detection_limit", 1);
    EXPECT_TRUE(n.prepare().ok()) << n.prepare().message;
  }
  EXPECT_STATUS(with_param(f32_param("background_class_idx", 0.5f)).prepare(), StatusCode::kInvalidArgument,
                "'background_class_idx' is 0.5");
}

}  // namespace
}  // namespace opstest
