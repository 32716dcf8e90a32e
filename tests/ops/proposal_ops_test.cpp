// The proposal family (src/ops/reference/proposal_group.cpp): CombinedNms,
// CollectRpnProposals, DistributeFpnProposals, Correlation1D and
// ExtractGlimpse. Expected values are worked by hand in the comments, or
// computed by a formula (or a plain brute-force selection) written here;
// every rule of each prepare is broken once and must be refused with a
// message.
#include <algorithm>
#include <cmath>
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

// ---------------------------------------------------------------- CombinedNms

// Boxes (y1, x1, y2, x2): b0 [0,0,1,1]; b1 [0,0.1,1,1.1] (IoU 0.818 with
// b0); b2 [0,2,1,3] disjoint from both; b3 = b0 with swapped corners;
// b4 [0,0,0.5,0.5] (IoU 0.25 with b0, 0.19 with b1).
const std::vector<float> kBoxes = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3, 1, 1, 0, 0, 0, 0, 0.5f, 0.5f};
// [1, 5 boxes, 2 classes]: class 0 0.9 0.8 0.7 0.6 0.5, class 1 0.1 0.95 0.2 0.3 0.96.
const std::vector<float> kScores = {0.9f, 0.1f, 0.8f, 0.95f, 0.7f, 0.2f, 0.6f, 0.3f, 0.5f, 0.96f};

Node cnms_node(uint32_t per_class, uint32_t total, uint32_t num_det, uint32_t class_dt = dtype::kInt32) {
  Node n;
  n.type = "CombinedNms";
  n.inputs = {f32({1, 5, 1, 4}), f32({1, 5, 2})};
  n.outputs = {f32({1, num_det, 4}), f32({1, num_det}), typed(class_dt, {1, num_det}), typed(dtype::kInt32, {1})};
  n.params = {u32_param("max_boxes_per_class", per_class), u32_param("max_total_boxes", total),
              f32_param("iou_threshold", 0.5f), f32_param("score_threshold", 0.55f)};
  return n;
}

std::vector<std::vector<uint8_t>> run_cnms(const Node& n, const std::vector<float>& boxes = kBoxes,
                                           const std::vector<float>& scores = kScores) {
  const auto b = bytes_of(boxes), s = bytes_of(scores);
  return run_raw_outputs(n, {&b, &s});
}

TEST(CombinedNms, PerClassLimit) {
  // max_boxes_per_class 1: class 0 keeps only b0 (0.9), class 1 only b4
  // (0.96). Merged by score: (b4, c1, 0.96), (b0, c0, 0.9); D =
  // max_total_boxes = 4 rows, two of them padding; valid 2.
  const auto got = run_cnms(cnms_node(1, 4, 4));
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0, 0, 0.5f, 0.5f, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{0.96f, 0.9f, 0, 0}));
  EXPECT_EQ(as<int32_t>(got[2]), (std::vector<int32_t>{1, 0, 0, 0}));
  EXPECT_EQ(as<int32_t>(got[3]), std::vector<int32_t>{2});
}

TEST(CombinedNms, ClipBoxesAndTotalLimit) {
  // No per-class limit in effect (5): class 0 keeps b0 (0.9) and b2 (0.7)
  // (b1 0.818 and b3 1.0 with b0 dropped, b4 below 0.55); class 1 keeps b4
  // (0.96) and b1 (0.95). Merged: b4 c1, b1 c1, b0 c0, b2 c0; max_total 3
  // keeps three. clip_boxes (default on) clamps b1's x2 1.1 to 1.
  Node n = cnms_node(5, 3, 3);
  auto got = run_cnms(n);
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0, 0, 0.5f, 0.5f, 0, 0.1f, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{0.96f, 0.95f, 0.9f}));
  EXPECT_EQ(as<int32_t>(got[2]), (std::vector<int32_t>{1, 1, 0}));
  EXPECT_EQ(as<int32_t>(got[3]), std::vector<int32_t>{3});
  // Four rows, clip_boxes off: b2 [0,2,1,3] comes out as given, b1 too.
  n = cnms_node(5, 4, 4);
  n.params.push_back(bool_param("clip_boxes", false));
  got = run_cnms(n);
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0, 0, 0.5f, 0.5f, 0, 0.1f, 1, 1.1f, 0, 0, 1, 1, 0, 2, 1, 3}));
  // clip_boxes on: b2 becomes [0,1,1,1].
  n.params.back() = bool_param("clip_boxes", true);
  got = run_cnms(n);
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0, 0, 0.5f, 0.5f, 0, 0.1f, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(as<int32_t>(got[3]), std::vector<int32_t>{4});
}

TEST(CombinedNms, PadPerClassSizesTheOutput) {
  // pad_per_class: D = min(max_boxes_per_class * num_classes, max_total) =
  // min(1 * 2, 5) = 2 rows, both used (b4 c1, b0 c0).
  Node n = cnms_node(1, 5, 2);
  n.params.push_back(bool_param("pad_per_class", true));
  const auto got = run_cnms(n);
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{0.96f, 0.9f}));
  EXPECT_EQ(as<int32_t>(got[2]), (std::vector<int32_t>{1, 0}));
  // Without pad_per_class the same node must have D = max_total = 5.
  Node wrong = cnms_node(1, 5, 2);
  EXPECT_STATUS(wrong.prepare(), StatusCode::kInvalidArgument, "out[0] dims are [1,2,4]", "expected [1,5,4]");
}

