// DetectionOutput (src/ops/reference/detection_output.cpp): TFLite-style
// decoding with the scaling factors (formula below) under REGULAR NMS, and a
// FAST (class-agnostic) selection worked by hand, also in FLOAT_16.
#include <cmath>

#include "opdef_cases.h"

namespace qnntest::opdef {

OPDEF_CASES(detection_output) {
  CaseList cases;

  // REGULAR, two anchors (ycenter, xcenter, h, w), classes [background, c1],
  // factors (sy, sx, sh, sw) = (10, 10, 5, 5):
  //   yc = dy/sy*h + yc_a, xc = dx/sx*w + xc_a, h' = exp(dh/sh)*h, w' = exp(dw/sw)*w
  //   box (yc - h'/2, xc - w'/2, yc + h'/2, xc + w'/2).
  // a0 -> (0.1, 0, 1.1, 1), a1 -> (0, 1.4, 1, 5.4): disjoint; c1 scores 0.9
  // and 0.6 pass 0.5, both kept, by score; one padding row.
  {
    const double anchors[2][4] = {{0.5, 0.5, 1, 1}, {0.5, 3, 1, 2}};
    const double enc[2][4] = {{1, 0, 0, 0}, {0, 2, 0, 5 * std::log(2.0)}};
    const double s[4] = {10, 10, 5, 5};
    std::vector<double> boxes;
    for (int i = 0; i < 2; ++i) {
      const double yc = enc[i][0] / s[0] * anchors[i][2] + anchors[i][0];
      const double xc = enc[i][1] / s[1] * anchors[i][3] + anchors[i][1];
      const double h = std::exp(enc[i][2] / s[2]) * anchors[i][2], w = std::exp(enc[i][3] / s[3]) * anchors[i][3];
      boxes.insert(boxes.end(), {yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2});
    }
    boxes.insert(boxes.end(), 4, 0.0);
    cases.push_back({"DetectionOutput", "REGULAR, decoded with the scaling factors, padded",
                     {f32({1, 2, 2}, {0.2, 0.9, 0.3, 0.6}),
                      f32({1, 2, 4}, {enc[0][0], enc[0][1], enc[0][2], enc[0][3], enc[1][0], enc[1][1], enc[1][2],
                                      enc[1][3]}),
                      fixed_static(f32({2, 4}, {0.5, 0.5, 1, 1, 0.5, 3, 1, 2}))},
                     {Param{"delta_scaling_factors", QNN_DATATYPE_FLOAT_32, {4}, {10, 10, 5, 5}},
                      scalar_f32("confidence_threshold", 0.5f), scalar_f32("iou_threshold", 0.5f),
                      scalar_u32("nms_type", 1), scalar_i32("background_class_idx", 0),
                      scalar_bool("use_bg_in_nms", false), scalar_bool("output_background", true),
                      scalar_bool("share_location", true), scalar_f32("nms_eta", 1.0f),
                      scalar_i32("detection_limit", 3)},
                     {f32({1, 3}, {0.9, 0.6, 0}), f32({1, 3, 4}, boxes), i32({1, 3}, {1, 1, 0}), u32({1}, {2})},
                     1e-5});
  }

  // FAST, zero encodings and factors 1 (boxes = the anchors' corners):
  //   a0 [0,0,1,1], a1 [0,0.1,1,1.1] (IoU 0.9/1.1 = 0.818 with a0), a2 [0,2,1,3].
  //   scores [bg, c1, c2]: a0 (0.1, 0.7, 0.2), a1 (0.1, 0.3, 0.9), a2 (0.9, 0.2, 0.4).
  //   Best non-background class: a0 c1 0.7, a1 c2 0.9, a2 c2 0.4 (the
  //   background's 0.9 ignored). One NMS: a1 kept, a0 dropped, a2 kept.
  cases.push_back({"DetectionOutput", "FAST, class-agnostic over each anchor's best class",
                   {f32({1, 3, 3}, {0.1, 0.7, 0.2, 0.1, 0.3, 0.9, 0.9, 0.2, 0.4}), f32({1, 3, 4}, std::vector<double>(12, 0.0)),
                    fixed_static(f32({1, 3, 4}, {0.5, 0.5, 1, 1, 0.5, 0.6, 1, 1, 0.5, 2.5, 1, 1}))},
                   {Param{"delta_scaling_factors", QNN_DATATYPE_FLOAT_32, {4}, {1, 1, 1, 1}},
                    scalar_f32("confidence_threshold", 0.3f), scalar_f32("iou_threshold", 0.5f),
                    scalar_u32("nms_type", 0)},
                   {f32({1, 2}, {0.9, 0.4}), f32({1, 2, 4}, {0, 0.1, 1, 1.1, 0, 2, 1, 3}), i32({1, 2}, {2, 2}),
                    u32({1}, {2})},
                   1e-5});
  // The FAST case in FLOAT_16 (the type adapter; classes and count stay
  // native integers): the same selection, values to FLOAT_16 precision.
  {
    Case c = cases.back();
    c.label = "FAST in FLOAT_16";
    for (Tensor* t : {&c.inputs[0], &c.inputs[1], &c.inputs[2], &c.outputs[0], &c.outputs[1]}) {
      t->type = QNN_DATATYPE_FLOAT_16;
    }
    c.tolerance = 2e-3;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace qnntest::opdef
