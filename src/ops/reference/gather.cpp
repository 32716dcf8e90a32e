// Gather: y[outer..., j..., inner...] = x[outer..., wrap(idx[j...]), inner...]
// along `axis` (an INT_32 scalar, negative counts from the end); the output
// rank is rank(in0) + rank(in1) - 1. Indices are INT_32 or UINT_32; negative
// ones wrap once (+dim). Type-generic for in[0] (data_movement.cpp).
//
// run() cannot fail, so an index still outside [0, dim-1] after wrapping is
// clamped into it (it then reads the first or last slice) instead of reading
// out of bounds. Static indices are checked at prepare time instead.
#include <cstring>

#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;

class GatherKernel final : public OpKernel {
 public:
  GatherKernel(size_t outer, size_t dim, size_t num_indices, size_t inner_bytes, bool signed_indices,
               RequantizedOutput output)
      : outer_(outer), dim_(dim), num_indices_(num_indices), inner_bytes_(inner_bytes),
        signed_(signed_indices), output_(std::move(output)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    uint8_t* dst = output_.target(out[0]);
    for (size_t o = 0; o < outer_; ++o) {
      const uint8_t* table = src + o * dim_ * inner_bytes_;
      for (size_t j = 0; j < num_indices_; ++j) {
        const size_t k = clamp_index(read_index(in[1], signed_, j), static_cast<int64_t>(dim_));
        std::memcpy(dst, table + k * inner_bytes_, inner_bytes_);
        dst += inner_bytes_;
      }
    }
    output_.finish(out[0]);
  }

 private:
  size_t outer_, dim_, num_indices_, inner_bytes_;
  bool signed_;
  RequantizedOutput output_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({"axis"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& idx = node.inputs[1];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, idx, in_label(1, "indices")); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (idx.dtype != dtype::kInt32 && idx.dtype != dtype::kUint32) {
    return invalid(node, "in[1] (indices) data type is ", dtype::name(idx.dtype), ", expected INT_32 or UINT_32");
  }
  bool requant = false;
  if (Status s = check_movable(node, x, in_label(0, ""), y, out_label(0), &requant); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const int64_t rank = static_cast<int64_t>(x.dims.size());

  // `axis` is INT_32 (not u32 like most axes), so it is read here.
  const Param* p = node.find_param("axis");
  if (p == nullptr) return invalid(node, "mandatory parameter 'axis' is missing");
  if (p->is_tensor) return invalid(node, "parameter 'axis' is a tensor, expected an INT_32 scalar");
  if (p->dtype != dtype::kInt32 && p->dtype != dtype::kUint32 && p->dtype != dtype::kInt8 &&
      p->dtype != dtype::kInt16 && p->dtype != dtype::kInt64) {
    return invalid(node, "parameter 'axis' has data type ", dtype::name(p->dtype), ", expected INT_32");
  }
  int64_t axis = p->i;
  if (axis < -rank || axis >= rank) {
    return invalid(node, "parameter 'axis' is ", axis, ", expected in [", -rank, ", ", rank - 1, "]");
  }
  if (axis < 0) axis += rank;
  const size_t a = static_cast<size_t>(axis);
  const int64_t dim = x.dims[a];

  std::vector<uint32_t> out_dims(x.dims.begin(), x.dims.begin() + a);
  out_dims.insert(out_dims.end(), idx.dims.begin(), idx.dims.end());
  out_dims.insert(out_dims.end(), x.dims.begin() + a + 1, x.dims.end());
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  const bool is_signed = idx.dtype == dtype::kInt32;
  if (idx.static_data != nullptr) {
    for (size_t i = 0; i < idx.num_elements(); ++i) {
      const int64_t v = read_index(idx.static_data, is_signed, i);
      if (v < -dim || v >= dim) {
        return invalid(node, "in[1] (indices) element ", i, " is ", v, ", expected in [", -dim, ", ", dim - 1,
                       "] for axis ", a, " of size ", dim);
      }
    }
  }

  if (kernel) {
    const size_t inner_bytes = product(x.dims, a + 1, x.dims.size()) * dtype::element_size(x.dtype);
    *kernel = std::make_unique<GatherKernel>(product(x.dims, 0, a), static_cast<size_t>(dim), idx.num_elements(),
                                             inner_bytes, is_signed, RequantizedOutput(requant, x, y));
  }
  return Status::Ok();
}

}  // namespace

OpDef gather_def() { return {"Gather", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
