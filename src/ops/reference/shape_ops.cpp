// The shape ops: Shape, ConstantOfShape, NonZero (ONNX semantics, with
// QNN's static output shapes).
//
// Shape          in[0] any type; params start, end (INT_32 scalars, default 0
//                and rank; negative counts from the end, then clamped to
//                [0, rank], ONNX Shape-15); out[0] [end - start] INT_32,
//                UINT_32, INT_64 or UINT_64 holding in[0]'s dims[start..end).
//                The dims are known at prepare, so run() only copies them.
// ConstantOfShape in[0] the shape, 1-D INT_32/UINT_32 [rank of out[0]]; param
//                value (scalar, default 0); out[0] filled with value. QNN
//                tensors have static dims, so out[0]'s dims are the shape: a
//                STATIC in[0] must equal them (checked at prepare), a dynamic
//                one is not read.
// NonZero        in[0] any numeric type (fixed point: zero is q = -offset);
//                out[0] [K, rank] INT_32/UINT_32: the indices of the non-zero
//                elements in row-major order, one row per element (TensorFlow
//                tf.where's layout; ONNX's [rank, count] transposed), K fixed
//                by the output tensor (the caller's maximum, numel for all);
//                rows past the last found are 0; elements past K are dropped.
//                Optional out[1] [1] INT_32/UINT_32: the rows written
//                (min(count, K)). QNN's output is dynamic in its dim 0; a
//                static-shape backend gives the fixed-size form plus the count.
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

bool is_index_type(uint32_t dt) {
  return dt == dtype::kInt32 || dt == dtype::kUint32 || dt == dtype::kInt64 || dt == dtype::kUint64;
}

// An INT_32 scalar parameter (any integer scalar accepted); `*out` keeps its
// value when the parameter is absent.
Status i32_scalar(const NodeDesc& node, std::string_view name, int64_t* out) {
  const Param* p = node.find_param(name);
  if (p == nullptr) return Status::Ok();
  if (p->is_tensor) return invalid(node, "parameter '", name, "' is a tensor, expected an INT_32 scalar");
  if (p->dtype == dtype::kFloat32 || p->dtype == dtype::kFloat16 || p->dtype == dtype::kFloat64) {
    return invalid(node, "parameter '", name, "' is a float, expected an INT_32 scalar");
  }
  *out = p->i;
  return Status::Ok();
}

void store_index(void* dst, size_t i, uint32_t dt, int64_t v) {
  switch (dt) {
    case dtype::kInt32: static_cast<int32_t*>(dst)[i] = static_cast<int32_t>(v); break;
    case dtype::kUint32: static_cast<uint32_t*>(dst)[i] = static_cast<uint32_t>(v); break;
    case dtype::kInt64: static_cast<int64_t*>(dst)[i] = v; break;
    default: static_cast<uint64_t*>(dst)[i] = static_cast<uint64_t>(v); break;
  }
}

// ---- Shape ----

class ShapeKernel final : public OpKernel {
 public:
  ShapeKernel(std::vector<int64_t> dims, uint32_t dt) : dims_(std::move(dims)), dt_(dt) {}
  void run(std::span<const void* const>, std::span<void* const> out) override {
    for (size_t i = 0; i < dims_.size(); ++i) store_index(out[0], i, dt_, dims_[i]);
  }

 private:
  std::vector<int64_t> dims_;
  uint32_t dt_;
};

Status prepare_shape(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"start", "end"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (!is_index_type(y.dtype)) {
    return invalid(node, "out[0] data type is ", dtype::name(y.dtype), ", expected INT_32, UINT_32, INT_64 or UINT_64");
  }
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  int64_t start = 0, end = rank;
  if (Status s = i32_scalar(node, "start", &start); !s.ok()) return s;
  if (Status s = i32_scalar(node, "end", &end); !s.ok()) return s;
  const auto clamp = [rank](int64_t v) {
    if (v < 0) v += rank;
    return v < 0 ? 0 : (v > rank ? rank : v);
  };
  const int64_t b = clamp(start), e = clamp(end);
  if (e <= b) {
    return invalid(node, "parameters 'start' = ", start, " and 'end' = ", end, " select no dims of rank ", rank,
                   " (clamped range [", b, ", ", e, ")), expected a non-empty range");
  }
  const uint32_t out_dims[] = {static_cast<uint32_t>(e - b)};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<ShapeKernel>(std::vector<int64_t>(x.dims.begin() + b, x.dims.begin() + e), y.dtype);
  return Status::Ok();
}

// ---- ConstantOfShape ----