TEST(CombinedNms, ClassSpecificBoxesAndFloatClasses) {
  // q = num_classes = 2: box 0 is [0,0,1,1] for both classes; box 1 is
  // [0,0,1,1] for class 0 (IoU 1 with box 0: dropped) and [0,2,1,3] for
  // class 1 (disjoint: kept). Scores [box][class] = (0.9, 0.8), (0.7, 0.6).
  // Merged: (0.9, c0, [0,0,1,1]), (0.8, c1, [0,0,1,1]), (0.6, c1, [0,2,1,3]).
  // Classes as FLOAT_32 (TensorFlow's type), clip off, one padding row.
  Node n;
  n.type = "CombinedNms";
  n.inputs = {f32({1, 2, 2, 4}), f32({1, 2, 2})};
  n.outputs = {f32({1, 4, 4}), f32({1, 4}), f32({1, 4}), typed(dtype::kUint32, {1})};
  n.params = {u32_param("max_boxes_per_class", 3), u32_param("max_total_boxes", 4), bool_param("clip_boxes", false)};
  const std::vector<float> boxes = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 2, 1, 3};
  const auto got = run_cnms(n, boxes, {0.9f, 0.8f, 0.7f, 0.6f});
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0, 0, 1, 1, 0, 0, 1, 1, 0, 2, 1, 3, 0, 0, 0, 0}));
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{0.9f, 0.8f, 0.6f, 0}));
  EXPECT_EQ(as<float>(got[2]), (std::vector<float>{0, 1, 1, 0}));
  EXPECT_EQ(as<uint32_t>(got[3]), std::vector<uint32_t>{3});
}

TEST(CombinedNms, DefaultsAndTies) {
  // Defaults: iou_threshold 0.5, score_threshold -inf (every score,
  // negative ones too). Equal scores in two classes: the lower class
  // first. Boxes [0,0,1,1], [0,0.2,1,1.2] (IoU 0.8/1.2 = 0.667 >
  // 0.5), [0,5,1,6]; scores [box][class] (-1, -1), (-2, 3), (-3, -1).
  // class 0: b0 (-1) kept, b1 (-2) dropped, b2 (-3) kept.
  // class 1: b1 (3) kept, b0 (-1) dropped (0.667), b2 (-1) kept.
  // Merged: (3, c1, b1), (-1, c0, b0), (-1, c1, b2), (-3, c0, b2).
  Node n;
  n.type = "CombinedNms";
  n.inputs = {f32({1, 3, 4}), f32({1, 3, 2})};
  n.outputs = {f32({1, 4, 4}), f32({1, 4}), typed(dtype::kInt32, {1, 4}), typed(dtype::kInt32, {1})};
  n.params = {u32_param("max_boxes_per_class", 3), u32_param("max_total_boxes", 4), bool_param("clip_boxes", false)};
  const auto got = run_cnms(n, {0, 0, 1, 1, 0, 0.2f, 1, 1.2f, 0, 5, 1, 6}, {-1, -1, -2, 3, -3, -1});
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{3, -1, -1, -3}));
  EXPECT_EQ(as<int32_t>(got[2]), (std::vector<int32_t>{1, 0, 1, 0}));
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0, 0.2f, 1, 1.2f, 0, 0, 1, 1, 0, 5, 1, 6, 0, 5, 1, 6}));
  EXPECT_EQ(as<int32_t>(got[3]), std::vector<int32_t>{4});
}

// A plain greedy selection written independently of the kernel: for each
// class, repeatedly take the highest remaining score (lowest index on ties)
// above the threshold, drop every remaining box overlapping it by IoU >
// threshold; then all picks by score, class, box.
struct RefPick {
  float score;
  int cls, box;
};
double ref_iou(const float* a, const float* b) {
  const double ay0 = std::min(a[0], a[2]), ay1 = std::max(a[0], a[2]), ax0 = std::min(a[1], a[3]),
               ax1 = std::max(a[1], a[3]);
  const double by0 = std::min(b[0], b[2]), by1 = std::max(b[0], b[2]), bx0 = std::min(b[1], b[3]),
               bx1 = std::max(b[1], b[3]);
  const double ih = std::max(0.0, std::min(ay1, by1) - std::max(ay0, by0));
  const double iw = std::max(0.0, std::min(ax1, bx1) - std::max(ax0, bx0));
  const double u = (ay1 - ay0) * (ax1 - ax0) + (by1 - by0) * (bx1 - bx0) - ih * iw;
  return u > 0 ? ih * iw / u : 0.0;
}

