// The shared per-class non-max suppression (nms_core.h).
#include "ops/reference/nms_core.h"

#include <algorithm>
#include <cmath>

#include "ops/reference/box_math.h"

namespace openhtp::ops::detail {

PerClassNms::PerClassNms(size_t num_boxes, size_t num_classes)
    : boxes_(num_boxes), classes_(num_classes), order_(num_boxes), kept_(num_boxes) {
  picks_.reserve(num_boxes * num_classes);
}

std::span<const NmsPick> PerClassNms::run(const float* boxes, size_t box_stride, size_t class_stride,
                                          const float* scores, float iou_threshold, float score_threshold,
                                          size_t max_per_class) {
  const size_t K = classes_;
  picks_.clear();
  for (size_t c = 0; c < K; ++c) {
    // Candidates first (a NaN score fails the comparison), so the sort sees
    // only ordered keys; the index breaks ties, so the order is total.
    size_t n = 0;
    for (size_t i = 0; i < boxes_; ++i) {
      if (scores[i * K + c] > score_threshold) order_[n++] = static_cast<uint32_t>(i);
    }
    std::sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(n), [&](uint32_t p, uint32_t q) {
      const float sp = scores[p * K + c], sq = scores[q * K + c];
      return sp > sq || (sp == sq && p < q);
    });
    size_t n_kept = 0;
    for (size_t j = 0; j < n && n_kept < max_per_class; ++j) {
      const uint32_t idx = order_[j];
      const float* box = boxes + idx * box_stride + c * class_stride;
      bool keep = true;
      for (size_t k = 0; k < n_kept && keep; ++k) {
        keep = !(box_iou(box, boxes + kept_[k] * box_stride + c * class_stride) > iou_threshold);
      }
      if (!keep) continue;
      kept_[n_kept++] = idx;
      picks_.push_back({scores[idx * K + c], static_cast<uint32_t>(c), idx});
    }
  }
  std::sort(picks_.begin(), picks_.end(), [](const NmsPick& p, const NmsPick& q) {
    if (p.score != q.score) return p.score > q.score;
    if (p.cls != q.cls) return p.cls < q.cls;
    return p.box < q.box;
  });
  return picks_;
}

}  // namespace openhtp::ops::detail