class FillKernel final : public OpKernel {
 public:
  FillKernel(std::vector<uint8_t> element, size_t n) : element_(std::move(element)), n_(n) {}
  void run(std::span<const void* const>, std::span<void* const> out) override {
    uint8_t* y = static_cast<uint8_t*>(out[0]);
    const size_t es = element_.size();
    for (size_t i = 0; i < n_; ++i) std::memcpy(y + i * es, element_.data(), es);
  }

 private:
  std::vector<uint8_t> element_;
  size_t n_;
};

template <typename T>
std::vector<uint8_t> element_bytes(T v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

Status prepare_constant_of_shape(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"value"}); !s.ok()) return s;
  const TensorDesc& shape = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, shape, in_label(0, "shape")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (shape.dtype != dtype::kInt32 && shape.dtype != dtype::kUint32) {
    return invalid(node, "in[0] (shape) data type is ", dtype::name(shape.dtype), ", expected INT_32 or UINT_32");
  }
  if (Status s = check_rank(node, shape, in_label(0, "shape"), 1, 1, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (shape.dims[0] != y.dims.size()) {
    return invalid(node, "in[0] (shape) has ", shape.dims[0], " elements, expected out[0]'s rank ", y.dims.size());
  }
  if (shape.static_data != nullptr) {
    for (size_t i = 0; i < y.dims.size(); ++i) {
      const int64_t v = shape.dtype == dtype::kInt32 ? int64_t{static_cast<const int32_t*>(shape.static_data)[i]}
                                                     : int64_t{static_cast<const uint32_t*>(shape.static_data)[i]};
      if (v != int64_t{y.dims[i]}) {
        return invalid(node, "in[0] (shape) element ", i, " is ", v, ", expected out[0] dim ", i, " = ", y.dims[i]);
      }
    }
  }
  const Param* p = node.find_param("value");
  if (p != nullptr && p->is_tensor) return invalid(node, "parameter 'value' is a tensor, expected a scalar");
  const bool float_param = p != nullptr && (p->dtype == dtype::kFloat32 || p->dtype == dtype::kFloat16 ||
                                            p->dtype == dtype::kFloat64);
  const double f = p == nullptr ? 0.0 : (float_param ? p->f : static_cast<double>(p->i));
  const int64_t i = p == nullptr ? 0 : (float_param ? static_cast<int64_t>(p->f) : p->i);
  std::vector<uint8_t> element;
  switch (y.dtype) {
    case dtype::kFloat32: element = element_bytes(static_cast<float>(f)); break;
    case dtype::kFloat16: element = element_bytes(quant::float_to_half(static_cast<float>(f))); break;
    case dtype::kInt8: element = element_bytes(static_cast<int8_t>(i)); break;
    case dtype::kInt16: element = element_bytes(static_cast<int16_t>(i)); break;
    case dtype::kInt32: element = element_bytes(static_cast<int32_t>(i)); break;
    case dtype::kInt64: element = element_bytes(i); break;
    case dtype::kUint8: element = element_bytes(static_cast<uint8_t>(i)); break;
    case dtype::kUint16: element = element_bytes(static_cast<uint16_t>(i)); break;
    case dtype::kUint32: element = element_bytes(static_cast<uint32_t>(i)); break;
    case dtype::kUint64: element = element_bytes(static_cast<uint64_t>(i)); break;
    case dtype::kBool8: element = element_bytes(static_cast<uint8_t>(f != 0.0 ? 1 : 0)); break;
    default:
      return unsupported(node, "out[0] data type is ", dtype::name(y.dtype),
                         ", expected a float, integer or BOOL_8 type (fixed point is not supported)");
  }
  if (float_param && y.dtype != dtype::kFloat32 && y.dtype != dtype::kFloat16 && y.dtype != dtype::kBool8 &&
      static_cast<double>(i) != f) {
    return invalid(node, "parameter 'value' is ", f, ", expected an integer for out[0] type ", dtype::name(y.dtype));
  }
  if (kernel) *kernel = std::make_unique<FillKernel>(std::move(element), y.num_elements());
  return Status::Ok();
}

// ---- NonZero ----

class NonZeroKernel final : public OpKernel {
 public:
  NonZeroKernel(const TensorDesc& x, uint32_t out_dt, size_t rows, bool count, uint32_t count_dt)
      : dims_(x.dims), dt_(x.dtype), offset_(x.quant.present ? x.quant.offset : 0), out_dt_(out_dt),
        rows_(rows), count_(count), count_dt_(count_dt), n_(x.num_elements()) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const size_t rank = dims_.size();
    std::memset(out[0], 0, rows_ * rank * 4);
    std::vector<uint32_t> idx(rank, 0);
    size_t found = 0;
    for (size_t e = 0; e < n_ && found < rows_; ++e) {
      if (nonzero(in[0], e)) {
        for (size_t d = 0; d < rank; ++d) store_index(out[0], found * rank + d, out_dt_, idx[d]);
        ++found;
      }
      for (size_t k = rank; k-- > 0;) {
        if (++idx[k] < dims_[k]) break;
        idx[k] = 0;
      }
    }
    if (count_) store_index(out[1], 0, count_dt_, static_cast<int64_t>(found));
  }

 private:
  bool nonzero(const void* p, size_t e) const {
    switch (dt_) {
      case dtype::kFloat32: return static_cast<const float*>(p)[e] != 0.0f;
      case dtype::kFloat16: return (static_cast<const uint16_t*>(p)[e] & 0x7fff) != 0;  // +-0 are zero
      case dtype::kInt8: return static_cast<const int8_t*>(p)[e] != 0;
      case dtype::kInt16: return static_cast<const int16_t*>(p)[e] != 0;
      case dtype::kInt32: return static_cast<const int32_t*>(p)[e] != 0;
      case dtype::kUint8: case dtype::kBool8: return static_cast<const uint8_t*>(p)[e] != 0;
      case dtype::kUint16: return static_cast<const uint16_t*>(p)[e] != 0;
      case dtype::kUint32: return static_cast<const uint32_t*>(p)[e] != 0;
      case dtype::kUfixed8: return int32_t{static_cast<const uint8_t*>(p)[e]} + offset_ != 0;
      case dtype::kUfixed16: return int32_t{static_cast<const uint16_t*>(p)[e]} + offset_ != 0;
      case dtype::kSfixed8: return int32_t{static_cast<const int8_t*>(p)[e]} + offset_ != 0;
      default: return int32_t{static_cast<const int16_t*>(p)[e]} + offset_ != 0;  // kSfixed16
    }
  }

  std::vector<uint32_t> dims_;
  uint32_t dt_;
  int32_t offset_;
  uint32_t out_dt_;
  size_t rows_;
  bool count_;
  uint32_t count_dt_;
  size_t n_;
};

