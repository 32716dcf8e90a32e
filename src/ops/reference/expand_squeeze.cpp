// ExpandDims and Squeeze: shape-only ops; the elements are copied whole (or
// requantized when out[0]'s encoding differs, as in data_movement.cpp).
//
// ExpandDims inserts size-1 dims. It takes `axes` (UINT_32 tensor [M]: the
// positions of the new dims in the output, rank N+M) or the older scalar
// `axis` (one new dim at that position, in [0, N]); QnnOpDef.h names both,
// so exactly one must be given.
// Squeeze removes size-1 dims: those listed in `axes` (UINT_32 tensor [M],
// each naming a dim of size 1), or every size-1 dim when `axes` is absent
// (ONNX's default).
#include <algorithm>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

// A variable-length `axes` tensor: its length is taken from the param itself.
Status read_axes(const NodeDesc& node, std::vector<uint32_t>* axes) {
  const Param* p = node.find_param("axes");
  if (p != nullptr && p->is_tensor && p->dims.size() != 1) {
    return invalid(node, "parameter 'axes' has rank ", p->dims.size(), ", expected a 1-D tensor");
  }
  const uint32_t dims[] = {p != nullptr && p->is_tensor ? p->dims[0] : 0u};
  return ParamReader(node).u32_tensor("axes", dims, {}, axes);
}

Status finish(const NodeDesc& node, std::span<const uint32_t> out_dims, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  MoveRoute route;
  if (Status s = route_from_input0(node, 0, {}, &route); !s.ok()) return s;
  if (kernel) {
    std::vector<MoveRoute> routes;
    routes.push_back(std::move(route));
    *kernel = make_move_kernel(dtype::element_size(node.inputs[0].dtype), std::move(routes));
  }
  return Status::Ok();
}

Status check_tensors(const NodeDesc& node) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, node.inputs[0], in_label(0, "")); !s.ok()) return s;
  return check_generic_tensor(node, node.outputs[0], out_label(0));
}

Status prepare_expand(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_tensors(node); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axes", "axis"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const bool has_axes = node.find_param("axes") != nullptr, has_axis = node.find_param("axis") != nullptr;
  if (has_axes == has_axis) {
    return invalid(node, has_axes ? "parameters 'axes' and 'axis' are both given, expected one of them"
                                  : "mandatory parameter 'axes' (or 'axis') is missing");
  }
  std::vector<uint32_t> axes;
  if (has_axes) {
    if (Status s = read_axes(node, &axes); !s.ok()) return s;
    if (axes.empty()) return invalid(node, "parameter 'axes' is empty, expected at least one axis");
  } else {
    uint32_t a = 0;
    if (Status s = params.u32_scalar("axis", std::nullopt, &a); !s.ok()) return s;
    axes.push_back(a);
  }
  const size_t out_rank = x.dims.size() + axes.size();
  if (out_rank > kMaxRank) return unsupported(node, "output rank ", out_rank, " exceeds ", kMaxRank);
  std::vector<bool> is_new(out_rank, false);
  for (size_t k = 0; k < axes.size(); ++k) {
    if (axes[k] >= out_rank) {
      return invalid(node, "parameter 'axes' element ", k, " is ", axes[k], ", expected < output rank ", out_rank);
    }
    if (is_new[axes[k]]) return invalid(node, "parameter 'axes' repeats axis ", axes[k]);
    is_new[axes[k]] = true;
  }
  std::vector<uint32_t> out_dims;
  size_t next = 0;
  for (size_t i = 0; i < out_rank; ++i) out_dims.push_back(is_new[i] ? 1u : x.dims[next++]);
  return finish(node, out_dims, kernel);
}

Status prepare_squeeze(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_tensors(node); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({"axes"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const size_t rank = x.dims.size();
  std::vector<bool> drop(rank, false);
  if (node.find_param("axes") != nullptr) {
    std::vector<uint32_t> axes;
    if (Status s = read_axes(node, &axes); !s.ok()) return s;
    for (size_t k = 0; k < axes.size(); ++k) {
      if (axes[k] >= rank) {
        return invalid(node, "parameter 'axes' element ", k, " is ", axes[k], ", expected < rank ", rank);
      }
      if (drop[axes[k]]) return invalid(node, "parameter 'axes' repeats axis ", axes[k]);
      if (x.dims[axes[k]] != 1) {
        return invalid(node, "parameter 'axes' element ", k, " names axis ", axes[k], " of size ", x.dims[axes[k]],
                       ", expected a dim of size 1");
      }
      drop[axes[k]] = true;
    }
  } else {
    for (size_t i = 0; i < rank; ++i) drop[i] = x.dims[i] == 1;
  }
  std::vector<uint32_t> out_dims;
  for (size_t i = 0; i < rank; ++i) {
    if (!drop[i]) out_dims.push_back(x.dims[i]);
  }
  return finish(node, out_dims, kernel);
}

}  // namespace

OpDef expand_dims_def() { return {"ExpandDims", &guarded_prepare<prepare_expand>, 0}; }
OpDef squeeze_def() { return {"Squeeze", &guarded_prepare<prepare_squeeze>, 0}; }

}  // namespace openhtp::ops::detail
