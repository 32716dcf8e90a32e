// The reduction-axes helpers (reduction_axes.h).
#include "ops/reference/reduction_axes.h"

#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

Status read_reduction_axes(const NodeDesc& node, const ParamReader& params, uint32_t rank,
                           std::vector<uint32_t>* axes) {
  const Param* p = node.find_param("axes");
  if (p != nullptr && p->is_tensor && p->dims.size() != 1) {
    return invalid(node, "parameter 'axes' dims are ", dims_str(p->dims), ", expected [M] (rank 1)");
  }
  // M is the parameter's own length; u32_tensor then checks kind, type and bytes.
  const uint32_t m = (p != nullptr && p->is_tensor) ? p->dims[0] : 1;
  if (m == 0 || m > rank) return invalid(node, "parameter 'axes' has ", m, " entries, expected 1 to rank ", rank);
  const uint32_t dims[1] = {m};
  if (Status s = params.u32_tensor("axes", dims, {}, axes); !s.ok()) return s;
  for (size_t k = 0; k < axes->size(); ++k) {
    const uint32_t a = (*axes)[k];
    if (a >= rank) return invalid(node, "parameter 'axes' element ", k, " is ", a, ", expected < rank ", rank);
    for (size_t j = 0; j < k; ++j) {
      if ((*axes)[j] == a) return invalid(node, "parameter 'axes' lists axis ", a, " twice");
    }
  }
  return Status::Ok();
}

ReductionWalk::ReductionWalk(std::span<const uint32_t> dims, std::span<const uint32_t> axes) : rank_(dims.size()) {
  std::array<bool, kReductionMaxRank> reduced{};
  for (uint32_t a : axes) reduced[a] = true;
  std::vector<uint32_t> kept;
  for (size_t i = 0; i < rank_; ++i) {
    dims_[i] = dims[i];
    if (reduced[i]) {
      reduced_count_ *= dims[i];
      kept_ones_.push_back(1);
    } else {
      kept.push_back(dims[i]);
      kept_ones_.push_back(dims[i]);
    }
  }
  dropped_ = kept.empty() ? std::vector<uint32_t>{1} : kept;
  num_out_ = product(kept, 0, kept.size());
  // Output strides of the kept axes, spread back onto the input's axes.
  const std::vector<size_t> kept_strides = row_major_strides(kept);
  for (size_t i = 0, k = 0; i < rank_; ++i) {
    if (!reduced[i]) out_strides_[i] = kept_strides[k++];
  }
}

Status plan_axes_reduction(const NodeDesc& node, size_t num_outputs, ReductionWalk* walk) {
  if (Status s = check_io_count(node, 1, 1, num_outputs); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axes", "keep_dims"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kReductionMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  std::vector<uint32_t> axes;
  if (Status s = read_reduction_axes(node, params, rank, &axes); !s.ok()) return s;
  bool keep_dims = false;
  if (Status s = params.bool_scalar("keep_dims", false, &keep_dims); !s.ok()) return s;

  *walk = ReductionWalk(x.dims, axes);
  for (size_t i = 0; i < num_outputs; ++i) {
    if (Status s = check_output_dims(node, i, walk->out_dims(keep_dims)); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
