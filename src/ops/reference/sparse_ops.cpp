// The sparse ops: CreateSparse, GetSparseIndices, GetSparseValues and
// SparseToDense, on QNN sparse tensors (QNN_TENSOR_DATA_FORMAT_SPARSE,
// layout HYBRID_COO). None has parameters in QnnOpDef.h.
//
// A sparse tensor of dims [d0..d(r-1)] with S sparse dims and K specified
// entries (Qnn_SparseLayoutHybridCoo_t {numSpecifiedElements K,
// numSparseDimensions S}, both on the tensor) is
//   indices [K, S]: entry k's position along the first S dims, and
//   values [K, d(S)..d(r-1)]: the dense block at that position ([K] when S = r).
// Only NATIVE tensors are sparse here (the QNN layer refuses sparse graph
// inputs, outputs and static tensors), so a sparse tensor always runs from a
// CreateSparse to the other three ops. Its storage is this emulator's own
// (ops::Sparsity in op.h: K*S INT_32 indices, then the K*B values).
//
//   CreateSparse     in[0] indices [K, S] INT_32 / UINT_32
//                    in[1] values [K, d(S)..d(r-1)], any data type
//                    out[0] the sparse tensor: dims [d0..d(r-1)], its sparse
//                          params K and S, in[1]'s data type and encoding
//   GetSparseIndices in[0] sparse -> out[0] [K, S] INT_32 / UINT_32
//   GetSparseValues  in[0] sparse -> out[0] [K, d(S)..d(r-1)], in[0]'s type
//   SparseToDense    in[0] sparse -> out[0] dims [d0..d(r-1)], in[0]'s type:
//                          every position of an entry holds its block, every
//                          other element is 0 (fixed point: the code of real
//                          0, q = -offset)
//
// QNN's op definitions of these four were not in the references this
// backend was written from; the one fact found (QNN's ONNX converter for
// spconv sparse convolutions) is that CreateSparse takes two inputs, both
// [K, ...], with the tensor's sparse params set from {K, S}. The rest are
// this backend's decisions:
// - Input order: indices in[0], values in[1] (TensorFlow's SparseTensor
//   order: indices, values, shape; the dims come from out[0], as QNN dims
//   are static).
// - Types: the values, the sparse tensor and the values/dense outputs have
//   one data type (else invalid) and, for fixed point, one per-tensor
//   encoding (a different one would need requantizing: unsupported;
//   per-channel encodings are unsupported, as in every data-movement op).
//   The ops move elements as bytes, so every fixed-size type works, exactly.
// - Out-of-range indices follow the index ops here (indexing_util.h): a
//   STATIC index outside [-dim, dim-1] is refused at prepare; a dynamic one is
//   wrapped once if negative, then clamped into [0, dim-1], at CreateSparse,
//   so the stored indices (and what GetSparseIndices returns) are always in
//   range; SparseToDense clamps again, so run() never writes outside out[0].
// - Duplicates: entries are kept as given (K rows, in order, duplicates
//   included; GetSparseIndices/Values return them unchanged); SparseToDense
//   writes them in order, so the last entry at a position wins — ScatterNd's
//   rule here for a repeated index without reduction, and pure data movement
//   (a sum would need arithmetic in every type and the type adapter).
// - Limits: the dense shape is within the element limit of every tensor
//   (shape.h kMaxElements), so indices fit in INT_32.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

// The shape of a sparse tensor: K entries over the first S dims, blocks of
// `block` elements of elem_bytes.
struct SparseShape {
  size_t k = 0, s = 0, block = 1, elem_bytes = 0;
  std::vector<uint32_t> dims;  // the dense dims [d0..d(r-1)]
  size_t index_bytes() const { return k * s * sizeof(int32_t); }
  size_t value_bytes() const { return k * block * elem_bytes; }
};

SparseShape shape_of(const TensorDesc& t) {
  SparseShape g;
  g.k = t.sparse.specified;
  g.s = t.sparse.sparse_dims;
  g.block = product(t.dims, g.s, t.dims.size());
  g.elem_bytes = dtype::element_size(t.dtype);
  g.dims = t.dims;
  return g;
}

// The dims of a sparse tensor's values: [K, d(S)..d(r-1)].
std::vector<uint32_t> values_dims(const TensorDesc& t) {
  std::vector<uint32_t> d{t.sparse.specified};
  d.insert(d.end(), t.dims.begin() + t.sparse.sparse_dims, t.dims.end());
  return d;
}

// A dense tensor of a sparse op (`t` must not be sparse).
Status check_dense(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  if (t.present && t.sparse.is_sparse) {
    return invalid(node, label, " is a sparse tensor (dataFormat SPARSE), expected a dense one");
  }
  return check_generic_tensor(node, t, label);
}