TEST(CombinedNms, RandomAgainstGreedySelection) {
  std::mt19937 rng(7);
  const uint32_t B = 2, N = 12, K = 3, per_class = 3, total = 7;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> boxes(B * N * K * 4), scores(B * N * K);
    for (size_t i = 0; i < boxes.size(); i += 4) {
      const float y = std::uniform_real_distribution<float>(-0.2f, 1.0f)(rng);
      const float x = std::uniform_real_distribution<float>(-0.2f, 1.0f)(rng);
      const float h = std::uniform_real_distribution<float>(0.05f, 0.5f)(rng);
      const float w = std::uniform_real_distribution<float>(0.05f, 0.5f)(rng);
      boxes[i] = y, boxes[i + 1] = x, boxes[i + 2] = y + h, boxes[i + 3] = x + w;
    }
    // Scores in steps of 1/16 so that ties occur.
    for (float& s : scores) s = static_cast<float>(rand_int(rng, 0, 16)) / 16.0f;
    Node n;
    n.type = "CombinedNms";
    n.inputs = {f32({B, N, K, 4}), f32({B, N, K})};
    n.outputs = {f32({B, total, 4}), f32({B, total}), typed(dtype::kInt32, {B, total}), typed(dtype::kInt32, {B})};
    n.params = {u32_param("max_boxes_per_class", per_class), u32_param("max_total_boxes", total),
                f32_param("iou_threshold", 0.3f), f32_param("score_threshold", 0.2f)};
    const auto got = run_cnms(n, boxes, scores);
    const auto gb = as<float>(got[0]), gs = as<float>(got[1]);
    const auto gc = as<int32_t>(got[2]), gv = as<int32_t>(got[3]);
    for (uint32_t b = 0; b < B; ++b) {
      std::vector<RefPick> picks;
      for (int c = 0; c < int(K); ++c) {
        std::vector<bool> gone(N, false);
        int taken = 0;
        while (taken < int(per_class)) {
          int best = -1;
          for (int i = 0; i < int(N); ++i) {
            const float s = scores[(b * N + i) * K + c];
            if (gone[i] || !(s > 0.2f)) continue;
            if (best < 0 || s > scores[(b * N + best) * K + c]) best = i;
          }
          if (best < 0) break;
          gone[best] = true;
          ++taken;
          picks.push_back({scores[(b * N + best) * K + c], c, best});
          const float* bb = &boxes[((b * N + best) * K + c) * 4];
          for (int i = 0; i < int(N); ++i) {
            if (!gone[i] && ref_iou(bb, &boxes[((b * N + i) * K + c) * 4]) > 0.3) gone[i] = true;
          }
        }
      }
      std::stable_sort(picks.begin(), picks.end(), [](const RefPick& p, const RefPick& q) { return p.score > q.score; });
      const size_t nv = std::min<size_t>(picks.size(), total);
      ASSERT_EQ(gv[b], int32_t(nv)) << "trial " << trial << " batch " << b;
      for (size_t i = 0; i < total; ++i) {
        const size_t o = b * total + i;
        if (i >= nv) {
          EXPECT_EQ(gs[o], 0.0f);
          EXPECT_EQ(gc[o], 0);
          for (int k = 0; k < 4; ++k) EXPECT_EQ(gb[o * 4 + k], 0.0f);
          continue;
        }
        const RefPick& p = picks[i];
        EXPECT_EQ(gs[o], p.score) << "trial " << trial << " row " << i;
        EXPECT_EQ(gc[o], p.cls) << "trial " << trial << " row " << i;
        for (int k = 0; k < 4; ++k) {
          const float v = boxes[((b * N + p.box) * K + p.cls) * 4 + k];
          EXPECT_EQ(gb[o * 4 + k], std::clamp(v, 0.0f, 1.0f)) << "trial " << trial << " row " << i;
        }
      }
    }
  }
}

TEST(CombinedNms, Refusals) {
  const Node good = cnms_node(1, 4, 4);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  auto with = [&](auto edit) {
    Node n = good;
    edit(n);
    return n.prepare();
  };
  EXPECT_STATUS(with([](Node& n) { n.inputs.pop_back(); }), StatusCode::kInvalidArgument, "1 inputs, expected 2");
  EXPECT_STATUS(with([](Node& n) { n.outputs.pop_back(); }), StatusCode::kInvalidArgument, "3 outputs, expected 4");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dims = {5, 4}; }), StatusCode::kInvalidArgument, "in[0] (boxes) rank");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dims = {1, 5, 1, 3}; }), StatusCode::kInvalidArgument,
                "in[0] (boxes) dim 3 is 3, expected 4");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dims = {1, 5, 3, 4}; }), StatusCode::kInvalidArgument,
                "dim 2 (q) is 3, expected 1 or num_classes = 2");
  EXPECT_STATUS(with([](Node& n) { n.inputs[1].dims = {1, 4, 2}; }), StatusCode::kInvalidArgument,
                "in[1] (scores) dims are [1,4,2]");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dtype = dtype::kInt32; }), StatusCode::kUnsupported,
                "in[0] (boxes) data type is INT_32");
  EXPECT_STATUS(with([](Node& n) { n.outputs[2].dtype = dtype::kInt8; }), StatusCode::kInvalidArgument,
                "out[2] (classes) data type is INT_8");
  EXPECT_STATUS(with([](Node& n) { n.outputs[3].dtype = dtype::kFloat32; }), StatusCode::kInvalidArgument,
                "out[3] (valid detections) data type is FLOAT_32");
  EXPECT_STATUS(with([](Node& n) { n.params.erase(n.params.begin()); }), StatusCode::kInvalidArgument,
                "mandatory parameter 'max_boxes_per_class' is missing");
  EXPECT_STATUS(with([](Node& n) { n.params.erase(n.params.begin() + 1); }), StatusCode::kInvalidArgument,
                "mandatory parameter 'max_total_boxes' is missing");
  EXPECT_STATUS(with([](Node& n) { n.params[0] = u32_param("max_boxes_per_class", 0); }),
                StatusCode::kInvalidArgument, "'max_boxes_per_class' is 0");
  EXPECT_STATUS(with([](Node& n) { n.params[1] = u32_param("max_total_boxes", 0); }), StatusCode::kInvalidArgument,
                "'max_total_boxes' is 0");
  EXPECT_STATUS(with([](Node& n) { n.params[2] = f32_param("iou_threshold", 1.5f); }), StatusCode::kInvalidArgument,
                "'iou_threshold' is 1.5", "[0, 1]");
  EXPECT_STATUS(with([](Node& n) { n.params.push_back(f32_param("soft_nms_sigma", 0.5f)); }),
                StatusCode::kInvalidArgument, "unknown parameter 'soft_nms_sigma'");
  EXPECT_STATUS(with([](Node& n) { n.outputs[1].dims = {1, 3}; }), StatusCode::kInvalidArgument, "out[1] dim 1 is 3");
  EXPECT_STATUS(with([](Node& n) { n.outputs[2].dims = {1, 4, 1}; }), StatusCode::kInvalidArgument, "out[2] rank");
  EXPECT_STATUS(with([](Node& n) { n.outputs[3].dims = {2}; }), StatusCode::kInvalidArgument, "out[3] dim 0 is 2");
}

