// GatherNd and ScatterNd (ONNX's ops of the same names). in[1] holds index
// tuples along its last dim (k = its last dim); indices are INT_32 or
// UINT_32, negative components wrap once (+dim).
//
//   GatherNd, data rank r, indices rank q, `batch_dims` b (UINT_32, default
//     0): the first b dims of data and indices are shared batch dims; each
//     tuple picks the slice x[batch..., i0..ik-1, ...]. y dims =
//     idx dims[0..q-1) ++ x dims[b+k..r); needs b < min(q, r) and
//     1 <= k <= r - b. Type-generic (data_movement.cpp's rules).
//   ScatterNd: y = x, then for each tuple t in row-major order the slice
//     y[t..., ...] = reduce(slice, upd[t]) with `reduction` NONE 0 (replace;
//     a repeated tuple keeps the last update), ADD 1, MUL 2. upd dims =
//     idx dims[0..q-1) ++ x dims[k..r). Arithmetic, so FLOAT_32 or one plain
//     integer type; FLOAT_16 and fixed point reach it through the type adapter.
//
// run() cannot fail: a dynamic index component outside [-dim, dim-1] is
// clamped into the dim (gather.cpp's convention); static indices are
// checked at prepare.
#include <algorithm>
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

// Tuple t (of batches * tuples_per_batch) addresses the slice starting at
// element batch(t) * batch_stride + sum_j wrap(idx[t*k + j]) * strides[j];
// each slice has slice_elems elements.
struct NdPlan {
  size_t batches = 1, tuples_per_batch = 1, batch_stride = 0, slice_elems = 1, k = 1;
  std::vector<int64_t> dims;     // size of the dim component j addresses
  std::vector<size_t> strides;   // element stride of that dim
  bool is_signed = false;

  size_t slice_offset(const void* indices, size_t t) const {
    size_t off = (t / tuples_per_batch) * batch_stride;
    for (size_t j = 0; j < k; ++j) off += clamp_index(read_index(indices, is_signed, t * k + j), dims[j]) * strides[j];
    return off;
  }
};