// The sparse tensor of a sparse op: sparse, a layout that fits its dims (the
// QNN layer has checked this already; the ops do not rely on it), and the
// tensor rules of the data-movement ops.
Status check_sparse(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  if (!t.present) return invalid(node, label, " is mandatory but absent (NULL tensor)");
  if (!t.sparse.is_sparse) {
    return invalid(node, label, " is a dense tensor, expected a sparse one (dataFormat SPARSE, the output of ",
                   "CreateSparse)");
  }
  if (Status s = check_generic_tensor(node, t, label); !s.ok()) return s;
  const Sparsity& sp = t.sparse;
  if (sp.sparse_dims == 0 || sp.sparse_dims > t.dims.size()) {
    return invalid(node, label, " has ", sp.sparse_dims, " sparse dims, expected 1 to its rank ", t.dims.size());
  }
  const uint64_t positions = product(t.dims, 0, sp.sparse_dims);
  if (sp.specified == 0 || sp.specified > positions) {
    return invalid(node, label, " has ", sp.specified, " specified elements, expected 1 to ", positions,
                   " (the positions of its sparse dims)");
  }
  return Status::Ok();
}

// `b` (labelled b_label) holds elements of `a`'s type and encoding, moved as bytes.
Status check_same_type(const NodeDesc& node, const TensorDesc& a, const std::string& a_label, const TensorDesc& b,
                       const std::string& b_label) {
  if (a.dtype != b.dtype) {
    return invalid(node, b_label, " data type is ", dtype::name(b.dtype), ", expected ", dtype::name(a.dtype), " as ",
                   a_label);
  }
  if (quant::is_fixed_point(a.dtype) && (a.quant.scale != b.quant.scale || a.quant.offset != b.quant.offset)) {
    return unsupported(node, b_label, " encoding (scale ", b.quant.scale, ", offset ", b.quant.offset,
                       ") differs from ", a_label, "'s (scale ", a.quant.scale, ", offset ", a.quant.offset,
                       "); the sparse ops move elements without requantizing");
  }
  return Status::Ok();
}

Status check_no_params(const NodeDesc& node) { return ParamReader(node).check_names({}); }

// ---- CreateSparse ------------------------------------------------------

class CreateSparseKernel final : public OpKernel {
 public:
  CreateSparseKernel(SparseShape g, bool is_signed) : g_(std::move(g)), signed_(is_signed) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    auto* stored = static_cast<uint8_t*>(out[0]);
    for (size_t k = 0; k < g_.k; ++k) {
      for (size_t s = 0; s < g_.s; ++s) {
        const size_t i = k * g_.s + s;
        const auto v = static_cast<int32_t>(clamp_index(read_index(in[0], signed_, i), g_.dims[s]));
        std::memcpy(stored + i * sizeof(int32_t), &v, sizeof v);
      }
    }
    std::memcpy(stored + g_.index_bytes(), in[1], g_.value_bytes());
  }

 private:
  SparseShape g_;
  bool signed_;
};

Status prepare_create_sparse(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.inputs.size() != 2) return invalid(node, "has ", node.inputs.size(), " inputs, expected 2");
  if (node.outputs.size() != 1) return invalid(node, "has ", node.outputs.size(), " outputs, expected 1");
  if (Status s = check_no_params(node); !s.ok()) return s;
  const TensorDesc& idx = node.inputs[0];
  const TensorDesc& values = node.inputs[1];
  const TensorDesc& y = node.outputs[0];
  if (idx.present && idx.sparse.is_sparse) return check_dense(node, idx, in_label(0, "indices"));
  if (Status s = check_index_tensor(node, idx, in_label(0, "indices")); !s.ok()) return s;
  if (Status s = check_dense(node, values, in_label(1, "values")); !s.ok()) return s;
  if (Status s = check_sparse(node, y, out_label(0)); !s.ok()) return s;
  if (Status s = check_same_type(node, values, in_label(1, "values"), y, out_label(0)); !s.ok()) return s;
  const uint32_t expect_idx[] = {y.sparse.specified, y.sparse.sparse_dims};
  if (idx.dims != std::vector<uint32_t>(expect_idx, expect_idx + 2)) {
    return invalid(node, "in[0] (indices) dims are ", dims_str(idx.dims), ", expected ", dims_str(expect_idx),
                   " (out[0]'s specified elements K and sparse dims S)");
  }
  if (const std::vector<uint32_t> vd = values_dims(y); values.dims != vd) {
    return invalid(node, "in[1] (values) dims are ", dims_str(values.dims), ", expected ", dims_str(vd),
                   " (K, then out[0]'s dims after its ", y.sparse.sparse_dims, " sparse dims)");
  }
  const size_t n_sparse = y.sparse.sparse_dims;
  if (Status s = check_static_indices(node, idx, in_label(0, "indices"),
                                      [&](size_t i) { return int64_t{y.dims[i % n_sparse]}; });
      !s.ok()) {
    return s;
  }
  if (kernel) *kernel = std::make_unique<CreateSparseKernel>(shape_of(y), idx.dtype == dtype::kInt32);
  return Status::Ok();
}

