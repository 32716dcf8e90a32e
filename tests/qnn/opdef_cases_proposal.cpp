// The proposal family (src/ops/reference/proposal_group.cpp): CombinedNms,
// CollectRpnProposals, DistributeFpnProposals, Correlation1D, ExtractGlimpse.
// Expected values worked by hand in the comments, or from the formula
// written here.
#include <cmath>

#include "opdef_cases.h"

namespace qnntest::opdef {

OPDEF_CASES(proposal) {
  CaseList cases;

  // CombinedNms, boxes [1, 3, q=1, 4] (y1, x1, y2, x2): b0 [0,0,1,1],
  // b1 [0,0.2,1,1.2] (IoU 0.667 with b0), b2 [0,3,1,4]; scores [box][class]
  // (0.9, 0.2), (0.8, 0.6), (0.3, 0.85); score_threshold 0.4, one box per
  // class: class 0 keeps b0 (0.9), class 1 keeps b2 (0.85) (b1 0.6 is past
  // the limit). Merged: (b0, c0), (b2, c1); max_total_boxes 3 -> one padding
  // row. clip_boxes (default) clamps b2 to [0,1,1,1].
  cases.push_back({"CombinedNms", "per-class limit, clipped, padded",
                   {f32({1, 3, 1, 4}, {0, 0, 1, 1, 0, 0.2, 1, 1.2, 0, 3, 1, 4}),
                    f32({1, 3, 2}, {0.9, 0.2, 0.8, 0.6, 0.3, 0.85})},
                   {scalar_u32("max_boxes_per_class", 1), scalar_u32("max_total_boxes", 3),
                    scalar_f32("iou_threshold", 0.5f), scalar_f32("score_threshold", 0.4f)},
                   {f32({1, 3, 4}, {0, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0}), f32({1, 3}, {0.9, 0.85, 0}),
                    i32({1, 3}, {0, 1, 0}), u32({1}, {2})},
                   1e-6});

  // CollectRpnProposals, levels 2..3: level 2 rows (0,1,1,2,2) score 0.3 and
  // (0,2,2,3,3) score 0.8, level 3 row (0,4,4,5,5) score 0.5; the two best:
  // 0.8, then 0.5.
  cases.push_back({"CollectRpnProposals", "two levels, top 2 by score",
                   {f32({2, 5}, {0, 1, 1, 2, 2, 0, 2, 2, 3, 3}), f32({1, 5}, {0, 4, 4, 5, 5}), f32({2}, {0.3, 0.8}),
                    f32({1}, {0.5})},
                   {scalar_u32("rpn_min_level", 2), scalar_u32("rpn_max_level", 3), scalar_u32("post_nms_top", 2)},
                   {f32({2, 5}, {0, 2, 2, 3, 3, 0, 4, 4, 5, 5})},
                   0.0});

  // DistributeFpnProposals, levels 2..3, canonical 224 / level 4:
  // level = floor(4 + log2(side / 224 + 1e-6)) clamped to [2, 3]:
  //   r0 side 224 -> 4 -> 3; r1 side 56 -> 2; r2 side 112 -> 3.
  // Each level output holds all 3 rows (padded with 0); restore[i] =
  // 3 * level_index + row: r0 3, r1 0, r2 4.
  {
    const double side[] = {224, 56, 112};
    std::vector<double> rois;
    for (int i = 0; i < 3; ++i) rois.insert(rois.end(), {double(i), 0, 0, side[i], side[i]});
    std::vector<double> lvl2(15, 0.0), lvl3(15, 0.0);
    std::copy(rois.begin() + 5, rois.begin() + 10, lvl2.begin());   // r1
    std::copy(rois.begin(), rois.begin() + 5, lvl3.begin());        // r0
    std::copy(rois.begin() + 10, rois.begin() + 15, lvl3.begin() + 5);  // r2
    cases.push_back({"DistributeFpnProposals", "two levels, padded outputs, restore index",
                     {f32({3, 5}, rois)},
                     {scalar_u32("roi_min_level", 2), scalar_u32("roi_max_level", 3)},
                     {f32({3, 5}, lvl2), f32({3, 5}, lvl3), i32({3}, {3, 0, 4})},
                     0.0});
  }

  // Correlation1D, displacement 2 shift 2: shifts -2, 0, +2;
  // out[x][k] = mean over c of a[x][c] * b[x + (k - 1) * 2][c], 0 outside.
  {
    const int W = 4, C = 2;
    std::vector<double> a, b, out;
    for (int i = 0; i < W * C; ++i) {
      a.push_back(0.25 * i - 0.5);
      b.push_back(1.0 - 0.125 * i);
    }
    for (int x = 0; x < W; ++x)
      for (int k = 0; k < 3; ++k) {
        const int xs = x + (k - 1) * 2;
        double s = 0;
        if (xs >= 0 && xs < W)
          for (int c = 0; c < C; ++c) s += a[x * C + c] * b[xs * C + c];
        out.push_back(s / C);
      }
    cases.push_back({"Correlation1D", "shifts -2, 0, +2 over one row",
                     {f32({1, 1, W, C}, a), f32({1, 1, W, C}, b)},
                     {scalar_u32("displacement", 2), scalar_u32("shift", 2)},
                     {f32({1, 1, W, 3}, out)},
                     1e-6});
    // The same in FLOAT_16 (the type adapter around the float kernel):
    // inputs and outputs rounded to half precision, |out| < 1.
    cases.push_back({"Correlation1D", "FLOAT_16 through the type adapter",
                     {f16({1, 1, W, C}, a), f16({1, 1, W, C}, b)},
                     {scalar_u32("displacement", 2), scalar_u32("shift", 2)},
                     {f16({1, 1, W, 3}, out)},
                     2e-3});
  }

  // ExtractGlimpse on a 3x3 image v = 3y + x, 2x2 glimpses, centered and
  // normalized (defaults): top-left = (o * 3 / 2 + 1.5 - 1) truncated.
  //   offsets (0, 0): 0.5 -> (0, 0): 0 1 / 3 4.
  //   offsets (1, 1) with ZEROES: 2 -> (2, 2): 8 then three 0s of fill.
  {
    std::vector<double> img;
    for (int i = 0; i < 9; ++i) img.push_back(i);
    cases.push_back({"ExtractGlimpse", "centered normalized, inside the image",
                     {f32({1, 3, 3, 1}, img), f32({1, 2}, {0, 0})},
                     {tensor_i32("size", {2}, {2, 2})},
                     {f32({1, 2, 2, 1}, {0, 1, 3, 4})},
                     0.0});
    cases.push_back({"ExtractGlimpse", "partly outside, ZEROES fill",
                     {f32({1, 3, 3, 1}, img), f32({1, 2}, {1, 1})},
                     {tensor_i32("size", {2}, {2, 2}), scalar_u32("noise", 2)},
                     {f32({1, 2, 2, 1}, {8, 0, 0, 0})},
                     0.0});
  }
  return cases;
}

}  // namespace qnntest::opdef
