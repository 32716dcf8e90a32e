// Binary element-wise ops through XNNPACK's *_nd operators (numpy
// broadcasting, rank 1..XNN_MAX_TENSOR_DIMS):
//   ElementWiseAdd       f32, f16, qu8 (each tensor with its own per-tensor
//                        encoding; XNNPACK refuses scale ratios it cannot
//                        represent, and the reference runs)
//   ElementWiseMultiply  f32, f16
//   ElementWiseSubtract, ElementWiseDivide, ElementWiseSquaredDifference  f32
//   ElementWiseBinary    the same, by its `operation` parameter
// Every one is a single correctly rounded float operation per output (f16:
// in float, rounded once to half, as the type adapter does), so each path is
// bit-exact with the reference — after one repair: this XNNPACK's x86 float
// kernels always apply their output clamp (vmaxps(acc, min) with min = -inf),
// which turns every NaN result (a NaN input, inf - inf, 0 * inf, 0 / 0) into
// -inf. A scan of the output for -inf (vectorized, in cache right after the
// operator) finds those few and recomputes them with the reference's
// expression; a true -inf recomputes to itself. Maximum and Minimum are not
// through XNNPACK: its max/min drop a NaN on one side (vmaxps semantics)
// where the reference (numpy) propagates it, and no output value marks
// where. Dense f32 Maximum/Minimum run the reference's own expression as a
// vectorized loop on the graph's pool instead (exact by construction);
// broadcasting ones stay with the reference. f32 Add/Subtract/Multiply/
// Divide/SquaredDifference of a row broadcast down a dense input (a
// squeeze-excite scale) also run as openhtp's own loop (RowBroadcastKernel):
// XNNPACK pays its per-row setup once per innermost row there.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/broadcast_runs.h"
#include "kernels/parallel_tiles.h"
#include "kernels/quant_params.h"
#include "ops/quant.h"
#include "ops/reference/binary_fns.h"
#include "ops/shape.h"
#include "kernels/xnnpack_elementwise.h"
#include "kernels/xnnpack_paths.h"
#include "kernels/xnnpack_runtime.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;

// XNNPACK's setup_*_nd for any element type, with untyped pointers.
using SetupFn = xnn_status (*)(xnn_operator_t op, size_t rank_a, const size_t* shape_a, size_t rank_b,
                               const size_t* shape_b, const void* a, const void* b, void* y, pthreadpool_t pool);

template <typename T, xnn_status (*Setup)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*, const T*,
                                          const T*, T*, pthreadpool_t)>
xnn_status setup_as(xnn_operator_t op, size_t rank_a, const size_t* shape_a, size_t rank_b, const size_t* shape_b,
                    const void* a, const void* b, void* y, pthreadpool_t pool) {
  return Setup(op, rank_a, shape_a, rank_b, shape_b, static_cast<const T*>(a), static_cast<const T*>(b),
               static_cast<T*>(y), pool);
}

// The operations this file covers (ElementWiseBinary's `operation` codes).
// The ElementWiseBinary operations XNNPACK computes here, with their codes
// (ops/reference/binary_fns.h BinaryOp); a switch over them is complete.
enum class Op : uint32_t { kAdd = 0, kDivide = 2, kMultiply = 13, kSquaredDifference = 17, kSubtract = 18 };

// The reference's expression for one output (elementwise.cpp).
inline float reference_op(Op op, float a, float b) {
  switch (op) {
    case Op::kAdd: return a + b;
    case Op::kSubtract: return a - b;
    case Op::kMultiply: return a * b;
    case Op::kDivide: return a / b;
    case Op::kSquaredDifference: return (a - b) * (a - b);
  }
  return a;
}

// Whether y[0..n) holds the bit pattern v (-inf): an OR-reduction with no
// early exit, which GCC vectorizes; cloned for AVX2 (the build's baseline is
// SSE2) so the scan costs a fraction of the operator it follows.
__attribute__((target_clones("avx2", "default"))) bool contains(const float* y, size_t n, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  uint32_t acc = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t w;
    std::memcpy(&w, y + i, 4);
    acc |= w == bits;
  }
  return acc != 0;
}
__attribute__((target_clones("avx2", "default"))) bool contains(const uint16_t* y, size_t n, uint16_t v) {
  uint16_t acc = 0;
  for (size_t i = 0; i < n; ++i) acc |= y[i] == v;
  return acc != 0;
}