// ------------------------------------------------------- CollectRpnProposals

// Two levels (rpn_min_level 2, rpn_max_level 3). Row i of level l is
// (l, 10l + i, 1, 2, 3). Scores: level 0 {0.5, 0.9, 0.1}, level 1 {0.7, 0.9}.
// Concatenated: r0 .5, r1 .9, r2 .1, r3 .7, r4 .9; by score, ties to the
// earlier row: r1, r4, r3, r0, r2.
Node collect_node(uint32_t top, uint32_t out_rows, bool column_scores = false) {
  Node n;
  n.type = "CollectRpnProposals";
  n.inputs = {f32({3, 5}), f32({2, 5}), column_scores ? f32({3, 1}) : f32({3}), column_scores ? f32({2, 1}) : f32({2})};
  n.outputs = {f32({out_rows, 5})};
  n.params = {u32_param("rpn_min_level", 2), u32_param("rpn_max_level", 3), u32_param("post_nms_top", top)};
  return n;
}
const std::vector<float> kLevel0 = {0, 0, 1, 2, 3, 0, 1, 1, 2, 3, 0, 2, 1, 2, 3};
const std::vector<float> kLevel1 = {1, 10, 1, 2, 3, 1, 11, 1, 2, 3};
const std::vector<float> kRow[] = {{0, 0, 1, 2, 3}, {0, 1, 1, 2, 3}, {0, 2, 1, 2, 3}, {1, 10, 1, 2, 3}, {1, 11, 1, 2, 3}};

std::vector<float> rows_of(std::initializer_list<int> ids, size_t pad_rows = 0) {
  std::vector<float> v;
  for (int i : ids) v.insert(v.end(), kRow[i].begin(), kRow[i].end());
  v.insert(v.end(), pad_rows * 5, 0.0f);
  return v;
}

TEST(CollectRpnProposals, TopRowsByScore) {
  const std::vector<float> s0 = {0.5f, 0.9f, 0.1f}, s1 = {0.7f, 0.9f};
  EXPECT_EQ(collect_node(3, 3).run({&kLevel0, &kLevel1, &s0, &s1}), rows_of({1, 4, 3}));
  EXPECT_EQ(collect_node(3, 3, true).run({&kLevel0, &kLevel1, &s0, &s1}), rows_of({1, 4, 3}));
  // post_nms_top 0 (all rows), and a post_nms_top past the total: exactly
  // five rows, or post_nms_top rows with 0 rows after the last.
  EXPECT_EQ(collect_node(0, 5).run({&kLevel0, &kLevel1, &s0, &s1}), rows_of({1, 4, 3, 0, 2}));
  EXPECT_EQ(collect_node(8, 5).run({&kLevel0, &kLevel1, &s0, &s1}), rows_of({1, 4, 3, 0, 2}));
  EXPECT_EQ(collect_node(8, 8).run({&kLevel0, &kLevel1, &s0, &s1}), rows_of({1, 4, 3, 0, 2}, 3));
  // A NaN score sorts last.
  const std::vector<float> n0 = {std::nanf(""), 0.9f, 0.1f};
  EXPECT_EQ(collect_node(0, 5).run({&kLevel0, &kLevel1, &n0, &s1}), rows_of({1, 4, 3, 2, 0}));
}

TEST(CollectRpnProposals, FourColumnRoisAndThreeLevels) {
  // Levels 1..3, boxes only: scores 0.2 | 0.6 0.4 | 0.8 -> rows L2, L1a, L1b, L0.
  Node n;
  n.type = "CollectRpnProposals";
  n.inputs = {f32({1, 4}), f32({2, 4}), f32({1, 4}), f32({1}), f32({2}), f32({1})};
  n.outputs = {f32({2, 4})};
  n.params = {u32_param("rpn_min_level", 1), u32_param("rpn_max_level", 3), u32_param("post_nms_top", 2)};
  const std::vector<float> r0 = {1, 1, 1, 1}, r1 = {2, 2, 2, 2, 3, 3, 3, 3}, r2 = {4, 4, 4, 4};
  const std::vector<float> s0 = {0.2f}, s1 = {0.6f, 0.4f}, s2 = {0.8f};
  EXPECT_EQ(n.run({&r0, &r1, &r2, &s0, &s1, &s2}), (std::vector<float>{4, 4, 4, 4, 2, 2, 2, 2}));
}

TEST(CollectRpnProposals, Refusals) {
  const Node good = collect_node(3, 3);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  auto with = [&](auto edit) {
    Node n = good;
    edit(n);
    return n.prepare();
  };
  // The defaults (levels 2..6) want ten inputs.
  EXPECT_STATUS(with([](Node& n) { n.params.clear(); }), StatusCode::kInvalidArgument, "4 inputs, expected 10");
  EXPECT_STATUS(with([](Node& n) { n.inputs.pop_back(); }), StatusCode::kInvalidArgument, "3 inputs, expected 4");
  EXPECT_STATUS(with([](Node& n) { n.params[1] = u32_param("rpn_max_level", 1); }), StatusCode::kInvalidArgument,
                "'rpn_max_level' is 1, expected >= rpn_min_level = 2");
  EXPECT_STATUS(with([](Node& n) { n.params.push_back(u32_param("rpn_post_nms_topN", 3)); }),
                StatusCode::kInvalidArgument, "unknown parameter 'rpn_post_nms_topN'");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dims = {3, 6}; }), StatusCode::kInvalidArgument,
                "in[0] (rois) dims are [3,6]");
  EXPECT_STATUS(with([](Node& n) { n.inputs[1].dims = {2, 4}; }), StatusCode::kInvalidArgument,
                "in[1] (rois) has 4 columns, expected 5");
  EXPECT_STATUS(with([](Node& n) { n.inputs[2].dims = {2}; }), StatusCode::kInvalidArgument,
                "in[2] (scores) dims are [2], expected [3] or [3,1]");
  EXPECT_STATUS(with([](Node& n) { n.inputs[3].dtype = dtype::kInt32; }), StatusCode::kUnsupported,
                "in[3] (scores) data type is INT_32");
  EXPECT_STATUS(with([](Node& n) { n.outputs[0].dims = {4, 5}; }), StatusCode::kInvalidArgument,
                "out[0] dims are [4,5], expected [3,5]");
  EXPECT_STATUS(with([](Node& n) { n.outputs[0].dims = {3, 4}; }), StatusCode::kInvalidArgument,
                "out[0] dims are [3,4]");
  EXPECT_STATUS(with([](Node& n) { n.outputs.push_back(f32({3})); }), StatusCode::kInvalidArgument,
                "2 outputs, expected 1");
}

