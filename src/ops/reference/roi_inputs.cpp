#include "ops/reference/roi_inputs.h"

#include <cmath>
#include <cstring>

#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

Status check_roi_tensors(const NodeDesc& node) {
  if (Status s = check_io_count(node, 3, 3, 1); !s.ok()) return s;
  const TensorDesc& index = node.inputs[2];
  if (Status s = check_f32_tensor(node, node.inputs[0], in_label(0, "input")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.inputs[1], in_label(1, "rois")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, index, in_label(2, "batch_indices")); !s.ok()) return s;
  if (index.dtype != dtype::kInt32 && index.dtype != dtype::kUint32) {
    return invalid(node, "in[2] (batch_indices) data type is ", dtype::name(index.dtype),
                   ", expected INT_32 or UINT_32");
  }
  return Status::Ok();
}

Status check_roi_shapes(const NodeDesc& node) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& rois = node.inputs[1];
  const TensorDesc& index = node.inputs[2];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_rank(node, x, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, rois, in_label(1, "rois"), 2, 2, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, index, in_label(2, "batch_indices"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (Status s = check_rank(node, y, out_label(0), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (rois.dims[1] != 4) return invalid(node, "in[1] (rois) dim 1 is ", rois.dims[1], ", expected 4");
  if (index.dims[0] != rois.dims[0]) {
    return invalid(node, "in[2] (batch_indices) dim 0 is ", index.dims[0], ", expected num_rois = in[1] dim 0 = ",
                   rois.dims[0]);
  }
  const uint32_t out_dims[] = {rois.dims[0], y.dims[1], y.dims[2], x.dims[3]};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (index.static_data == nullptr) return Status::Ok();
  const bool signed_index = index.dtype == dtype::kInt32;
  for (size_t r = 0; r < index.dims[0]; ++r) {
    const int64_t v = signed_index ? int64_t{static_cast<const int32_t*>(index.static_data)[r]}
                                   : int64_t{static_cast<const uint32_t*>(index.static_data)[r]};
    if (v < 0 || v >= x.dims[0]) {
      return invalid(node, "in[2] (batch_indices) element ", r, " is ", v, ", expected 0 to batch-1 = ",
                     x.dims[0] - 1);
    }
  }
  return Status::Ok();
}

Status read_img_size_ratio(const NodeDesc& node, float* height_ratio, float* width_ratio) {
  const Param* p = node.find_param("img_size_ratio");
  if (p == nullptr) return invalid(node, "parameter 'img_size_ratio' is mandatory but absent");
  if (!p->is_tensor || p->dtype != dtype::kFloat32 || p->dims.size() != 1 || p->dims[0] != 2 ||
      p->data.size() != 2 * sizeof(float)) {
    return invalid(node, "parameter 'img_size_ratio' must be a FLOAT_32 tensor of shape [2]");
  }
  float v[2];
  std::memcpy(v, p->data.data(), sizeof v);
  if (!(v[0] > 0.0f) || !(v[1] > 0.0f) || !std::isfinite(v[0]) || !std::isfinite(v[1])) {
    return invalid(node, "parameter 'img_size_ratio' is [", v[0], ",", v[1], "], expected both finite and > 0");
  }
  *height_ratio = v[0];
  *width_ratio = v[1];
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