// Finds the outputs XNNPACK's clamp turned from NaN into -inf (see the top
// of the file) and recomputes them. Inputs are read through broadcast
// strides over the output's dims (0 along a broadcast axis).
class NanRepair {
 public:
  NanRepair() = default;
  NanRepair(Op op, bool half, const ops::NodeDesc& node) : op_(op), half_(half), on_(true) {
    const auto& yd = node.outputs[0].dims;
    rank_ = yd.size();
    n_ = node.outputs[0].num_elements();
    for (size_t k = 0; k < rank_; ++k) dims_[k] = yd[k];
    for (size_t i = 0; i < 2; ++i) {
      const auto& d = node.inputs[i].dims;
      size_t stride = 1;
      for (size_t k = rank_; k-- > 0;) {
        const size_t j = k + d.size() - rank_;  // right-aligned input axis (numpy)
        const bool present = k + d.size() >= rank_;
        const size_t len = present ? d[j] : 1;
        strides_[i][k] = len == 1 ? 0 : stride;
        stride *= len;
      }
    }
  }

  void run(const void* a, const void* b, void* y) const {
    if (!on_) return;
    if (half_) return scan(static_cast<uint16_t*>(y), uint16_t{0xFC00}, a, b);
    scan(static_cast<float*>(y), -INFINITY, a, b);
  }

 private:
  template <typename T>
  void scan(T* y, T neg_inf, const void* a, const void* b) const {
    constexpr size_t kBlock = 1024;
    for (size_t i0 = 0; i0 < n_; i0 += kBlock) {
      const size_t i1 = std::min(n_, i0 + kBlock);
      if (!contains(y + i0, i1 - i0, neg_inf)) continue;
      for (size_t i = i0; i < i1; ++i) {
        if (y[i] == neg_inf) y[i] = recompute<T>(i, a, b);
      }
    }
  }

  template <typename T>
  T recompute(size_t i, const void* a, const void* b) const {
    size_t ia = 0, ib = 0;
    for (size_t k = rank_; k-- > 0;) {
      const size_t idx = i % dims_[k];
      i /= dims_[k];
      ia += idx * strides_[0][k];
      ib += idx * strides_[1][k];
    }
    if constexpr (sizeof(T) == 2) {
      const float r = reference_op(op_, ops::quant::half_to_float(static_cast<const uint16_t*>(a)[ia]),
                                   ops::quant::half_to_float(static_cast<const uint16_t*>(b)[ib]));
      return ops::quant::float_to_half(r);
    } else {
      return reference_op(op_, static_cast<const float*>(a)[ia], static_cast<const float*>(b)[ib]);
    }
  }

  Op op_ = Op::kAdd;
  bool half_ = false, on_ = false;
  size_t rank_ = 0, n_ = 0;
  std::array<size_t, XNN_MAX_TENSOR_DIMS> dims_{};
  std::array<std::array<size_t, XNN_MAX_TENSOR_DIMS>, 2> strides_{};
};

// Two shapes of binary op, two ways to keep XNNPACK's over-read
// (xnnpack_runtime.h) safe without a copy of either input for the graph's
// life:
//   - dense (both inputs have the output's element count, the usual large
//     case): element-wise on flat arrays, the tail guarded by an
//     OverReadGuard (xnnpack_elementwise.h). No workspace, no read slack, so
//     the plan of a graph of such ops is the plan of its tensors.
//   - broadcasting: XNNPACK re-reads the broadcast operand, so each input
//     is a ReadableInput: planned ones in place (read slack), the others
//     copied into the workspace when their end could fault.
class BinaryKernel final : public ops::OpKernel {
 public:
  BinaryKernel(Operator op, SetupFn setup, size_t elem, NanRepair repair, const ops::NodeDesc& node,
               pthreadpool_t pool)
      : op_(std::move(op)), setup_(setup), pool_(pool), elem_(elem), repair_(repair) {
    const size_t n_out = node.outputs[0].num_elements();
    dense_ = true;
    for (size_t i = 0; i < 2; ++i) {
      const auto& d = node.inputs[i].dims;
      rank_[i] = d.size();
      for (size_t k = 0; k < d.size(); ++k) shape_[i][k] = d[k];
      bytes_[i] = node.inputs[i].num_elements() * elem_;
      dense_ = dense_ && node.inputs[i].num_elements() == n_out;
    }
    n_ = n_out;
    if (dense_) return;
    size_t at = 0;
    for (size_t i = 0; i < 2; ++i) {
      input_[i].prepare(node.inputs[i].planned, bytes_[i]);
      copy_at_[i] = at;
      at += input_[i].workspace_bytes();
    }
    workspace_ = ops::Workspace(at);
  }