// ---------------------------------------------------- DistributeFpnProposals

// Level of a roi of side s (sqrt of its area), the FPN formula with the
// defaults (canonical scale 224, level 4, levels 2..5):
//   s = 224: floor(4 + log2(1 + 1e-6)) = 4        s = 112: floor(3.000003) = 3
//   s = 56:  floor(2.000006) = 2                 s = 10:  floor(-0.49) -> 2
//   s = 1000: floor(6.16) -> 5                   s = 300: floor(4.42) = 4
//   a negative width: s = 0, floor(4 - 19.9) -> 2
int fpn_level(double s) {
  const double l = std::floor(4 + std::log2(s / 224 + 1e-6));
  return static_cast<int>(std::min(5.0, std::max(2.0, l)));
}

const std::vector<float> kFpnRois = {
    0, 0, 0, 224, 224,    // r0: 224 -> level 4
    1, 10, 10, 122, 122,  // r1: 112 -> level 3
    0, 0, 0, 10, 10,      // r2: 10 -> level 2
    1, 0, 0, 1000, 1000,  // r3: 1000 -> level 5
    0, 5, 5, 61, 61,      // r4: 56 -> level 2
    0, 0, 0, 300, 300,    // r5: 300 -> level 4
    0, 5, 5, 0, 0,        // r6: negative -> level 2
};

Node fpn_node(uint32_t in_width, uint32_t out_width, bool counts) {
  Node n;
  n.type = "DistributeFpnProposals";
  n.inputs = {f32({7, in_width})};
  for (int l = 0; l < 4; ++l) n.outputs.push_back(f32({7, out_width}));
  n.outputs.push_back(typed(dtype::kInt32, {7}));
  if (counts) n.outputs.push_back(typed(dtype::kUint32, {4}));
  return n;
}

TEST(DistributeFpnProposals, LevelsFormula) {
  EXPECT_EQ(fpn_level(224), 4);
  EXPECT_EQ(fpn_level(112), 3);
  EXPECT_EQ(fpn_level(56), 2);
  EXPECT_EQ(fpn_level(10), 2);
  EXPECT_EQ(fpn_level(1000), 5);
  EXPECT_EQ(fpn_level(300), 4);
  EXPECT_EQ(fpn_level(0), 2);
}

TEST(DistributeFpnProposals, RoisPerLevelAndRestoreIndex) {
  // level 2 (out[0]): r2, r4, r6; level 3: r1; level 4: r0, r5; level 5: r3;
  // each padded to 7 rows. restore[i] = 7 * level_index + row in that level:
  // r0 14, r1 7, r2 0, r3 21, r4 1, r5 15, r6 2.
  const Node n = fpn_node(5, 5, true);
  const auto in = bytes_of(kFpnRois);
  const auto got = run_raw_outputs(n, {&in});
  ASSERT_EQ(got.size(), 6u);
  auto rows = [&](std::initializer_list<int> ids) {
    std::vector<float> v;
    for (int i : ids) v.insert(v.end(), kFpnRois.begin() + i * 5, kFpnRois.begin() + i * 5 + 5);
    v.resize(7 * 5, 0.0f);
    return v;
  };
  EXPECT_EQ(as<float>(got[0]), rows({2, 4, 6}));
  EXPECT_EQ(as<float>(got[1]), rows({1}));
  EXPECT_EQ(as<float>(got[2]), rows({0, 5}));
  EXPECT_EQ(as<float>(got[3]), rows({3}));
  EXPECT_EQ(as<int32_t>(got[4]), (std::vector<int32_t>{14, 7, 0, 21, 1, 15, 2}));
  EXPECT_EQ(as<uint32_t>(got[5]), (std::vector<uint32_t>{3, 1, 2, 1}));
}

TEST(DistributeFpnProposals, FourColumnRois) {
  // The same rois without the batch column; with 5-wide outputs each row
  // gets batch index 0 first (Caffe2's layout), with 4-wide ones it is as given.
  std::vector<float> boxes;
  for (size_t i = 0; i < 7; ++i) boxes.insert(boxes.end(), kFpnRois.begin() + i * 5 + 1, kFpnRois.begin() + i * 5 + 5);
  const auto in = bytes_of(boxes);
  auto got = run_raw_outputs(fpn_node(4, 5, false), {&in});
  ASSERT_EQ(got.size(), 5u);
  std::vector<float> want3(7 * 5, 0.0f);  // level 5: r3 only
  want3[1] = 0, want3[2] = 0, want3[3] = 1000, want3[4] = 1000;
  EXPECT_EQ(as<float>(got[3]), want3);
  EXPECT_EQ(as<int32_t>(got[4]), (std::vector<int32_t>{14, 7, 0, 21, 1, 15, 2}));
  got = run_raw_outputs(fpn_node(4, 4, false), {&in});
  std::vector<float> want2(7 * 4, 0.0f);  // level 4: r0, r5
  want2[2] = 224, want2[3] = 224, want2[6] = 300, want2[7] = 300;
  EXPECT_EQ(as<float>(got[2]), want2);
}

