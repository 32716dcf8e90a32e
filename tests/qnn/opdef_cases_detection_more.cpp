// More of the detection family (src/ops/reference/detection_group.cpp):
// BoxWithNmsLimit, BboxTransform, GenerateProposals, HeatMapMaxKeyPoint.
// Expected values worked by hand in the comments, or from the formula
// written here.
#include <algorithm>
#include <cmath>

#include "opdef_cases.h"

namespace qnntest::opdef {

OPDEF_CASES(detection_more) {
  CaseList cases;
  const double kHalfPi = std::acos(-1.0) / 2;

  // BoxWithNmsLimit: three rois, classes 0 (background) and 1, boxes
  // (x1,y1,x2,y2) a (0,0,10,10), b (1,0,11,10), c (20,20,30,30); class-1
  // scores .9, .8, .6. IoU(a,b) = 90/110 = 0.818.
  const std::vector<double> nms_boxes = {500, 0, 510, 10, 0, 0, 10, 10, 500, 0, 510, 10,
                                         1,   0, 11,  10, 500, 0, 510, 10, 20, 20, 30, 30};
  const std::vector<double> nms_scores = {0.9, 0.9, 0.9, 0.8, 0.9, 0.6};
  //   HARD, iou 0.5: b dropped; rows (a .9) (c .6) and one row of 0.
  cases.push_back({"BoxWithNmsLimit", "hard NMS, background skipped, padded",
                   {f32({3, 8}, nms_boxes), f32({3, 2}, nms_scores), fixed_static(i32({3}, {0, 0, 0}))},
                   {scalar_u32("nms_kernel_method", 0), scalar_f32("score_threshold", 0.05f),
                    scalar_f32("iou_threshold", 0.5f), scalar_i32("pre_nms_limit", -1)},
                   {f32({3, 4}, {0, 0, 10, 10, 20, 20, 30, 30, 0, 0, 0, 0}), f32({3}, {0.9, 0.6, 0}),
                    i32({3}, {1, 1, 0}), i32({3}, {0, 0, 0})},
                   1e-6});
  //   LINEAR, iou 0.5, nms_score_threshold 0.1: b decays to .8 (1 - 0.818)
  //   = 0.145 and stays; rows a, c, b; every optional output.
  {
    const double b_score = 0.8 * (1.0 - 90.0 / 110.0);
    cases.push_back({"BoxWithNmsLimit", "linear soft NMS, all seven outputs",
                     {f32({3, 8}, nms_boxes), f32({3, 2}, nms_scores), i32({3}, {0, 0, 0}), u32({1}, {3})},
                     {scalar_u32("nms_kernel_method", 1), scalar_f32("score_threshold", 0.05f),
                      scalar_f32("iou_threshold", 0.5f), scalar_f32("nms_score_threshold", 0.1f),
                      scalar_f32("sigma", 0.5f), scalar_u32("pre_nms_limit", 10)},
                     {f32({3, 4}, {0, 0, 10, 10, 20, 20, 30, 30, 1, 0, 11, 10}), f32({3}, {0.9, 0.6, b_score}),
                      i32({3}, {1, 1, 1}), i32({3}, {0, 0, 0}), u32({1}, {3}), i32({3}, {0, 2, 1}),
                      i32({1, 2}, {0, 3})},
                     1e-6});
  }

  // BboxTransform, upright: roi (10,20)-(50,100), one class, weights
  // (2, 4, 1, 0.5), image (h 200, w 300); dw/ww = 6 is clipped at
  // log(1000/16) before the exp.
  {
    const double x1 = 10, y1 = 20, x2 = 50, y2 = 100, H = 200, W = 300;
    const double d[4] = {0.4, -0.8, 6, 0.1}, wt[4] = {2, 4, 1, 0.5};
    const double clip = std::log(1000.0 / 16.0);
    const double w = x2 - x1, h = y2 - y1;
    const double cx = x1 + w / 2 + d[0] / wt[0] * w, cy = y1 + h / 2 + d[1] / wt[1] * h;
    const double nw = w * std::exp(std::min(d[2] / wt[2], clip)), nh = h * std::exp(std::min(d[3] / wt[3], clip));
    auto c = [](double v, double hi) { return std::min(std::max(v, 0.0), hi); };
    cases.push_back({"BboxTransform", "upright, weights, size delta clipped",
                     {f32({1, 4}, {x1, y1, x2, y2}), f32({1, 4}, {d[0], d[1], d[2], d[3]}),
                      fixed_static(i32({1}, {0})), f32({1, 2}, {H, W})},
                     {Param{"weights", QNN_DATATYPE_FLOAT_32, {4}, {2, 4, 1, 0.5}}, scalar_bool("apply_scale", true)},
                     {f32({1, 4}, {c(cx - nw / 2, W), c(cy - nh / 2, H), c(cx + nw / 2, W), c(cy + nh / 2, H)})},
                     1e-3});
    // The same in FLOAT_16 (the type adapter around the float kernel; the
    // batch index stays INT_32), with the roi count per image as out[1].
    cases.push_back({"BboxTransform", "FLOAT_16 through the type adapter, batch splits",
                     {f16({1, 4}, {x1, y1, x2, y2}), f16({1, 4}, {d[0], d[1], d[2], d[3]}), i32({1}, {0}),
                      f16({1, 2}, {H, W})},
                     {Param{"weights", QNN_DATATYPE_FLOAT_32, {4}, {2, 4, 1, 0.5}}},
                     {f16({1, 4}, {c(cx - nw / 2, W), c(cy - nh / 2, H), c(cx + nw / 2, W), c(cy + nh / 2, H)}),
                      i32({1}, {1})},
                     0.25});
  }

  // BboxTransform, rotated roi (ctr 50,40, size 20x10, angle 30 degrees),
  // delta (0.1, -0.2, ln 2, 0, pi/2 rad): centre (52, 38), size 40x10,
  // angle 120 -> -60 in the default bounds [-90, 90]; not near horizontal,
  // so not clipped.
  cases.push_back({"BboxTransform", "rotated, angle brought into the bounds",
                   {f32({1, 5}, {50, 40, 20, 10, 30}), f32({1, 5}, {0.1, -0.2, std::log(2.0), 0, kHalfPi}),
                    fixed_static(i32({1}, {0})), f32({1, 2}, {100, 100})},
                   {tensor_i32("angle_bounds", {2}, {-90, 90}), scalar_f32("angle_clip_threshold", 1.0f)},
                   {f32({1, 5}, {52, 38, 40, 10, -60})},
                   1e-4});

  // GenerateProposals: one image, H 1, W 2, one anchor (0,0,10,10), ratio 8:
  // candidates p0 (0,0,10,10) score .7 and p1 = the anchor moved 8 in x,
  // (8,0,18,10), score .9 with dx 0.1: centre 13 + 1 -> (9,0,19,10).
  // IoU(p1, p0) = 10 / 190 < 0.5: both kept, p1 first. Image (h 20, w 30).
  cases.push_back({"GenerateProposals", "two proposals, score order, padded",
                   {f32({1, 1, 2, 1}, {0.7, 0.9}), f32({1, 1, 2, 4}, {0, 0, 0, 0, 0.1, 0, 0, 0}),
                    f32({1, 4}, {0, 0, 10, 10}), f32({1, 2}, {20, 30})},
                   {Param{"img_size_ratio", QNN_DATATYPE_FLOAT_32, {2}, {8, 8}}, scalar_f32("min_size", 1.0f),
                    scalar_u32("pre_nms_limit", 10), scalar_u32("post_nms_limit", 10),
                    scalar_f32("iou_threshold", 0.5f), scalar_bool("bbox_xform_clip", true)},
                   {f32({3}, {0.9, 0.7, 0}), f32({3, 4}, {9, 0, 19, 10, 0, 0, 10, 10, 0, 0, 0, 0}),
                    i32({3}, {0, 0, 0})},
                   1e-5});

  // HeatMapMaxKeyPoint: a 4x4 map of f = 5 - (w - 1.25)^2 - (h - 2.2)^2; the
  // best pixel is (h 2, w 1); the quadratic refinement is exact on a
  // quadratic: (w 1.25, h 2.2), score 5. Box (0,0)-(40,20): x = (1.25 + 0.5)
  // * 40/4, y = (2.2 + 0.5) * 20/4.
  {
    std::vector<double> map;
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 4; ++w) map.push_back(5 - (w - 1.25) * (w - 1.25) - (h - 2.2) * (h - 2.2));
    cases.push_back({"HeatMapMaxKeyPoint", "sub-pixel peak of a quadratic",
                     {f32({1, 4, 4, 1}, map), f32({1, 4}, {0, 0, 40, 20})},
                     {},
                     {f32({1, 1}, {5}), f32({1, 1, 2}, {(1.25 + 0.5) * 10, (2.2 + 0.5) * 5})},
                     1e-4});
  }
  return cases;
}

}  // namespace qnntest::opdef
