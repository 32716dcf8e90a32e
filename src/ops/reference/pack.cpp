// Pack and UnPack (TensorFlow's stack/unstack).
//
// Pack: K inputs of one shape [d0..dN-1] -> one output with a new dim of
// size K at `axis` (default 0, in [0, N]): y[..., k, ...] = in[k][...].
// UnPack: one input -> dims[axis] outputs, each the input's slice at that
// position with the axis removed (`axis` default 0, in [0, N-1]).
//
// Type-generic (elements moved by byte size; encodings as in
// data_movement.cpp). Pack's inputs must share in[0]'s type and encoding,
// since the output has one encoding for all of them.
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

Status prepare_pack(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.inputs.empty()) return invalid(node, "has no inputs, expected at least 1");
  if (Status s = check_io_count(node, 1, node.inputs.size(), 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axis"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const TensorDesc& t = node.inputs[k];
    if (Status s = check_generic_tensor(node, t, in_label(k, "")); !s.ok()) return s;
    if (t.dims != x.dims) {
      return invalid(node, "in[", k, "] dims are ", dims_str(t.dims), ", expected in[0]'s ", dims_str(x.dims));
    }
    if (t.dtype != x.dtype) {
      return invalid(node, "in[", k, "] data type is ", dtype::name(t.dtype), ", expected in[0]'s ",
                     dtype::name(x.dtype));
    }
    if (quant::is_fixed_point(t.dtype) && (t.quant.scale != x.quant.scale || t.quant.offset != x.quant.offset)) {
      return unsupported(node, "in[", k, "] encoding (scale ", t.quant.scale, ", offset ", t.quant.offset,
                         ") differs from in[0]'s (scale ", x.quant.scale, ", offset ", x.quant.offset, ")");
    }
  }
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  const size_t rank = x.dims.size();
  if (rank + 1 > kMaxRank) return unsupported(node, "output rank ", rank + 1, " exceeds ", kMaxRank);
  uint32_t axis = 0;
  if (Status s = params.u32_scalar("axis", 0u, &axis); !s.ok()) return s;
  if (axis > rank) return invalid(node, "parameter 'axis' is ", axis, ", expected <= input rank ", rank);
  std::vector<uint32_t> out_dims = x.dims;
  out_dims.insert(out_dims.begin() + axis, static_cast<uint32_t>(node.inputs.size()));
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  MoveRoute route;
  if (Status s = route_from_input0(node, 0, {}, &route); !s.ok()) return s;

  if (kernel) {
    const size_t outer = product(x.dims, 0, axis), inner = product(x.dims, axis, rank);
    const size_t count = node.inputs.size();
    route.element.resize(y.num_elements());
    route.input.resize(y.num_elements());
    size_t o = 0;
    for (size_t a = 0; a < outer; ++a)
      for (size_t k = 0; k < count; ++k)
        for (size_t i = 0; i < inner; ++i, ++o) {
          route.input[o] = static_cast<uint32_t>(k);
          route.element[o] = static_cast<uint32_t>(a * inner + i);
        }
    std::vector<MoveRoute> routes;
    routes.push_back(std::move(route));
    *kernel = make_move_kernel(dtype::element_size(x.dtype), std::move(routes));
  }
  return Status::Ok();
}

Status prepare_unpack(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.outputs.empty()) return invalid(node, "has no outputs, expected one per slice of 'axis'");
  if (Status s = check_io_count(node, 1, 1, node.outputs.size()); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axis"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) return s;
  const size_t rank = x.dims.size();
  uint32_t axis = 0;
  if (Status s = params.u32_scalar("axis", 0u, &axis); !s.ok()) return s;
  if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);
  if (node.outputs.size() != x.dims[axis]) {
    return invalid(node, "has ", node.outputs.size(), " outputs, expected ", x.dims[axis], " (in[0] dim ", axis,
                   ")");
  }
  std::vector<uint32_t> out_dims = x.dims;
  out_dims.erase(out_dims.begin() + axis);
  std::vector<MoveRoute> routes(node.outputs.size());
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (Status s = check_generic_tensor(node, node.outputs[k], out_label(k)); !s.ok()) return s;
    if (Status s = check_output_dims(node, k, out_dims); !s.ok()) return s;
    if (Status s = route_from_input0(node, k, {}, &routes[k]); !s.ok()) return s;
  }

  if (kernel) {
    const size_t outer = product(x.dims, 0, axis), inner = product(x.dims, axis + 1, rank);
    const size_t count = x.dims[axis];
    for (size_t k = 0; k < count; ++k) {
      std::vector<uint32_t>& el = routes[k].element;
      el.resize(outer * inner);
      for (size_t a = 0; a < outer; ++a)
        for (size_t i = 0; i < inner; ++i) el[a * inner + i] = static_cast<uint32_t>((a * count + k) * inner + i);
    }
    *kernel = make_move_kernel(dtype::element_size(x.dtype), std::move(routes));
  }
  return Status::Ok();
}

}  // namespace

OpDef pack_def() { return {"Pack", &guarded_prepare<prepare_pack>, 0}; }
OpDef unpack_def() { return {"UnPack", &guarded_prepare<prepare_unpack>, 0}; }

}  // namespace openhtp::ops::detail
