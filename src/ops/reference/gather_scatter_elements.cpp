// GatherElements and ScatterElements (ONNX's ops of the same names), along
// `axis` (INT_32 or UINT_32 scalar, default 0, negative counts from the end).
// The index tensor in[1] has the data's rank and, on every other axis, at
// most the data's size; indices are INT_32 or UINT_32, negative ones wrap
// once (+dim).
//
//   GatherElements: y[p] = x[p with p[axis] = idx[p]], y dims = idx dims.
//     Type-generic (data_movement.cpp's rules).
//   ScatterElements: y = x, then for every position p of idx, in row-major
//     order, y[p with p[axis] = idx[p]] = reduce(that element, upd[p]) with
//     `reduction` NONE 0 (replace; a repeated index keeps the last update),
//     ADD 1, MUL 2, MAX 3. Arithmetic, so FLOAT_32 or one plain integer type;
//     FLOAT_16 and fixed point reach it through the type adapter.
//
// run() cannot fail: a dynamic index outside [-dim, dim-1] is clamped into
// the dim (gather.cpp's convention); static indices are checked at prepare.
#include <array>
#include <cstring>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

// Where idx element o lands in the data: the data offset of o's position
// with the axis coordinate left at 0; the axis coordinate is added per
// element. Walked with an odometer over idx's dims.
struct ElementWalk {
  std::vector<uint32_t> idx_dims;
  std::vector<size_t> data_strides;
  size_t axis = 0;
  int64_t axis_dim = 0;

  template <typename Fn>
  void for_each(const void* indices, bool is_signed, Fn fn) const {
    const size_t rank = idx_dims.size();
    const size_t n = product(idx_dims, 0, rank);
    std::array<uint32_t, kMaxRank> p{};
    size_t base = 0;  // data offset of p with p[axis] = 0
    for (size_t o = 0; o < n; ++o) {
      const size_t k = clamp_index(read_index(indices, is_signed, o), axis_dim);
      fn(o, base + k * data_strides[axis]);
      for (size_t ax = rank; ax-- > 0;) {
        if (ax != axis) base += data_strides[ax];
        if (++p[ax] < idx_dims[ax]) break;
        if (ax != axis) base -= data_strides[ax] * idx_dims[ax];
        p[ax] = 0;
      }
    }
  }
};

// Shared rules: ranks, the axis, idx's dims against the data's.
Status plan_walk(const NodeDesc& node, const TensorDesc& x, const TensorDesc& idx, ElementWalk* walk) {
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) return s;
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  size_t axis = 0;
  if (Status s = axis_param(node, "axis", 0, rank, &axis); !s.ok()) return s;
  if (idx.dims.size() != x.dims.size()) {
    return invalid(node, "in[1] (indices) rank is ", idx.dims.size(), ", expected in[0]'s rank ", rank);
  }
  for (size_t d = 0; d < x.dims.size(); ++d) {
    if (d != axis && idx.dims[d] > x.dims[d]) {
      return invalid(node, "in[1] (indices) dim ", d, " is ", idx.dims[d], ", expected <= in[0] dim ", d, " = ",
                     x.dims[d]);
    }
  }
  const int64_t dim = x.dims[axis];
  if (Status s = check_static_indices(node, idx, in_label(1, "indices"), [dim](size_t) { return dim; }); !s.ok())
    return s;
  walk->idx_dims = idx.dims;
  walk->data_strides = row_major_strides(x.dims);
  walk->axis = axis;
  walk->axis_dim = dim;
  return Status::Ok();
}

class GatherElementsKernel final : public OpKernel {
 public:
  GatherElementsKernel(ElementWalk walk, bool is_signed, size_t elem, RequantizedOutput output)
      : walk_(std::move(walk)), signed_(is_signed), elem_(elem), output_(std::move(output)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    uint8_t* dst = output_.target(out[0]);
    walk_.for_each(in[1], signed_, [&](size_t o, size_t s) { std::memcpy(dst + o * elem_, src + s * elem_, elem_); });
    output_.finish(out[0]);
  }

 private:
  ElementWalk walk_;
  bool signed_;
  size_t elem_;
  RequantizedOutput output_;
};

Status prepare_gather(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({"axis"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& idx = node.inputs[1];
  const TensorDesc& y = node.outputs[0];
  bool requant = false;
  if (Status s = check_gather_io(node, &requant); !s.ok()) return s;
  ElementWalk walk;
  if (Status s = plan_walk(node, x, idx, &walk); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, idx.dims); !s.ok()) return s;
  if (kernel) {
    *kernel = std::make_unique<GatherElementsKernel>(std::move(walk), idx.dtype == dtype::kInt32,
                                                     dtype::element_size(x.dtype), RequantizedOutput(requant, x, y));
  }
  return Status::Ok();
}

template <typename T>
class ScatterElementsKernel final : public OpKernel {
 public:
  ScatterElementsKernel(ElementWalk walk, bool is_signed, Reduction r, size_t n)
      : walk_(std::move(walk)), signed_(is_signed), r_(r), n_(n) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const T* upd = static_cast<const T*>(in[2]);
    T* y = static_cast<T*>(out[0]);
    std::memcpy(y, in[0], n_ * sizeof(T));
    walk_.for_each(in[1], signed_, [&](size_t o, size_t d) { y[d] = reduce(r_, y[d], upd[o]); });
  }

 private:
  ElementWalk walk_;
  bool signed_;
  Reduction r_;
  size_t n_;
};

Status prepare_scatter(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 3, 3, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({"axis", "reduction"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& idx = node.inputs[1];
  const TensorDesc& upd = node.inputs[2];
  if (Status s = check_scatter_io(node); !s.ok()) return s;
  ElementWalk walk;
  if (Status s = plan_walk(node, x, idx, &walk); !s.ok()) return s;
  if (upd.dims != idx.dims) {
    return invalid(node, "in[2] (updates) dims are ", dims_str(upd.dims), ", expected in[1]'s ", dims_str(idx.dims));
  }
  uint32_t r = 0;
  if (Status s = ParamReader(node).u32_scalar("reduction", 0u, &r); !s.ok()) return s;
  if (r > 3) return invalid(node, "parameter 'reduction' is ", r, ", expected 0 (NONE), 1 (ADD), 2 (MUL) or 3 (MAX)");
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  const bool is_signed = idx.dtype == dtype::kInt32;
  return make_numeric_kernel(node, x.dtype, "in[0]", kernel, [&](auto t) -> std::unique_ptr<OpKernel> {
    using T = decltype(t);
    return std::make_unique<ScatterElementsKernel<T>>(std::move(walk), is_signed, Reduction{r}, x.num_elements());
  });
}

}  // namespace

OpDef gather_elements_def() { return {"GatherElements", &guarded_prepare<prepare_gather>, 0}; }
OpDef scatter_elements_def() {
  return {"ScatterElements", &guarded_prepare<prepare_scatter>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
