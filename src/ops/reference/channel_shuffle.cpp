// ChannelShuffle: the C channels along `axis` (default the last, NHWC's
// channel axis) are split into num_groups groups of C/G, viewed as a [G, C/G]
// matrix and transposed: y[..., k*G + g, ...] = x[..., g*(C/G) + k, ...].
// Type-generic (elements moved by byte size; encodings as in data_movement.cpp).
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"num_groups", "axis"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) return s;
  const size_t rank = x.dims.size();
  uint32_t groups = 0, axis = 0;
  if (Status s = params.u32_scalar("num_groups", std::nullopt, &groups); !s.ok()) return s;
  if (Status s = params.u32_scalar("axis", static_cast<uint32_t>(rank - 1), &axis); !s.ok()) return s;
  if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);
  const uint32_t c = x.dims[axis];
  if (groups == 0 || c % groups != 0) {
    return invalid(node, "parameter 'num_groups' is ", groups, ", expected >= 1 and dividing axis ", axis,
                   " of size ", c);
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  MoveRoute route;
  if (Status s = route_from_input0(node, 0, {}, &route); !s.ok()) return s;

  if (kernel) {
    const size_t outer = product(x.dims, 0, axis), inner = product(x.dims, axis + 1, rank);
    const size_t per_group = c / groups;
    route.element.resize(x.num_elements());
    for (size_t o = 0; o < outer; ++o)
      for (size_t k = 0; k < per_group; ++k)
        for (size_t g = 0; g < groups; ++g)
          for (size_t i = 0; i < inner; ++i) {
            const size_t dst = (o * c + k * groups + g) * inner + i;
            route.element[dst] = static_cast<uint32_t>((o * c + g * per_group + k) * inner + i);
          }
    *kernel = make_move_kernel(dtype::element_size(x.dtype), std::move(route));
  }
  return Status::Ok();
}

}  // namespace

OpDef channel_shuffle_def() { return {"ChannelShuffle", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