// ---- GetSparseIndices / GetSparseValues -------------------------------

// Copies `bytes` from offset `from` of the sparse storage.
class CopyPartKernel final : public OpKernel {
 public:
  CopyPartKernel(size_t from, size_t bytes) : from_(from), bytes_(bytes) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    std::memcpy(out[0], static_cast<const uint8_t*>(in[0]) + from_, bytes_);
  }

 private:
  size_t from_, bytes_;
};

Status check_one_to_one(const NodeDesc& node) {
  if (node.inputs.size() != 1) return invalid(node, "has ", node.inputs.size(), " inputs, expected 1");
  if (node.outputs.size() != 1) return invalid(node, "has ", node.outputs.size(), " outputs, expected 1");
  if (Status s = check_no_params(node); !s.ok()) return s;
  if (Status s = check_sparse(node, node.inputs[0], in_label(0, "")); !s.ok()) return s;
  return check_dense(node, node.outputs[0], out_label(0));
}

Status prepare_get_sparse_indices(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_one_to_one(node); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (y.dtype != dtype::kInt32 && y.dtype != dtype::kUint32) {
    return invalid(node, "out[0] data type is ", dtype::name(y.dtype), ", expected INT_32 or UINT_32");
  }
  const uint32_t expect[] = {x.sparse.specified, x.sparse.sparse_dims};
  if (Status s = check_output_dims(node, 0, expect); !s.ok()) return s;
  // Stored indices are in range, so non-negative: the same bits as UINT_32.
  const SparseShape g = shape_of(x);
  if (kernel) *kernel = std::make_unique<CopyPartKernel>(0, g.index_bytes());
  return Status::Ok();
}

Status prepare_get_sparse_values(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_one_to_one(node); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_same_type(node, x, in_label(0, ""), y, out_label(0)); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, values_dims(x)); !s.ok()) return s;
  const SparseShape g = shape_of(x);
  if (kernel) *kernel = std::make_unique<CopyPartKernel>(g.index_bytes(), g.value_bytes());
  return Status::Ok();
}

// ---- SparseToDense -----------------------------------------------------

class SparseToDenseKernel final : public OpKernel {
 public:
  SparseToDenseKernel(SparseShape g, std::vector<uint8_t> zero)
      : g_(std::move(g)),
        zero_(std::move(zero)),
        zero_bytes_(std::all_of(zero_.begin(), zero_.end(), [](uint8_t b) { return b == 0; })),
        n_(product(g_.dims, 0, g_.dims.size())),
        strides_(row_major_strides(g_.dims)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    auto* y = static_cast<uint8_t*>(out[0]);
    const auto* stored = static_cast<const uint8_t*>(in[0]);
    if (zero_bytes_) {
      std::memset(y, 0, n_ * g_.elem_bytes);
    } else {
      for (size_t i = 0; i < n_; ++i) std::memcpy(y + i * g_.elem_bytes, zero_.data(), g_.elem_bytes);
    }
    const size_t block_bytes = g_.block * g_.elem_bytes;
    const uint8_t* values = stored + g_.index_bytes();
    // In entry order: of two entries at one position the later one wins.
    for (size_t k = 0; k < g_.k; ++k) {
      size_t at = 0;
      for (size_t s = 0; s < g_.s; ++s) {
        int32_t v;
        std::memcpy(&v, stored + (k * g_.s + s) * sizeof(int32_t), sizeof v);
        at += clamp_index(v, g_.dims[s]) * strides_[s];  // stored in range; clamped so run() stays inside y
      }
      std::memcpy(y + at * g_.elem_bytes, values + k * block_bytes, block_bytes);
    }
  }

 private:
  SparseShape g_;
  std::vector<uint8_t> zero_;  // one element of real 0 in out[0]'s type
  bool zero_bytes_;             // ... made of zero bytes (every type but offset fixed point)
  size_t n_;                    // out[0]'s elements
  std::vector<size_t> strides_;
};

Status prepare_sparse_to_dense(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_one_to_one(node); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_same_type(node, x, in_label(0, ""), y, out_label(0)); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<SparseToDenseKernel>(shape_of(x), zero_element(y));
  return Status::Ok();
}

}  // namespace

// Native types: the sparse ops move elements as bytes (no type adapter).
OpDef create_sparse_def() {
  return {"CreateSparse", &guarded_prepare<prepare_create_sparse>, op_flags::kSparseTensors};
}
OpDef get_sparse_indices_def() {
  return {"GetSparseIndices", &guarded_prepare<prepare_get_sparse_indices>, op_flags::kSparseTensors};
}
OpDef get_sparse_values_def() {
  return {"GetSparseValues", &guarded_prepare<prepare_get_sparse_values>, op_flags::kSparseTensors};
}
OpDef sparse_to_dense_def() {
  return {"SparseToDense", &guarded_prepare<prepare_sparse_to_dense>, op_flags::kSparseTensors};
}

}  // namespace openhtp::ops::detail