TEST(DistributeFpnProposals, OtherLevelsAndScale) {
  // Levels 3..4, canonical scale 100, level 3: r = 50 -> floor(3 + log2(0.5))
  // = 2 -> 3; 100 -> 3; 200 -> 4; 400 -> floor(5) -> 4.
  Node n;
  n.type = "DistributeFpnProposals";
  n.inputs = {f32({4, 4})};
  n.outputs = {f32({4, 4}), f32({4, 4}), typed(dtype::kInt32, {4})};
  n.params = {u32_param("roi_min_level", 3), u32_param("roi_max_level", 4), u32_param("roi_canonical_scale", 100),
              u32_param("roi_canonical_level", 3)};
  const std::vector<float> r = {0, 0, 50, 50, 0, 0, 100, 100, 0, 0, 200, 200, 0, 0, 400, 400};
  const auto in = bytes_of(r);
  const auto got = run_raw_outputs(n, {&in});
  EXPECT_EQ(as<float>(got[0]), (std::vector<float>{0, 0, 50, 50, 0, 0, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(as<float>(got[1]), (std::vector<float>{0, 0, 200, 200, 0, 0, 400, 400, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(as<int32_t>(got[2]), (std::vector<int32_t>{0, 1, 4, 5}));
}

TEST(DistributeFpnProposals, Refusals) {
  const Node good = fpn_node(5, 5, false);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  auto with = [&](auto edit) {
    Node n = good;
    edit(n);
    return n.prepare();
  };
  EXPECT_STATUS(with([](Node& n) { n.outputs.erase(n.outputs.begin()); }), StatusCode::kInvalidArgument,
                "4 outputs, expected 5");
  EXPECT_STATUS(with([](Node& n) { n.inputs.push_back(f32({7})); }), StatusCode::kInvalidArgument,
                "2 inputs, expected 1");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dims = {7, 3}; }), StatusCode::kInvalidArgument,
                "in[0] (rois) dims are [7,3]");
  EXPECT_STATUS(with([](Node& n) { n.outputs[1].dims = {6, 5}; }), StatusCode::kInvalidArgument,
                "out[1] dims are [6,5], expected [7,5]");
  EXPECT_STATUS(with([](Node& n) { n.outputs[2].dims = {7, 4}; }), StatusCode::kInvalidArgument,
                "out[2] dims are [7,4]");
  EXPECT_STATUS(with([](Node& n) { n.outputs[4].dtype = dtype::kFloat32; }), StatusCode::kInvalidArgument,
                "out[4] (restore index) data type is FLOAT_32");
  EXPECT_STATUS(with([](Node& n) { n.outputs[4].dims = {6}; }), StatusCode::kInvalidArgument, "out[4] dim 0 is 6");
  EXPECT_STATUS(with([](Node& n) { n.outputs.push_back(typed(dtype::kInt32, {3})); }), StatusCode::kInvalidArgument,
                "out[5] dim 0 is 3, expected 4");
  EXPECT_STATUS(with([](Node& n) { n.params.push_back(u32_param("roi_max_level", 1)); }),
                StatusCode::kInvalidArgument, "'roi_max_level' is 1, expected >= roi_min_level = 2");
  EXPECT_STATUS(with([](Node& n) { n.params.push_back(u32_param("roi_canonical_scale", 0)); }),
                StatusCode::kInvalidArgument, "'roi_canonical_scale' is 0");
  EXPECT_STATUS(with([](Node& n) { n.params.push_back(bool_param("legacy_plus_one", true)); }),
                StatusCode::kInvalidArgument, "unknown parameter 'legacy_plus_one'");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dtype = dtype::kUint8; }), StatusCode::kUnsupported,
                "in[0] (rois) data type is UINT_8");
}

// -------------------------------------------------------------- Correlation1D

Node corr_node(std::vector<uint32_t> dims, uint32_t displacement, uint32_t shift, uint32_t k) {
  Node n;
  n.type = "Correlation1D";
  n.inputs = {f32(dims), f32(dims)};
  n.outputs = {f32({dims[0], dims[1], dims[2], k})};
  n.params = {u32_param("displacement", displacement), u32_param("shift", shift)};
  return n;
}

TEST(Correlation1D, HandWorked) {
  // One row of 3 pixels, 1 channel: in0 = 1 2 3, in1 = 10 20 30,
  // displacement 1: shifts -1, 0, +1 read in1 at x - 1, x, x + 1.
  //   x=0: 0 (outside), 1*10, 1*20;  x=1: 2*10, 2*20, 2*30;  x=2: 3*20, 3*30, 0.
  const std::vector<float> a = {1, 2, 3}, b = {10, 20, 30};
  EXPECT_EQ(corr_node({1, 1, 3, 1}, 1, 1, 3).run({&a, &b}),
            (std::vector<float>{0, 10, 20, 20, 40, 60, 60, 90, 0}));
}