// Ranks, k and the dims; b = batch_dims (0 for ScatterNd). *slice_dims gets
// the dims that follow the tuple index in the result (idx dims[0..q-1) ++
// x dims[b+k..r)).
Status plan_nd(const NodeDesc& node, const TensorDesc& x, const TensorDesc& idx, uint32_t b, NdPlan* plan,
               std::vector<uint32_t>* result_dims) {
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) return s;
  if (Status s = check_rank(node, idx, in_label(1, "indices"), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const size_t r = x.dims.size(), q = idx.dims.size();
  if (b >= std::min(q, r)) {
    return invalid(node, "parameter 'batch_dims' is ", b, ", expected < min(in[1] rank ", q, ", in[0] rank ", r, ")");
  }
  for (size_t d = 0; d < b; ++d) {
    if (idx.dims[d] != x.dims[d]) {
      return invalid(node, "in[1] (indices) batch dim ", d, " is ", idx.dims[d], ", expected in[0] dim ", d, " = ",
                     x.dims[d]);
    }
  }
  const size_t k = idx.dims[q - 1];
  if (k < 1 || k > r - b) {
    return invalid(node, "in[1] (indices) last dim is ", k, ", expected in [1, ", r - b,
                   "] (in[0] rank minus batch_dims)");
  }
  const std::vector<size_t> xs = row_major_strides(x.dims);
  plan->k = k;
  plan->batches = product(x.dims, 0, b);
  plan->batch_stride = product(x.dims, b, r);
  plan->tuples_per_batch = product(idx.dims, b, q - 1);
  plan->slice_elems = product(x.dims, b + k, r);
  plan->is_signed = idx.dtype == dtype::kInt32;
  for (size_t j = 0; j < k; ++j) {
    plan->dims.push_back(x.dims[b + j]);
    plan->strides.push_back(xs[b + j]);
  }
  result_dims->assign(idx.dims.begin(), idx.dims.end() - 1);
  result_dims->insert(result_dims->end(), x.dims.begin() + b + k, x.dims.end());
  const NdPlan& p = *plan;
  return check_static_indices(node, idx, in_label(1, "indices"), [&p](size_t i) { return p.dims[i % p.k]; });
}

class GatherNdKernel final : public OpKernel {
 public:
  GatherNdKernel(NdPlan plan, size_t elem, RequantizedOutput output)
      : plan_(std::move(plan)), elem_(elem), output_(std::move(output)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    uint8_t* dst = output_.target(out[0]);
    const size_t slice_bytes = plan_.slice_elems * elem_;
    const size_t n = plan_.batches * plan_.tuples_per_batch;
    for (size_t t = 0; t < n; ++t) {
      std::memcpy(dst + t * slice_bytes, src + plan_.slice_offset(in[1], t) * elem_, slice_bytes);
    }
    output_.finish(out[0]);
  }

 private:
  NdPlan plan_;
  size_t elem_;
  RequantizedOutput output_;
};

Status prepare_gather(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"batch_dims"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& idx = node.inputs[1];
  const TensorDesc& y = node.outputs[0];
  bool requant = false;
  if (Status s = check_gather_io(node, &requant); !s.ok()) return s;
  uint32_t b = 0;
  if (Status s = params.u32_scalar("batch_dims", 0u, &b); !s.ok()) return s;
  NdPlan plan;
  std::vector<uint32_t> out_dims;
  if (Status s = plan_nd(node, x, idx, b, &plan, &out_dims); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (kernel) {
    *kernel = std::make_unique<GatherNdKernel>(std::move(plan), dtype::element_size(x.dtype),
                                               RequantizedOutput(requant, x, y));
  }
  return Status::Ok();
}

template <typename T>
class ScatterNdKernel final : public OpKernel {
 public:
  ScatterNdKernel(NdPlan plan, Reduction r, size_t n) : plan_(std::move(plan)), r_(r), n_(n) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const T* upd = static_cast<const T*>(in[2]);
    T* y = static_cast<T*>(out[0]);
    std::memcpy(y, in[0], n_ * sizeof(T));
    const size_t tuples = plan_.tuples_per_batch;  // ScatterNd has no batch dims
    for (size_t t = 0; t < tuples; ++t) {
      T* dst = y + plan_.slice_offset(in[1], t);
      const T* src = upd + t * plan_.slice_elems;
      for (size_t e = 0; e < plan_.slice_elems; ++e) dst[e] = reduce(r_, dst[e], src[e]);
    }
  }

 private:
  NdPlan plan_;
  Reduction r_;
  size_t n_;
};

Status prepare_scatter(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 3, 3, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"reduction"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& idx = node.inputs[1];
  const TensorDesc& upd = node.inputs[2];
  if (Status s = check_scatter_io(node); !s.ok()) return s;
  uint32_t r = 0;
  if (Status s = params.u32_scalar("reduction", 0u, &r); !s.ok()) return s;
  if (r > 2) return invalid(node, "parameter 'reduction' is ", r, ", expected 0 (NONE), 1 (ADD) or 2 (MUL)");
  NdPlan plan;
  std::vector<uint32_t> upd_dims;
  if (Status s = plan_nd(node, x, idx, 0, &plan, &upd_dims); !s.ok()) return s;
  if (upd.dims != upd_dims) {
    return invalid(node, "in[2] (updates) dims are ", dims_str(upd.dims), ", expected ", dims_str(upd_dims),
                   " (in[1] dims without the last, then in[0] dims after the indexed ones)");
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  return make_numeric_kernel(node, x.dtype, "in[0]", kernel, [&](auto t) -> std::unique_ptr<OpKernel> {
    using T = decltype(t);
    return std::make_unique<ScatterNdKernel<T>>(std::move(plan), Reduction{r}, x.num_elements());
  });
}

}  // namespace

OpDef gather_nd_def() { return {"GatherNd", &guarded_prepare<prepare_gather>, 0}; }
OpDef scatter_nd_def() { return {"ScatterNd", &guarded_prepare<prepare_scatter>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