  size_t workspace_bytes() const override { return workspace_.bytes(); }
  void set_workspace(void* memory) override { workspace_.bind(memory); }
  size_t read_slack_bytes() const override { return dense_ ? 0 : kReadSlack; }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    if (dense_) {
      guard_.run({in[0], in[1]}, out[0], n_, elem_, [this](const OverReadGuard<2>::Inputs& x, void* y, size_t n) {
        apply(1, &n, 1, &n, x[0], x[1], y);
      });
    } else {
      uint8_t* ws = workspace_.data();
      const void* a = input_[0].readable(in[0], ws + copy_at_[0]);
      const void* b = input_[1].readable(in[1], ws + copy_at_[1]);
      apply(rank_[0], shape_[0].data(), rank_[1], shape_[1].data(), a, b, out[0]);
    }
    repair_.run(in[0], in[1], out[0]);
  }

 private:
  // *_nd setup computes broadcast strides from the shapes; it allocates
  // nothing, so it is done per run with the bound pointers (and may change
  // shape from one call to the next).
  void apply(size_t rank_a, const size_t* shape_a, size_t rank_b, const size_t* shape_b, const void* a,
             const void* b, void* y) {
    setup_(op_.get(), rank_a, shape_a, rank_b, shape_b, a, b, y, pool_);
    xnn_run_operator(op_.get(), pool_);
  }

  Operator op_;
  SetupFn setup_;
  pthreadpool_t pool_;
  size_t elem_ = 1, n_ = 0;
  NanRepair repair_;  // float types only
  bool dense_ = true;
  std::array<size_t, 2> rank_{};
  std::array<std::array<size_t, XNN_MAX_TENSOR_DIMS>, 2> shape_{};
  std::array<size_t, 2> bytes_{};
  // Broadcasting ops only.
  std::array<ReadableInput, 2> input_;
  std::array<size_t, 2> copy_at_{};
  ops::Workspace workspace_;
  // Dense ops only.
  OverReadGuard<2> guard_;
};

// The f32 / f16 operator for `op`, with its setup; false when XNNPACK has
// none for that type (or refuses it on this CPU: f16 needs F16C).
bool create_float(Op op, bool half, xnn_operator_t* out, SetupFn* setup) {
  constexpr float kLo = -INFINITY, kHi = INFINITY;
  xnn_status s = xnn_status_unsupported_parameter;
  if (half) {
    switch (op) {
      case Op::kAdd:
        s = xnn_create_add_nd_f16(kLo, kHi, kRunFlags, out);
        *setup = &setup_as<void, xnn_setup_add_nd_f16>;
        break;
      case Op::kMultiply:
        s = xnn_create_multiply_nd_f16(kLo, kHi, kRunFlags, out);
        *setup = &setup_as<void, xnn_setup_multiply_nd_f16>;
        break;
      default: return false;
    }
    return s == xnn_status_success;
  }
  switch (op) {
    case Op::kAdd:
      s = xnn_create_add_nd_f32(kLo, kHi, kRunFlags, out);
      *setup = &setup_as<float, xnn_setup_add_nd_f32>;
      break;
    case Op::kMultiply:
      s = xnn_create_multiply_nd_f32(kLo, kHi, kRunFlags, out);
      *setup = &setup_as<float, xnn_setup_multiply_nd_f32>;
      break;
    case Op::kSubtract:
      s = xnn_create_subtract_nd_f32(kLo, kHi, kRunFlags, out);
      *setup = &setup_as<float, xnn_setup_subtract_nd_f32>;
      break;
    case Op::kDivide:
      s = xnn_create_divide_nd_f32(kLo, kHi, kRunFlags, out);
      *setup = &setup_as<float, xnn_setup_divide_nd_f32>;
      break;
    case Op::kSquaredDifference:
      s = xnn_create_squared_difference_nd_f32(kRunFlags, out);
      *setup = &setup_as<float, xnn_setup_squared_difference_nd_f32>;
      break;
  }
  return s == xnn_status_success;
}

