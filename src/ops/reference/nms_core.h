// The per-class non-max suppression MultiClassNms and CombinedNms share
// (TensorFlow's combined_non_max_suppression without and with its limits).
//
// For one batch: for each class, the boxes with score > score_threshold in
// descending score order (ties: lower box index first), each kept unless its
// IoU with a box already kept for that class is > iou_threshold, at most
// max_per_class kept per class; then every kept (box, class) pair ordered by
// score (ties: lower class, then lower box index). A NaN score never passes
// the threshold. Buffers are sized once, at construction; run() allocates
// nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace openhtp::ops::detail {

struct NmsPick {
  float score;
  uint32_t cls;
  uint32_t box;
};

class PerClassNms {
 public:
  PerClassNms(size_t num_boxes, size_t num_classes);

  // One batch. The box of (box i, class c) is the 4 floats at
  // boxes + i * box_stride + c * class_stride (class_stride 0: one box for
  // every class); scores[i * num_classes + c]. Returns the picks in the
  // merged order above (a view of this object's buffer, valid until the next
  // call).
  std::span<const NmsPick> run(const float* boxes, size_t box_stride, size_t class_stride, const float* scores,
                               float iou_threshold, float score_threshold, size_t max_per_class);

 private:
  size_t boxes_, classes_;
  std::vector<uint32_t> order_, kept_;
  std::vector<NmsPick> picks_;
};

}  // namespace openhtp::ops::detail
