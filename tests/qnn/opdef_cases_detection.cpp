// The detection family (src/ops/reference/detection_group.cpp):
// NonMaxSuppression, MultiClassNms, RoiPooling, AxisAlignedBboxTransform. Expected values
// worked by hand (NMS), or from the formula written here.
#include <algorithm>
#include <cmath>

#include "opdef_cases.h"

namespace qnntest::opdef {

OPDEF_CASES(detection) {
  CaseList cases;

  // NonMaxSuppression, one batch and class, boxes (y1, x1, y2, x2):
  //   b0 [0,0,1,1] score 0.9 kept; b1 [0,0.2,1,1.2] (IoU with b0 0.8/1.2 =
  //   0.667 > 0.5) dropped; b2 [0,3,1,4] disjoint, kept. Padded to
  //   max_boxes_selected = 3 rows with 0s; valid count 2.
  cases.push_back({"NonMaxSuppression", "one class, one box suppressed, padded rows",
                   {f32({1, 3, 4}, {0, 0, 1, 1, 0, 0.2, 1, 1.2, 0, 3, 1, 4}), f32({1, 1, 3}, {0.9, 0.8, 0.7})},
                   {scalar_f32("iou_threshold", 0.5f), scalar_f32("score_threshold", 0.1f),
                    scalar_u32("max_boxes_selected", 3)},
                   {i32({3, 3}, {0, 0, 0, 0, 0, 2, 0, 0, 0}), i32({1}, {2})},
                   0.0});

  // MultiClassNms, two classes over the same three boxes (scores [box, class]):
  //   class 0: b0 0.9 kept, b1 0.8 dropped (IoU 0.667 with b0), b2 0.3 below 0.4.
  //   class 1: b2 0.85 kept, b1 0.6 kept (disjoint from b2), b0 0.2 below.
  //   merged by score: (b0, c0, 0.9), (b2, c1, 0.85), (b1, c1, 0.6); max 4: one padding row.
  cases.push_back({"MultiClassNms", "two classes merged by score, padded",
                   {f32({1, 3, 4}, {0, 0, 1, 1, 0, 0.2, 1, 1.2, 0, 3, 1, 4}),
                    f32({1, 3, 2}, {0.9, 0.2, 0.8, 0.6, 0.3, 0.85})},
                   {scalar_f32("iou_threshold", 0.5f), scalar_f32("score_threshold", 0.4f)},
                   {f32({1, 4, 4}, {0, 0, 1, 1, 0, 3, 1, 4, 0, 0.2, 1, 1.2, 0, 0, 0, 0}),
                    f32({1, 4}, {0.9, 0.85, 0.6, 0}), i32({1, 4}, {0, 1, 1, 0}), u32({1}, {3})},
                   1e-6});

  // RoiPooling, a 4x4 map v = 4h + w, roi (0,0)-(3,3), ratio 1: 2x2 bins of
  // 2x2 pixels, each bin's max is its bottom-right pixel.
  {
    std::vector<double> x(16);
    for (int i = 0; i < 16; ++i) x[i] = i;
    std::vector<double> y;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) y.push_back(4 * (2 * i + 1) + (2 * j + 1));
    cases.push_back({"RoiPooling", "one roi, 2x2 bins",
                     {f32({1, 4, 4, 1}, x), f32({1, 4}, {0, 0, 3, 3}), fixed_static(i32({1}, {0}))},
                     {Param{"img_size_ratio", QNN_DATATYPE_FLOAT_32, {2}, {1.0, 1.0}}},
                     {f32({1, 2, 2, 1}, y)}});
  }

  // AxisAlignedBboxTransform, one roi (x1,y1,x2,y2) = (10,20,30,60), two
  // classes, image (h 45, w 100), weights 1: centre += (dx*w, dy*h), size *=
  // exp(dw, dh), then clamped into the image.
  {
    const double x1 = 10, y1 = 20, x2 = 30, y2 = 60, H = 45, W = 100;
    const std::vector<double> d = {0, 0, 0, 0, 0.5, -0.25, std::log(2.0), 0.1};
    std::vector<double> out;
    for (int k = 0; k < 2; ++k) {
      const double w = x2 - x1, h = y2 - y1, cx = x1 + w / 2 + d[k * 4] * w, cy = y1 + h / 2 + d[k * 4 + 1] * h;
      const double nw = w * std::exp(d[k * 4 + 2]), nh = h * std::exp(d[k * 4 + 3]);
      auto clamp = [](double v, double hi) { return std::min(std::max(v, 0.0), hi); };
      out.insert(out.end(), {clamp(cx - nw / 2, W), clamp(cy - nh / 2, H), clamp(cx + nw / 2, W), clamp(cy + nh / 2, H)});
    }
    cases.push_back({"AxisAlignedBboxTransform", "two classes, clamped to the image",
                     {f32({1, 4}, {x1, y1, x2, y2}), f32({1, 8}, d), fixed_static(i32({1}, {0})), f32({1, 2}, {H, W})},
                     {},
                     {f32({1, 8}, out)},
                     1e-4});
  }
  return cases;
}

}  // namespace qnntest::opdef