// --- f32 row broadcast: y[r][c] = a[r][c] op b[c] (or a[c] op b[r][c]) ---
//
// XNNPACK runs a broadcast binary op one innermost row at a time, and a
// squeeze-excite scale ([1,H,W,C] x [1,1,1,C], C = 32) pays its per-row
// setup 12,544 times: 193 us for 401K elements, where a read of the same
// tensor takes 30 us (bench_kernels se_scale_f32_*). This loop is the
// reference's own expression per element (one IEEE operation, so the result
// is bit-exact, NaN and -inf included), vectorized across the row.
template <Op OP>
inline float apply_op(float a, float b) {
  if constexpr (OP == Op::kAdd) return a + b;
  else if constexpr (OP == Op::kSubtract) return a - b;
  else if constexpr (OP == Op::kMultiply) return a * b;
  else if constexpr (OP == Op::kDivide) return a / b;
  else return (a - b) * (a - b);
}

template <Op OP, bool ROW_IS_B>
inline __attribute__((always_inline)) void row_loop(const float* dense, const float* row, float* y, size_t rows,
                                                    size_t cols) {
  for (size_t r = 0; r < rows; ++r, dense += cols, y += cols) {
    for (size_t c = 0; c < cols; ++c) y[c] = ROW_IS_B ? apply_op<OP>(dense[c], row[c]) : apply_op<OP>(row[c], dense[c]);
  }
}

using RowFn = void (*)(const float*, const float*, float*, size_t, size_t);

#define OPENHTP_ROW_FN(NAME, OP, ROW_IS_B)                                                                  \
  __attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void NAME(                          \
      const float* dense, const float* row, float* y, size_t rows, size_t cols) {                          \
    row_loop<OP, ROW_IS_B>(dense, row, y, rows, cols);                                                     \
  }
OPENHTP_ROW_FN(row_add_b, Op::kAdd, true)
OPENHTP_ROW_FN(row_add_a, Op::kAdd, false)
OPENHTP_ROW_FN(row_subtract_b, Op::kSubtract, true)
OPENHTP_ROW_FN(row_subtract_a, Op::kSubtract, false)
OPENHTP_ROW_FN(row_multiply_b, Op::kMultiply, true)
OPENHTP_ROW_FN(row_multiply_a, Op::kMultiply, false)
OPENHTP_ROW_FN(row_divide_b, Op::kDivide, true)
OPENHTP_ROW_FN(row_divide_a, Op::kDivide, false)
OPENHTP_ROW_FN(row_squared_difference_b, Op::kSquaredDifference, true)
OPENHTP_ROW_FN(row_squared_difference_a, Op::kSquaredDifference, false)
#undef OPENHTP_ROW_FN

RowFn row_fn(Op op, bool row_is_b) {
  switch (op) {
    case Op::kAdd: return row_is_b ? row_add_b : row_add_a;
    case Op::kSubtract: return row_is_b ? row_subtract_b : row_subtract_a;
    case Op::kMultiply: return row_is_b ? row_multiply_b : row_multiply_a;
    case Op::kDivide: return row_is_b ? row_divide_b : row_divide_a;
    case Op::kSquaredDifference: return row_is_b ? row_squared_difference_b : row_squared_difference_a;
  }
  return nullptr;
}

// A row broadcast splits into one share per thread from kShareMinElems
// (parallel_tiles.h; a few microseconds of work against a ~1 us fork).
// EfficientNet-B0 fp32 at 2 threads, with the global pools split the same
// way: 4.73-4.85 ms a run against 5.05-5.37 with 128K-element tiles from
// 256K elements (openhtp-graph-profile, alternated six times).