TEST(Correlation1D, FormulaRandom) {
  // out[n,y,x,k] = mean over ch of a[n,y,x,ch] * b[n,y,x + (k - R) * shift, ch]
  // with R = displacement / shift, 0 outside the row.
  std::mt19937 rng(3);
  struct Shape {
    uint32_t n, h, w, c, displacement, shift;
  };
  for (const Shape& s : {Shape{1, 2, 7, 3, 2, 1}, Shape{2, 1, 9, 4, 5, 2}, Shape{1, 3, 4, 2, 0, 1},
                         Shape{1, 1, 6, 5, 7, 3}}) {
    const uint32_t R = s.displacement / s.shift, K = 2 * R + 1;
    const std::vector<uint32_t> dims = {s.n, s.h, s.w, s.c};
    const auto a = random_floats(rng, count(dims)), b = random_floats(rng, count(dims));
    std::vector<Expected> want;
    for (uint32_t row = 0; row < s.n * s.h; ++row) {
      for (uint32_t x = 0; x < s.w; ++x) {
        for (uint32_t k = 0; k < K; ++k) {
          Expected e;
          const int64_t xs = int64_t(x) + (int64_t(k) - int64_t(R)) * s.shift;
          if (xs >= 0 && xs < int64_t(s.w)) {
            for (uint32_t ch = 0; ch < s.c; ++ch) {
              e.add(double(a[(row * s.w + x) * s.c + ch]) * b[(row * s.w + size_t(xs)) * s.c + ch] / s.c);
            }
          }
          want.push_back(e);
        }
      }
    }
    expect_near_sums(corr_node(dims, s.displacement, s.shift, K).run({&a, &b}), want,
                     "Correlation1D w=" + std::to_string(s.w) + " d=" + std::to_string(s.displacement));
  }
}

TEST(Correlation1D, Refusals) {
  const Node good = corr_node({1, 2, 5, 3}, 2, 1, 5);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  auto with = [&](auto edit) {
    Node n = good;
    edit(n);
    return n.prepare();
  };
  EXPECT_STATUS(with([](Node& n) { n.params.erase(n.params.begin()); }), StatusCode::kInvalidArgument,
                "mandatory parameter 'displacement' is missing");
  EXPECT_STATUS(with([](Node& n) { n.params[1] = u32_param("shift", 0); }), StatusCode::kInvalidArgument,
                "'shift' is 0, expected >= 1");
  EXPECT_STATUS(with([](Node& n) { n.params.push_back(u32_param("kernel_size", 1)); }), StatusCode::kInvalidArgument,
                "unknown parameter 'kernel_size'");
  EXPECT_STATUS(with([](Node& n) { n.inputs[1].dims = {1, 2, 4, 3}; }), StatusCode::kInvalidArgument,
                "in[1] (right) dims are [1,2,4,3], expected [1,2,5,3]");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dims = n.inputs[1].dims = {2, 5, 3}; }), StatusCode::kInvalidArgument,
                "in[0] (left) rank");
  // A one-sided displacement set (3 channels for displacement 2) is refused.
  EXPECT_STATUS(with([](Node& n) { n.outputs[0].dims = {1, 2, 5, 3}; }), StatusCode::kInvalidArgument,
                "out[0] dim 3 is 3, expected 5");
  EXPECT_STATUS(with([](Node& n) { n.inputs.pop_back(); }), StatusCode::kInvalidArgument, "1 inputs, expected 2");
  EXPECT_STATUS(with([](Node& n) { n.inputs[1].dtype = dtype::kInt32; }), StatusCode::kUnsupported,
                "in[1] (right) data type is INT_32");
}

// ------------------------------------------------------------- ExtractGlimpse

// A 4x4 image, 2 channels: channel 0 = 4y + x (0..15), channel 1 = 100 + 4y + x.
std::vector<float> glimpse_image(int batch = 1) {
  std::vector<float> v;
  for (int b = 0; b < batch; ++b)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) v.insert(v.end(), {float(4 * y + x + 1000 * b), float(100 + 4 * y + x + 1000 * b)});
  return v;
}

Node glimpse_node(uint32_t gh, uint32_t gw, std::vector<Param> extra = {}, uint32_t batch = 1) {
  Node n;
  n.type = "ExtractGlimpse";
  n.inputs = {f32({batch, 4, 4, 2}), f32({batch, 2})};
  n.outputs = {f32({batch, gh, gw, 2})};
  n.params = {i32_tensor_param("size", {2}, {int32_t(gh), int32_t(gw)})};
  for (Param& p : extra) n.params.push_back(std::move(p));
  return n;
}

// The expected glimpse: pixel (oy + r, ox + s) of the image, `fill` per
// channel outside it.
std::vector<float> window(int oy, int ox, int gh, int gw, std::vector<float> fill = {0, 0}) {
  std::vector<float> v;
  for (int r = 0; r < gh; ++r)
    for (int s = 0; s < gw; ++s) {
      const int y = oy + r, x = ox + s;
      if (y >= 0 && y < 4 && x >= 0 && x < 4) {
        v.insert(v.end(), {float(4 * y + x), float(100 + 4 * y + x)});
      } else {
        v.insert(v.end(), fill.begin(), fill.end());
      }
    }
  return v;
}

TEST(ExtractGlimpse, NormalizedCentered) {
  // Defaults (centered, normalized): y = oy * 4 / 2 + 2 - gh / 2.
  const auto img = glimpse_image();
  const std::vector<float> zero = {0, 0}, corner = {-0.75f, 0.3f};
  // (0, 0), 2x2: y = 0 + 2 - 1 = 1, x = 1.
  EXPECT_EQ(glimpse_node(2, 2).run({&img, &zero}), window(1, 1, 2, 2));
  // (-0.75, 0.3): y = -1.5 + 2 - 1 = -0.5 -> truncated to 0 (not floor -1);
  // x = 0.6 + 2 - 1 = 1.6 -> 1.
  EXPECT_EQ(glimpse_node(2, 2).run({&img, &corner}), window(0, 1, 2, 2));
  // 3x1 glimpse at (0, 0): y = 2 - 1.5 = 0.5 -> 0, x = 2 - 0.5 = 1.5 -> 1.
  EXPECT_EQ(glimpse_node(3, 1).run({&img, &zero}), window(0, 1, 3, 1));
}

