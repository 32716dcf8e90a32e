// Tile: out dim i = in dim i * multiples[i]; y[j] = x[j mod in dims]
// (ONNX Tile). Type-generic (elements moved by byte size; encodings as in
// data_movement.cpp) through the indexing family's move table.
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
  if (Status s = params.check_names({"multiples"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) return s;
  const size_t rank = x.dims.size();
  const Param* p = node.find_param("multiples");
  if (p != nullptr && p->is_tensor && p->dims.size() == 1 && p->dims[0] != rank) {
    return invalid(node, "parameter 'multiples' has ", p->dims[0], " entries, expected rank ", rank);
  }
  const uint32_t mult_dims[] = {static_cast<uint32_t>(rank)};
  std::vector<uint32_t> mult;
  if (Status s = params.u32_tensor("multiples", mult_dims, {}, &mult); !s.ok()) return s;
  std::vector<uint32_t> out_dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (mult[i] == 0) return invalid(node, "parameter 'multiples' element ", i, " is 0, expected >= 1");
    const uint64_t d = uint64_t{x.dims[i]} * mult[i];
    if (d > kMaxElements) {
      return unsupported(node, "out[0] dim ", i, " would be ", d, ", more than ", kMaxElements, " elements");
    }
    out_dims[i] = static_cast<uint32_t>(d);
  }
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  MoveRoute route;
  if (Status s = route_from_input0(node, 0, {}, &route); !s.ok()) return s;

  if (kernel) {
    const std::vector<size_t> in_strides = row_major_strides(x.dims);
    const size_t n = y.num_elements();
    route.element.resize(n);
    std::vector<uint32_t> idx(rank, 0);  // the output index, advanced as an odometer
    for (size_t o = 0; o < n; ++o) {
      size_t src = 0;
      for (size_t i = 0; i < rank; ++i) src += (idx[i] % x.dims[i]) * in_strides[i];
      route.element[o] = static_cast<uint32_t>(src);
      for (size_t k = rank; k-- > 0;) {
        if (++idx[k] < out_dims[k]) break;
        idx[k] = 0;
      }
    }
    *kernel = make_move_kernel(dtype::element_size(x.dtype), std::move(route));
  }
  return Status::Ok();
}

}  // namespace

OpDef tile_def() { return {"Tile", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