class RowBroadcastKernel final : public ops::OpKernel {
 public:
  RowBroadcastKernel(RowFn fn, size_t rows, size_t cols, bool row_is_b, pthreadpool_t pool)
      : fn_(fn), rows_(rows), cols_(cols), row_is_b_(row_is_b), pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* dense = static_cast<const float*>(in[row_is_b_ ? 0 : 1]);
    const float* row = static_cast<const float*>(in[row_is_b_ ? 1 : 0]);
    float* y = static_cast<float*>(out[0]);
    auto body = [=, this](size_t start, size_t count) {
      fn_(dense + start * cols_, row, y + start * cols_, count, cols_);
    };
    // One share of rows per thread, from kShareMinElems elements: the dense
    // input is a producer's output, written in shares (parallel_tiles.h).
    run_in_shares(pool_, rows_, std::max<size_t>(1, kShareMinElems / cols_), body);
  }

 private:
  RowFn fn_;
  size_t rows_, cols_;
  bool row_is_b_;
  pthreadpool_t pool_;
};

// --- dense Maximum / Minimum: the reference's expression (elementwise.cpp) ---

using ops::binary_fns::nan_max;
using ops::binary_fns::nan_min;
// Cloned for AVX2 (the build's baseline is SSE2); GCC vectorizes both.
__attribute__((target_clones("avx2", "default"))) void max_loop(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = nan_max(a[i], b[i]);
}
__attribute__((target_clones("avx2", "default"))) void min_loop(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = nan_min(a[i], b[i]);
}

// One side a single value (max(x, 0), min(x, 6) with a constant): the same
// expression, operands in the node's order (max(+0, -0) is -0, max(-0, +0)
// is +0, as the reference gives). Baseline ISA: GCC vectorizes it with SSE2.
template <bool kMax, bool kScalarIsB>
void scalar_loop(const float* dense, float s, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float a = kScalarIsB ? dense[i] : s, b = kScalarIsB ? s : dense[i];
    y[i] = kMax ? nan_max(a, b) : nan_min(a, b);
  }
}

class MinMaxKernel final : public ops::OpKernel {
 public:
  // scalar: -1 both inputs dense, else which input (0 or 1) is one value;
  // the loop is chosen here, once.
  MinMaxKernel(bool is_max, int scalar, size_t n, pthreadpool_t pool) : scalar_(scalar), n_(n), pool_(pool) {
    if (scalar < 0) {
      dense_ = is_max ? max_loop : min_loop;
    } else {
      held_ = is_max ? (scalar == 1 ? scalar_loop<true, true> : scalar_loop<true, false>)
                     : (scalar == 1 ? scalar_loop<false, true> : scalar_loop<false, false>);
    }
  }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* a = static_cast<const float*>(in[0]);
    const float* b = static_cast<const float*>(in[1]);
    float* y = static_cast<float*>(out[0]);
    if (scalar_ >= 0) {
      const float* dense = scalar_ == 1 ? a : b;
      const float s = scalar_ == 1 ? *b : *a;
      auto body = [=, this](size_t start, size_t count) { held_(dense + start, s, y + start, count); };
      parallel_tiles(pool_, n_, kCheapTile, body);
      return;
    }
    auto body = [=, this](size_t start, size_t count) { dense_(a + start, b + start, y + start, count); };
    parallel_tiles(pool_, n_, kCheapTile, body);
  }

 private:
  using DenseLoop = void (*)(const float*, const float*, float*, size_t);
  using HeldLoop = void (*)(const float*, float, float*, size_t);
  int scalar_;
  DenseLoop dense_ = nullptr;
  HeldLoop held_ = nullptr;
  size_t n_;
  pthreadpool_t pool_;
};

bool all_of_type(const ops::NodeDesc& node, uint32_t dt);

bool prepare_min_max(const ops::NodeDesc& node, bool is_max, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || !all_of_type(node, dtype::kFloat32)) return false;
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  if (!a.present || !b.present) return false;
  const size_t n = y.num_elements();
  int scalar = -1;
  if (a.num_elements() != n || b.num_elements() != n) {
    // One value against a tensor shaped like the output; other broadcasts:
    // the reference.
    std::vector<uint32_t> joint;
    size_t bad = 0;
    if (!ops::detail::broadcast_shape(a.dims, b.dims, &joint, &bad) || joint != y.dims) return false;
    if (b.num_elements() == 1 && a.dims == y.dims) {
      scalar = 1;
    } else if (a.num_elements() == 1 && b.dims == y.dims) {
      scalar = 0;
    } else {
      return false;
    }
  }
  *kernel = std::make_unique<MinMaxKernel>(is_max, scalar, n, elementwise_pool(node, n, kCheapMin));
  return true;
}