TEST(ExtractGlimpse, OtherCoordinateModes) {
  const auto img = glimpse_image();
  // Pixels, not centered: (1, 2) is the top-left corner.
  const std::vector<float> px = {1, 2};
  EXPECT_EQ(glimpse_node(2, 2, {bool_param("centered", false), bool_param("normalized", false)}).run({&img, &px}),
            window(1, 2, 2, 2));
  // Pixels from the centre (v2: no half-window shift): (-1, -2) -> (1, 0).
  const std::vector<float> pc = {-1, -2};
  EXPECT_EQ(glimpse_node(2, 2, {bool_param("normalized", false)}).run({&img, &pc}), window(1, 0, 2, 2));
  // Normalized, not centered: (0.25, 0.5) * 4 = (1, 2).
  const std::vector<float> nn = {0.25f, 0.5f};
  EXPECT_EQ(glimpse_node(2, 2, {bool_param("centered", false)}).run({&img, &nn}), window(1, 2, 2, 2));
}

TEST(ExtractGlimpse, NoiseFillOutsideTheImage) {
  const auto img = glimpse_image();
  // (1, 1) centered normalized, 2x2: y = 2 + 2 - 1 = 3: only pixel (3, 3)
  // is inside.
  const std::vector<float> off = {1, 1};
  // ZEROES: 0 (TensorFlow's value exactly).
  EXPECT_EQ(glimpse_node(2, 2, {u32_param("noise", 2)}).run({&img, &off}), window(3, 3, 2, 2, {0, 0}));
  // UNIFORM (the default): the midpoint of the image's values, (0 + 115) / 2.
  EXPECT_EQ(glimpse_node(2, 2).run({&img, &off}), window(3, 3, 2, 2, {57.5f, 57.5f}));
  // GAUSSIAN: each channel's mean, 7.5 and 107.5.
  EXPECT_EQ(glimpse_node(2, 2, {u32_param("noise", 1)}).run({&img, &off}), window(3, 3, 2, 2, {7.5f, 107.5f}));
  // A glimpse larger than the image, pixels from (-1, -1): a ring of fill.
  const std::vector<float> px = {-1, -1};
  EXPECT_EQ(glimpse_node(6, 6, {bool_param("centered", false), bool_param("normalized", false), u32_param("noise", 2)})
                .run({&img, &px}),
            window(-1, -1, 6, 6));
  // Far away or NaN: all fill.
  const std::vector<float> far = {1e12f, 0}, nan = {std::nanf(""), 0};
  EXPECT_EQ(glimpse_node(2, 2, {u32_param("noise", 2)}).run({&img, &far}), window(-10, -10, 2, 2));
  EXPECT_EQ(glimpse_node(2, 2, {u32_param("noise", 2)}).run({&img, &nan}), window(-10, -10, 2, 2));
}

TEST(ExtractGlimpse, EachBatchItsOwnOffset) {
  // Batch 1's image is batch 0's + 1000. Centered, normalized, 2x2:
  // batch 0 at (0, 0) -> pixel (1, 1); batch 1 at (-0.5, -0.5) ->
  // y = -0.5 * 4 / 2 + 2 - 1 = 0, pixel (0, 0).
  const auto img = glimpse_image(2);
  const std::vector<float> off = {0, 0, -0.5f, -0.5f};
  std::vector<float> want = window(1, 1, 2, 2);
  for (float v : window(0, 0, 2, 2)) want.push_back(v + 1000);
  EXPECT_EQ(glimpse_node(2, 2, {}, 2).run({&img, &off}), want);
}

TEST(ExtractGlimpse, Refusals) {
  const Node good = glimpse_node(2, 2);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  auto with = [&](auto edit) {
    Node n = good;
    edit(n);
    return n.prepare();
  };
  EXPECT_STATUS(with([](Node& n) { n.params.clear(); }), StatusCode::kInvalidArgument,
                "mandatory parameter 'size' is missing");
  EXPECT_STATUS(with([](Node& n) { n.params[0] = i32_tensor_param("size", {2}, {0, 2}); }),
                StatusCode::kInvalidArgument, "'size' is [0,2], expected both >= 1");
  EXPECT_STATUS(with([](Node& n) { n.params[0] = i32_tensor_param("size", {3}, {2, 2, 2}); }),
                StatusCode::kInvalidArgument, "'size' dims are [3], expected [2]");
  EXPECT_STATUS(with([](Node& n) { n.params[0] = i32_tensor_param("size", {2}, {-1, 2}); }),
                StatusCode::kInvalidArgument, "'size' element 0 is -1");
  EXPECT_STATUS(with([](Node& n) { n.params.push_back(u32_param("noise", 3)); }), StatusCode::kInvalidArgument,
                "'noise' is 3, expected UNIFORM 0, GAUSSIAN 1 or ZEROES 2");
  EXPECT_STATUS(with([](Node& n) { n.params.push_back(bool_param("uniform_noise", true)); }),
                StatusCode::kInvalidArgument, "unknown parameter 'uniform_noise'");
  EXPECT_STATUS(with([](Node& n) { n.inputs[1].dims = {1, 3}; }), StatusCode::kInvalidArgument,
                "in[1] (offsets) dims are [1,3], expected [1,2]");
  EXPECT_STATUS(with([](Node& n) { n.inputs[0].dims = {4, 4, 2}; }), StatusCode::kInvalidArgument,
                "in[0] (input) rank");
  EXPECT_STATUS(with([](Node& n) { n.outputs[0].dims = {1, 2, 3, 2}; }), StatusCode::kInvalidArgument,
                "out[0] dim 2 is 3, expected 2");
  EXPECT_STATUS(with([](Node& n) { n.inputs[1].dtype = dtype::kInt32; }), StatusCode::kUnsupported,
                "in[1] (offsets) data type is INT_32");
}

}  // namespace
}  // namespace opstest
