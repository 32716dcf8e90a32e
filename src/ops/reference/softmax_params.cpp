#include "ops/reference/softmax_params.h"

#include <optional>
#include <string_view>

#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

Status read_softmax_node(const NodeDesc& node, bool axis_defaults_to_last, SoftmaxShape* out) {
  constexpr size_t kMaxRank = 5;  // HTP: rank <= 5
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {""};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axis", "beta"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) return s;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  uint32_t axis = 0;
  const std::optional<uint32_t> default_axis = axis_defaults_to_last ? std::optional<uint32_t>(rank - 1) : std::nullopt;
  if (Status s = params.u32_scalar("axis", default_axis, &axis); !s.ok()) return s;
  if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);
  if (Status s = params.f32_scalar("beta", 1.0f, &out->beta); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  out->outer = product(x.dims, 0, axis);
  out->len = x.dims[axis];
  out->inner = product(x.dims, axis + 1, rank);
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