bool all_of_type(const ops::NodeDesc& node, uint32_t dt) {
  for (const ops::TensorDesc& t : node.inputs) {
    if (t.dtype != dt) return false;
  }
  return node.outputs[0].dtype == dt;
}

bool prepare_binary(const ops::NodeDesc& node, Op op, std::unique_ptr<ops::OpKernel>* kernel) {
  if (!ready() || node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  for (const ops::TensorDesc& t : node.inputs) {
    // Rank 0 (a scalar) and ranks past XNNPACK's are the reference's.
    if (!t.present || t.dims.empty() || t.dims.size() > XNN_MAX_TENSOR_DIMS) return false;
  }
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  xnn_operator_t xop = nullptr;
  SetupFn setup = nullptr;
  size_t elem = 0;
  NanRepair repair;
  if (all_of_type(node, dtype::kFloat32)) {
    std::vector<uint32_t> joint;
    size_t bad = 0;
    if (ops::detail::broadcast_shape(a.dims, b.dims, &joint, &bad) && joint == y.dims) {
      const BroadcastRuns runs = collapse_broadcast(joint, ops::detail::broadcast_strides(a.dims, joint),
                                                    ops::detail::broadcast_strides(b.dims, joint));
      if (const int row = runs.row_input(); row >= 0) {
        *kernel = std::make_unique<RowBroadcastKernel>(row_fn(op, row == 1), runs.dims[0], runs.dims[1], row == 1,
                                                       graph_pool(node));
        return true;
      }
    }
  }
  if (all_of_type(node, dtype::kFloat32) || all_of_type(node, dtype::kFloat16)) {
    const bool half = a.dtype == dtype::kFloat16;
    if (!create_float(op, half, &xop, &setup)) return false;
    elem = half ? 2 : 4;
    repair = NanRepair(op, half, node);
  } else if (op == Op::kAdd) {
    const auto a_zp = u8_zero_point(a), b_zp = u8_zero_point(b), y_zp = u8_zero_point(y);
    if (!a_zp || !b_zp || !y_zp) return false;
    if (xnn_create_add_nd_qu8(*a_zp, a.quant.scale, *b_zp, b.quant.scale, *y_zp, y.quant.scale, 0, 255, kRunFlags,
                              &xop) != xnn_status_success) {
      return false;
    }
    setup = &setup_as<uint8_t, xnn_setup_add_nd_qu8>;
    elem = 1;
  } else {
    return false;
  }
  const size_t n = y.num_elements();
  *kernel = std::make_unique<BinaryKernel>(Operator(xop), setup, elem, repair, node, elementwise_pool(node, n, kCheapMin));
  return true;
}

}  // namespace

bool prepare_add(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare_binary(node, Op::kAdd, kernel);
}
bool prepare_multiply(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare_binary(node, Op::kMultiply, kernel);
}
bool prepare_subtract(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare_binary(node, Op::kSubtract, kernel);
}
bool prepare_divide(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare_binary(node, Op::kDivide, kernel);
}
bool prepare_squared_difference(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare_binary(node, Op::kSquaredDifference, kernel);
}

bool prepare_maximum(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare_min_max(node, true, kernel);
}
bool prepare_minimum(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare_min_max(node, false, kernel);
}

bool prepare_elementwise_binary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::Param* p = node.find_param("operation");
  if (p == nullptr || p->is_tensor) return false;
  switch (p->i) {
    case int64_t(ops::binary_fns::BinaryOp::kMaximum): return prepare_min_max(node, true, kernel);
    case int64_t(ops::binary_fns::BinaryOp::kMinimum): return prepare_min_max(node, false, kernel);
    case int64_t(Op::kAdd):
    case int64_t(Op::kDivide):
    case int64_t(Op::kMultiply):
    case int64_t(Op::kSquaredDifference):
    case int64_t(Op::kSubtract): return prepare_binary(node, static_cast<Op>(p->i), kernel);
    case int64_t(ops::binary_fns::BinaryOp::kPower): return prepare_power_f32(node, kernel);
    default: return false;
  }
}

}  // namespace openhtp::kernels::xnn