Status prepare_non_zero(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.outputs.size() == 2) {
    if (Status s = check_io_count(node, 1, 1, 2); !s.ok()) return s;
  } else if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) {
    return s;
  }
  ParamReader params(node);
  if (Status s = params.check_names({}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  switch (x.dtype) {
    case dtype::kFloat32: case dtype::kFloat16: case dtype::kInt8: case dtype::kInt16: case dtype::kInt32:
    case dtype::kUint8: case dtype::kUint16: case dtype::kUint32: case dtype::kBool8: case dtype::kUfixed8:
    case dtype::kUfixed16: case dtype::kSfixed8: case dtype::kSfixed16: break;
    default:
      return unsupported(node, "in[0] data type is ", dtype::name(x.dtype),
                         ", expected FLOAT_32/16, an 8/16/32-bit integer, BOOL_8 or 8/16-bit fixed point");
  }
  if (x.dims.empty()) return invalid(node, "in[0] rank is 0, expected >= 1");
  if (y.dtype != dtype::kInt32 && y.dtype != dtype::kUint32) {
    return invalid(node, "out[0] data type is ", dtype::name(y.dtype), ", expected INT_32 or UINT_32");
  }
  if (y.dims.size() != 2 || y.dims[1] != x.dims.size() || y.dims[0] > x.num_elements()) {
    return invalid(node, "out[0] dims are ", dims_str(y.dims), ", expected [K, ", x.dims.size(), "] with 1 <= K <= ",
                   x.num_elements(), " (in[0]'s element count)");
  }
  uint32_t count_dt = 0;
  if (node.outputs.size() == 2) {
    const TensorDesc& c = node.outputs[1];
    if (Status s = check_plain_tensor(node, c, out_label(1)); !s.ok()) return s;
    if (c.dtype != dtype::kInt32 && c.dtype != dtype::kUint32) {
      return invalid(node, "out[1] data type is ", dtype::name(c.dtype), ", expected INT_32 or UINT_32");
    }
    const uint32_t one[] = {1};
    if (Status s = check_output_dims(node, 1, one); !s.ok()) return s;
    count_dt = c.dtype;
  }
  if (kernel) *kernel = std::make_unique<NonZeroKernel>(x, y.dtype, y.dims[0], node.outputs.size() == 2, count_dt);
  return Status::Ok();
}

}  // namespace

OpDef shape_def() { return {"Shape", &guarded_prepare<prepare_shape>}; }
OpDef constant_of_shape_def() { return {"ConstantOfShape", &guarded_prepare<prepare_constant_of_shape>}; }
OpDef non_zero_def() { return {"NonZero", &guarded_prepare<prepare_non_zero>}; }

}  // namespace openhtp::ops::detail
