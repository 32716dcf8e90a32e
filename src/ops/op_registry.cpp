// The op table, plus the small out-of-line members of op.h's structs.
#include <array>

#include "ops/op.h"
#include "ops/op_defs.h"

namespace openhtp::ops {

size_t TensorDesc::num_elements() const {
  // Rank 0 is a scalar: one element. Overflow is caught by prepare (shape.h),
  // which checks every tensor before anything trusts this number.
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

const Param* NodeDesc::find_param(std::string_view param_name) const {
  for (const Param& p : params) {
    if (p.name == param_name) return &p;
  }
  return nullptr;
}

std::span<const OpDef> all_ops() {
  // Built on first use (a function-local static) so the order is fixed here
  // and not by static-initialisation order across translation units.
  static const std::array<OpDef, 9> kOps = {
      detail::elementwise_add_def(),
      detail::elementwise_multiply_def(),
      detail::relu_def(),
      detail::fully_connected_def(),
      detail::matmul_def(),
      detail::conv2d_def(),
      detail::pool_max2d_def(),
      detail::reshape_def(),
      detail::softmax_def(),
  };
  return kOps;
}

const OpDef* find_op(std::string_view type_name) {
  for (const OpDef& def : all_ops()) {
    if (def.type_name == type_name) return &def;
  }
  return nullptr;
}

}  // namespace openhtp::ops
