#include "kernels/quantized_elementwise.h"

#include <pthreadpool.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/broadcast_runs.h"
#include "kernels/isa_level.h"
#include "kernels/onednn_paths.h"
#include "kernels/parallel_tiles.h"
#include "kernels/reduce_layout.h"
#include "ops/trailing_norm.h"
#include "ops/quant.h"
#include "ops/workspace.h"
#include "ops/shape.h"

namespace openhtp::kernels::q8 {
namespace {

namespace dtype = ops::dtype;

bool is_8bit_per_tensor(const ops::TensorDesc& t) {
  return t.present && (t.dtype == dtype::kUfixed8 || t.dtype == dtype::kSfixed8) && t.quant.present &&
         !t.quant.per_channel() && t.quant.scale > 0.0f && std::isfinite(t.quant.scale);
}


// A code's integer value (the byte read as uint8 or int8).
inline int code_value(uint32_t dt, uint8_t b) { return dt == dtype::kSfixed8 ? int(int8_t(b)) : int(b); }

// quant.cpp's quantize_one over a block of an 8-bit per-tensor tensor:
// quant::from_float's per-tensor loop (vectorized where the CPU has AVX2),
// so bit for bit the reference's rounding.
void quantize_block(const float* v, size_t n, const ops::TensorDesc& t, uint8_t* dst) {
  ops::quant::from_float(t, v, dst, 0, n);
}

// The reference's float value of each code (quant.cpp to_float).
std::array<float, 256> dequant_table(const ops::TensorDesc& t) {
  std::array<float, 256> d{};
  for (int b = 0; b < 256; ++b) {
    const int64_t q = t.dtype == dtype::kSfixed8 ? int64_t{int8_t(b)} : int64_t{b};
    d[b] = static_cast<float>((q + int64_t{t.quant.offset}) * double{t.quant.scale});
  }
  return d;
}

inline uint8_t quantize(float v, const ops::TensorDesc& t) {
  const int64_t q = ops::quant::quantize_one(v, t.quant.scale, t.quant.offset, ops::quant::qmin(t.dtype),
                                             ops::quant::qmax(t.dtype));
  return static_cast<uint8_t>(q);  // two's complement byte for SFIXED_POINT_8
}


// ---------------------------------------------------------------------------
// Binary ops: one table lookup per output.

// Elements per pool task, split from two tiles on: the cheap element-wise
// rule (xnnpack_elementwise.h), the same as the unary tables'.
constexpr size_t kBinaryTile = size_t{128} << 10;
constexpr size_t kMaxRank = 8;

// The numpy broadcast walk over the (collapsed) output: seg(a, a_dense, b,
// b_dense, y, run) for each run along the innermost axis, where an input is
// either dense along it (stride 1) or broadcast (stride 0) — on the
// innermost axis nothing else occurs.
class BroadcastWalk {
 public:
  BroadcastWalk(std::vector<size_t> dims, std::vector<size_t> sa, std::vector<size_t> sb)
      : dims_(std::move(dims)), sa_(std::move(sa)), sb_(std::move(sb)) {
    n_ = 1;
    for (size_t d : dims_) n_ *= d;
  }
  size_t size() const { return n_; }

  // Outputs [start, start + count).
  template <typename Seg>
  void walk(const uint8_t* a_base, const uint8_t* b_base, uint8_t* y_base, size_t start, size_t count,
            Seg&& seg) const {
    const size_t rank = dims_.size();
    std::array<size_t, kMaxRank> idx{};
    size_t rem = start, ia = 0, ib = 0;
    for (size_t ax = rank; ax-- > 0;) {
      idx[ax] = rem % dims_[ax];
      rem /= dims_[ax];
      ia += idx[ax] * sa_[ax];
      ib += idx[ax] * sb_[ax];
    }
    const size_t inner = dims_[rank - 1];
    const size_t ia_in = sa_[rank - 1], ib_in = sb_[rank - 1];
    uint8_t* y = y_base + start;
    size_t left = count;
    while (left > 0) {
      const size_t run = std::min(left, inner - idx[rank - 1]);
      seg(a_base + ia, ia_in != 0, b_base + ib, ib_in != 0, y, run);
      y += run;
      left -= run;
      // Step the multi-index past this run.
      ia += run * ia_in;
      ib += run * ib_in;
      idx[rank - 1] += run;
      for (size_t ax = rank - 1; ax > 0 && idx[ax] == dims_[ax]; --ax) {
        ia -= dims_[ax] * sa_[ax];
        ib -= dims_[ax] * sb_[ax];
        idx[ax] = 0;
        ++idx[ax - 1];
        ia += sa_[ax - 1];
        ib += sb_[ax - 1];
      }
    }
  }

 private:
  std::vector<size_t> dims_, sa_, sb_;
  size_t n_ = 0;
};

class BinaryTableKernel final : public ops::OpKernel {
 public:
  BinaryTableKernel(std::vector<uint8_t> table, BroadcastWalk walk, pthreadpool_t pool)
      : table_(std::move(table)), walk_(std::move(walk)), pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    a_ = static_cast<const uint8_t*>(in[0]);
    b_ = static_cast<const uint8_t*>(in[1]);
    y_ = static_cast<uint8_t*>(out[0]);
    auto body = [this](size_t start, size_t count) { walk_.walk(a_, b_, y_, start, count, Lookup{table_.data()}); };
    const size_t n = walk_.size();
    run_tiles(n >= 2 * kBinaryTile ? pool_ : nullptr, n, kBinaryTile, body);
  }

 private:
  struct Lookup {
    const uint8_t* t;  // [a code][b code]
    void operator()(const uint8_t* a, bool ad, const uint8_t* b, bool bd, uint8_t* y, size_t run) const {
      if (ad && bd) {
        for (size_t i = 0; i < run; ++i) y[i] = t[(size_t{a[i]} << 8) | b[i]];
      } else if (ad) {
        const uint8_t* col = t + b[0];  // column b[0] of the table, stride 256
        for (size_t i = 0; i < run; ++i) y[i] = col[size_t{a[i]} << 8];
      } else if (bd) {
        const uint8_t* row = t + (size_t{a[0]} << 8);
        for (size_t i = 0; i < run; ++i) y[i] = row[b[i]];
      } else {
        std::memset(y, t[(size_t{a[0]} << 8) | b[0]], run);
      }
    }
  };

  std::vector<uint8_t> table_;
  BroadcastWalk walk_;
  pthreadpool_t pool_;
  const uint8_t* a_ = nullptr;  // valid during run() only
  const uint8_t* b_ = nullptr;
  uint8_t* y_ = nullptr;
};

// Add, Subtract, Multiply, Divide: the reference's own arithmetic as a
// vectorizable loop — each input dequantized as quant.cpp does (the integer
// code plus offset, times the double scale, rounded to float), one float
// operation, quantize_one's double division and round-half-even. The same
// IEEE operations in the same order on every element, so bit for bit the
// reference's bytes, at a fraction of a table gather's cost on dense runs.
enum class Arith { kAdd, kSubtract, kMultiply, kDivide };

struct ArithParams {
  uint8_t flip_a, flip_b;  // 0x80 for SFIXED_POINT_8: (code ^ 0x80) - 128 is its value
  int32_t off_a, off_b;    // the encodings' offsets less 128 for a signed input
  float scale_a, scale_b;
  double scale_y, off_y, lo, hi;
  float inv_y_f, off_y_f, lo_f, hi_f;  // the same in float for the first pass (arith_loop)
};

// One element exactly as the reference: float(double(q + off) * scale) is
// float(q + off) * scale in float (|q + off| < 2^23 is checked at prepare:
// both are the exact product rounded once to float).
template <Arith OP>
inline __attribute__((always_inline)) float arith_op(float x, float z) {
  if constexpr (OP == Arith::kAdd) return x + z;
  else if constexpr (OP == Arith::kSubtract) return x - z;
  else if constexpr (OP == Arith::kMultiply) return x * z;
  else return x / z;
}

inline __attribute__((always_inline)) uint8_t clamp_store(double q, const ArithParams& p) {
  q = q >= p.lo ? q : p.lo;  // NaN: lo, as quantize_one
  q = q > p.hi ? p.hi : q;
  return static_cast<uint8_t>(static_cast<int32_t>(q));
}

// Blocks of kArithBlock, quantized in float first: t = r * RN(1 / scale_y)
// in float is within |r / scale_y| * 2^-23 of the true quotient, so below
// 2^10 within 2^-13 of it; when t's distance to its nearest integer is below
// 0.5 - 2^-12 that integer is also the nearest to quantize_one's double
// quotient (no tie can fall between them), and the byte is the reference's.
// A block with any element outside that (a near-tie, |t| >= 2^10, NaN) is
// redone in double with quantize_one's own division. Float keeps 16 lanes
// per AVX-512 vector and skips the float/double conversions; the fallback
// takes a few per cent of blocks on real data.
constexpr size_t kArithBlock = 64;

// The blocks themselves, for any way of getting the operands: x_at(i) and
// z_at(i) give element i's two dequantized inputs (always-inlined lambdas, so
// each caller's loop vectorizes on its own).
template <Arith OP, typename X, typename Z>
inline __attribute__((always_inline)) void arith_blocks(X x_at, Z z_at, uint8_t* y, size_t n, const ArithParams& p) {
  const float inv = p.inv_y_f, off = p.off_y_f, lo = p.lo_f, hi = p.hi_f;
  for (size_t i0 = 0; i0 < n; i0 += kArithBlock) {
    const size_t m = std::min(kArithBlock, n - i0);
    uint8_t* yb = y + i0;
    uint32_t far = 1;  // every element safely away from a tie
    for (size_t i = 0; i < m; ++i) {
      const float t = arith_op<OP>(x_at(i0 + i), z_at(i0 + i)) * inv;
      const float r = std::nearbyint(t);
      far &= (std::fabs(t - r) < 0.5f - 0x1p-12f) & (std::fabs(t) < 0x1p10f);  // false for NaN
      float q = r - off;
      q = q >= lo ? q : lo;
      q = q > hi ? hi : q;
      yb[i] = static_cast<uint8_t>(static_cast<int32_t>(q));
    }
    if (!far) {
      for (size_t i = 0; i < m; ++i) {
        const float e = arith_op<OP>(x_at(i0 + i), z_at(i0 + i));
        yb[i] = clamp_store(std::nearbyint(static_cast<double>(e) / p.scale_y) - p.off_y, p);
      }
    }
  }
}

template <Arith OP, bool AD, bool BD>
inline __attribute__((always_inline)) void arith_loop(const uint8_t* a, const uint8_t* b, uint8_t* y, size_t n,
                                                      const ArithParams& p) {
  const float a0 = static_cast<float>(int32_t(a[0] ^ p.flip_a) + p.off_a) * p.scale_a;
  const float b0 = static_cast<float>(int32_t(b[0] ^ p.flip_b) + p.off_b) * p.scale_b;
  arith_blocks<OP>(
      [&](size_t i) __attribute__((always_inline)) {
        return AD ? static_cast<float>(int32_t(a[i] ^ p.flip_a) + p.off_a) * p.scale_a : a0;
      },
      [&](size_t i) __attribute__((always_inline)) {
        return BD ? static_cast<float>(int32_t(b[i] ^ p.flip_b) + p.off_b) * p.scale_b : b0;
      },
      y, n, p);
}

template <Arith OP>
inline __attribute__((always_inline)) void arith_dispatch(const uint8_t* a, bool ad, const uint8_t* b, bool bd,
                                                          uint8_t* y, size_t n, const ArithParams& p) {
  if (ad && bd) arith_loop<OP, true, true>(a, b, y, n, p);
  else if (ad) arith_loop<OP, true, false>(a, b, y, n, p);
  else if (bd) arith_loop<OP, false, true>(a, b, y, n, p);
  else arith_loop<OP, false, false>(a, b, y, n, p);
}

// One clone per ISA level (the build's baseline is SSE2, without vector
// rounding).
#define OPENHTP_ARITH_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
OPENHTP_ARITH_CLONES void arith_add(const uint8_t* a, bool ad, const uint8_t* b, bool bd, uint8_t* y, size_t n,
                                    const ArithParams& p) {
  arith_dispatch<Arith::kAdd>(a, ad, b, bd, y, n, p);
}
OPENHTP_ARITH_CLONES void arith_subtract(const uint8_t* a, bool ad, const uint8_t* b, bool bd, uint8_t* y, size_t n,
                                         const ArithParams& p) {
  arith_dispatch<Arith::kSubtract>(a, ad, b, bd, y, n, p);
}
OPENHTP_ARITH_CLONES void arith_multiply(const uint8_t* a, bool ad, const uint8_t* b, bool bd, uint8_t* y, size_t n,
                                         const ArithParams& p) {
  arith_dispatch<Arith::kMultiply>(a, ad, b, bd, y, n, p);
}
OPENHTP_ARITH_CLONES void arith_divide(const uint8_t* a, bool ad, const uint8_t* b, bool bd, uint8_t* y, size_t n,
                                       const ArithParams& p) {
  arith_dispatch<Arith::kDivide>(a, ad, b, bd, y, n, p);
}
#undef OPENHTP_ARITH_CLONES

using ArithFn = void (*)(const uint8_t*, bool, const uint8_t*, bool, uint8_t*, size_t, const ArithParams&);

// Elements per pool task for the arithmetic loop (~0.1-0.3 ns an element):
// memory-bound like the tables.
class BinaryArithKernel final : public ops::OpKernel {
 public:
  BinaryArithKernel(ArithFn fn, ArithParams params, BroadcastWalk walk, pthreadpool_t pool)
      : fn_(fn), params_(params), walk_(std::move(walk)), pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    a_ = static_cast<const uint8_t*>(in[0]);
    b_ = static_cast<const uint8_t*>(in[1]);
    y_ = static_cast<uint8_t*>(out[0]);
    auto body = [this](size_t start, size_t count) {
      walk_.walk(a_, b_, y_, start, count,
                 [this](const uint8_t* a, bool ad, const uint8_t* b, bool bd, uint8_t* y, size_t run) {
                   fn_(a, ad, b, bd, y, run, params_);
                 });
    };
    const size_t n = walk_.size();
    run_tiles(n >= 2 * kBinaryTile ? pool_ : nullptr, n, kBinaryTile, body);
  }

 private:
  ArithFn fn_;
  ArithParams params_;
  BroadcastWalk walk_;
  pthreadpool_t pool_;
  const uint8_t* a_ = nullptr;  // valid during run() only
  const uint8_t* b_ = nullptr;
  uint8_t* y_ = nullptr;
};

// A row broadcast down a dense input: y[r][c] = a[r][c] op b[c], or
// a[c] op b[r][c] (operands kept in order). EfficientNet's squeeze-and-excite
// scale is this form (x [1,H,W,C] times a gate [1,1,1,C]); through the walk
// the loop above ran once per C-element row, and its setup cost more than
// the row (C = 32: 1.2 ns an element, bench_kernels se_scale_*). Here the row
// is dequantized once per run, repeated to ~1024 floats, and the dense side
// is swept against it in chunks of whole rows. Each element gets the same
// IEEE operations as in arith_loop — the row's value is the same float,
// computed earlier — so the bytes are the reference's.
template <Arith OP, bool ROW_IS_B>
inline __attribute__((always_inline)) void arith_row_loop(const uint8_t* d, const float* row, uint8_t* y, size_t n,
                                                          const ArithParams& p) {
  const uint8_t flip = ROW_IS_B ? p.flip_a : p.flip_b;
  const int32_t off = ROW_IS_B ? p.off_a : p.off_b;
  const float scale = ROW_IS_B ? p.scale_a : p.scale_b;
  auto dense = [&](size_t i) __attribute__((always_inline)) {
    return static_cast<float>(int32_t(d[i] ^ flip) + off) * scale;
  };
  auto repeated = [&](size_t i) __attribute__((always_inline)) { return row[i]; };
  if constexpr (ROW_IS_B) arith_blocks<OP>(dense, repeated, y, n, p);
  else arith_blocks<OP>(repeated, dense, y, n, p);
}

#define OPENHTP_ARITH_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#define OPENHTP_ROW_FN(NAME, OP)                                                                               \
  OPENHTP_ARITH_CLONES void NAME(const uint8_t* d, const float* row, bool row_is_b, uint8_t* y, size_t n,   \
                                 const ArithParams& p) {                                                      \
    if (row_is_b) arith_row_loop<OP, true>(d, row, y, n, p);                                                  \
    else arith_row_loop<OP, false>(d, row, y, n, p);                                                          \
  }
OPENHTP_ROW_FN(arith_row_add, Arith::kAdd)
OPENHTP_ROW_FN(arith_row_subtract, Arith::kSubtract)
OPENHTP_ROW_FN(arith_row_multiply, Arith::kMultiply)
OPENHTP_ROW_FN(arith_row_divide, Arith::kDivide)
#undef OPENHTP_ROW_FN
#undef OPENHTP_ARITH_CLONES

using ArithRowFn = void (*)(const uint8_t*, const float*, bool, uint8_t*, size_t, const ArithParams&);

ArithRowFn arith_row_fn(ArithFn fn) {
  if (fn == &arith_add) return &arith_row_add;
  if (fn == &arith_subtract) return &arith_row_subtract;
  if (fn == &arith_multiply) return &arith_row_multiply;
  if (fn == &arith_divide) return &arith_row_divide;
  return nullptr;
}

// A row broadcast or a global pool is split into one share of rows per
// thread (parallel_tiles.h run_in_shares) from this many input bytes.
// EfficientNet-B0 uint8 at 2 threads, with the lookup tables split the same
// way: 2.61-2.76 ms a run against 2.80-2.86 with 128K-byte tiles from 256K
// (openhtp-graph-profile, alternated six times).
constexpr size_t kShareBytes = size_t{16} << 10;

class RowBroadcastArithKernel final : public ops::OpKernel {
 public:
  // rows x cols outputs; the row input (b when row_is_b, else a) has cols codes.
  RowBroadcastArithKernel(ArithRowFn fn, ArithParams params, size_t rows, size_t cols, bool row_is_b,
                          pthreadpool_t pool)
      : fn_(fn), params_(params), rows_(rows), cols_(cols), row_is_b_(row_is_b), pool_(pool) {
    chunk_rows_ = std::max<size_t>(1, (kRepeatElems + cols - 1) / cols);
    repeat_.resize(chunk_rows_ * cols);
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const uint8_t* row = static_cast<const uint8_t*>(in[row_is_b_ ? 1 : 0]);
    dense_ = static_cast<const uint8_t*>(in[row_is_b_ ? 0 : 1]);
    y_ = static_cast<uint8_t*>(out[0]);
    const uint8_t flip = row_is_b_ ? params_.flip_b : params_.flip_a;
    const int32_t off = row_is_b_ ? params_.off_b : params_.off_a;
    const float scale = row_is_b_ ? params_.scale_b : params_.scale_a;
    for (size_t c = 0; c < cols_; ++c) repeat_[c] = static_cast<float>(int32_t(row[c] ^ flip) + off) * scale;
    for (size_t r = 1; r < chunk_rows_; ++r) std::copy_n(repeat_.data(), cols_, repeat_.data() + r * cols_);
    auto body = [this](size_t start, size_t count) {
      for (size_t r = start; r < start + count; r += chunk_rows_) {
        const size_t n = std::min(chunk_rows_, start + count - r) * cols_;
        fn_(dense_ + r * cols_, repeat_.data(), row_is_b_, y_ + r * cols_, n, params_);
      }
    };
    // One share of rows per thread: the dense side is a producer's output.
    run_in_shares(pool_, rows_, std::max<size_t>(1, kShareBytes / cols_), body);
  }

 private:
  static constexpr size_t kRepeatElems = 1024;  // the row repeated to at least this many floats
  ArithRowFn fn_;
  ArithParams params_;
  size_t rows_, cols_;
  bool row_is_b_;
  pthreadpool_t pool_;
  size_t chunk_rows_ = 1;
  std::vector<float> repeat_;  // the row's values, chunk_rows_ times (~4 KiB)
  const uint8_t* dense_ = nullptr;  // valid during run() only
  uint8_t* y_ = nullptr;
};

// The arithmetic loop for the node's operation, or null (the table then).
ArithFn arith_fn(const ops::NodeDesc& node) {
  std::string_view t = node.type;
  int64_t op = -1;
  if (t == "ElementWiseBinary") {
    const ops::Param* p = node.find_param("operation");
    if (p == nullptr) return nullptr;
    op = p->i;
  }
  if (t == "ElementWiseAdd" || op == 0) return &arith_add;
  if (t == "ElementWiseSubtract" || op == 18) return &arith_subtract;
  if (t == "ElementWiseMultiply" || op == 13) return &arith_multiply;
  if (t == "ElementWiseDivide" || op == 2) return &arith_divide;
  return nullptr;
}

ArithParams arith_params(const ops::TensorDesc& a, const ops::TensorDesc& b, const ops::TensorDesc& y) {
  ArithParams p{};
  const bool sa = a.dtype == dtype::kSfixed8, sb = b.dtype == dtype::kSfixed8;
  p.flip_a = sa ? 0x80 : 0;
  p.flip_b = sb ? 0x80 : 0;
  p.off_a = a.quant.offset - (sa ? 128 : 0);
  p.off_b = b.quant.offset - (sb ? 128 : 0);
  p.scale_a = a.quant.scale;
  p.scale_b = b.quant.scale;
  p.scale_y = y.quant.scale;
  p.inv_y_f = 1.0f / y.quant.scale;
  p.off_y = y.quant.offset;
  p.lo = static_cast<double>(ops::quant::qmin(y.dtype));
  p.hi = static_cast<double>(ops::quant::qmax(y.dtype));
  p.off_y_f = static_cast<float>(p.off_y);  // exact: |offset| < 2^20 (prepare_binary)
  p.lo_f = static_cast<float>(p.lo);
  p.hi_f = static_cast<float>(p.hi);
  return p;
}


}  // namespace

bool prepare_binary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  if (!is_8bit_per_tensor(a) || !is_8bit_per_tensor(b) || !is_8bit_per_tensor(y)) return false;
  std::vector<uint32_t> joint;
  size_t bad = 0;
  if (!ops::detail::broadcast_shape(a.dims, b.dims, &joint, &bad) || joint != y.dims) return false;
  if (joint.size() > kMaxRank) return false;
  // The node itself must prepare on the reference (its parameters, e.g.
  // ElementWiseBinary's operation, are validated there).
  {
    std::unique_ptr<ops::OpKernel> check;
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  BroadcastRuns runs =
      collapse_broadcast(joint, ops::detail::broadcast_strides(a.dims, joint), ops::detail::broadcast_strides(b.dims, joint));
  // Offsets small enough that q + offset is exact in float (and, for the
  // output, that r - offset is: r < 2^10 in arith_loop's first pass).
  const bool small_offsets = std::abs(a.quant.offset) < (1 << 22) && std::abs(b.quant.offset) < (1 << 22) &&
                             std::abs(y.quant.offset) < (1 << 20);
  ArithFn fn = small_offsets ? arith_fn(node) : nullptr;
  // [rows, cols] with one input a row of cols broadcast down the other.
  if (const int row = runs.row_input(); fn != nullptr && row >= 0) {
    *kernel = std::make_unique<RowBroadcastArithKernel>(arith_row_fn(fn), arith_params(a, b, y), runs.dims[0],
                                                        runs.dims[1], row == 1, graph_pool(node));
    return true;
  }
  BroadcastWalk walk(std::move(runs.dims), std::move(runs.sa), std::move(runs.sb));
  if (fn != nullptr) {
    *kernel = std::make_unique<BinaryArithKernel>(fn, arith_params(a, b, y), std::move(walk), graph_pool(node));
    return true;
  }
  // The same node over all 65536 code pairs: a = i >> 8, b = i & 255.
  ops::TensorDesc a2 = a, b2 = b, y2 = y;
  a2.dims = b2.dims = y2.dims = {65536};
  a2.static_data = b2.static_data = nullptr;
  a2.planned = b2.planned = y2.planned = false;
  const ops::TensorDesc ins[] = {a2, b2};
  const ops::TensorDesc outs[] = {y2};
  const ops::NodeDesc probe{node.name, node.type, ins, outs, node.params, nullptr};  // parsed anew for the probe dims
  std::unique_ptr<ops::OpKernel> reference;
  if (!ops::prepare_reference(probe, &reference).ok() || !reference) return false;
  std::vector<uint8_t> ca(65536), cb(65536), table(65536);
  for (size_t i = 0; i < 65536; ++i) {
    ca[i] = static_cast<uint8_t>(i >> 8);
    cb[i] = static_cast<uint8_t>(i & 255);
  }
  std::vector<uint8_t> ws(reference->workspace_bytes() + 64);
  if (reference->workspace_bytes() > 0) {
    reference->set_workspace(reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(ws.data()) + 63) & ~uintptr_t{63}));
  }
  const void* in_ptrs[] = {ca.data(), cb.data()};
  void* out_ptrs[] = {table.data()};
  reference->run(in_ptrs, out_ptrs);

  *kernel = std::make_unique<BinaryTableKernel>(std::move(table), std::move(walk), graph_pool(node));
  return true;
}

// ---------------------------------------------------------------------------
// ReduceMean: integer sums of codes.

namespace {

// Rows of `inner` outputs per pool task are grouped so each task sums about
// this many input bytes (a byte add is well under a nanosecond); split from
// two tasks on, as the cheap element-wise loops (xnnpack_elementwise.h).
constexpr size_t kReduceTaskBytes = size_t{128} << 10;

// Columns per accumulator block of the [reduced, inner] column sums: 256
// int32 sums stay in registers / L1 while every row streams past once.
constexpr size_t kColumnBlock = 256;

// acc[i] += x[r * stride + i] for r < rows, i < n (n <= kColumnBlock).
#define OPENHTP_SUM_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
OPENHTP_SUM_CLONES void sum_columns_u8(const uint8_t* x, size_t rows, size_t stride, size_t n, int32_t* acc) {
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* row = x + r * stride;
    for (size_t i = 0; i < n; ++i) acc[i] += row[i];
  }
}
OPENHTP_SUM_CLONES void sum_columns_s8(const int8_t* x, size_t rows, size_t stride, size_t n, int32_t* acc) {
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* row = x + r * stride;
    for (size_t i = 0; i < n; ++i) acc[i] += row[i];
  }
}
#undef OPENHTP_SUM_CLONES

// What turns code sums into output codes: the reference's arithmetic
// (quant.cpp: the mean in double, rounded to float, then quantize_one),
// each step in the same precision, as a loop the compiler vectorizes
// (nearbyint and the divisions included). Out of line, quantize_one cost
// ~10 ns an output: 13 of the 15 us MobileNetV2's 7x7x1280 global pool took.
struct MeanToCode {
  double reduced, x_offset, x_scale, y_scale, y_offset, lo, hi;
};

__attribute__((always_inline)) inline void mean_codes(const int32_t* __restrict sums, size_t n, uint8_t* __restrict y,
                                                      const MeanToCode& m) {
  for (size_t i = 0; i < n; ++i) {
    const float mean = static_cast<float>((static_cast<double>(sums[i]) / m.reduced + m.x_offset) * m.x_scale);
    double q = __builtin_nearbyint(static_cast<double>(mean) / m.y_scale) - m.y_offset;
    q = !(q >= m.lo) ? m.lo : q;  // also NaN -> lo, as quantize_one
    q = q > m.hi ? m.hi : q;
    y[i] = static_cast<uint8_t>(static_cast<int32_t>(q));  // two's complement byte for SFIXED_POINT_8
  }
}
void mean_codes_baseline(const int32_t* sums, size_t n, uint8_t* y, const MeanToCode& m) { mean_codes(sums, n, y, m); }
__attribute__((target("avx2"))) void mean_codes_avx2(const int32_t* sums, size_t n, uint8_t* y, const MeanToCode& m) {
  mean_codes(sums, n, y, m);
}
__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) void mean_codes_avx512(const int32_t* sums, size_t n,
                                                                                       uint8_t* y,
                                                                                       const MeanToCode& m) {
  mean_codes(sums, n, y, m);
}

using MeanCodesFn = void (*)(const int32_t*, size_t, uint8_t*, const MeanToCode&);
MeanCodesFn mean_codes_for_isa() {
  switch (isa_level()) {
    case IsaLevel::kAvx512: return &mean_codes_avx512;
    case IsaLevel::kAvx2: return &mean_codes_avx2;
    default: return &mean_codes_baseline;
  }
}

class ReduceMeanKernel final : public ops::OpKernel {
 public:
  // Input viewed as [outer, reduced, inner]; output [outer, inner].
  ReduceMeanKernel(const ops::TensorDesc& x, const ops::TensorDesc& y, size_t outer, size_t reduced, size_t inner,
                   pthreadpool_t pool)
      : x_desc_(x),
        y_desc_(y),
        outer_(outer),
        reduced_(reduced),
        inner_(inner),
        pool_(pool),
        to_code_{static_cast<double>(reduced),         static_cast<double>(x.quant.offset),
                 static_cast<double>(x.quant.scale),   static_cast<double>(y.quant.scale),
                 static_cast<double>(y.quant.offset),  static_cast<double>(ops::quant::qmin(y.dtype)),
                 static_cast<double>(ops::quant::qmax(y.dtype))},
        mean_codes_(mean_codes_for_isa()) {
    shares_ = threads::pool_threads(pool);
    if (outer_ == 1 && inner_ > 1 && shares_ > 1 && reduced_ >= shares_) {
      ws_ = ops::Workspace(shares_ * inner_ * sizeof(int32_t));  // the partial sums
    }
  }
  size_t workspace_bytes() const override { return ws_.bytes(); }
  void set_workspace(void* memory) override { ws_.bind(memory); }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    x_ = static_cast<const uint8_t*>(in[0]);
    y_ = static_cast<uint8_t*>(out[0]);
    const size_t total = outer_ * reduced_ * inner_;
    if (ws_.bytes() != 0 && total >= kShareBytes) {
      // A global pool on several threads: one share of rows per thread (the
      // shares the producer's threads wrote, parallel_tiles.h), integer
      // column sums into each share's own partials, added exactly after.
      int32_t* partial = reinterpret_cast<int32_t*>(ws_.data());
      auto share = [this, partial](size_t start, size_t count) {
        for (size_t t = start; t < start + count; ++t) {
          const size_t r0 = reduced_ * t / shares_, r1 = reduced_ * (t + 1) / shares_;
          int32_t* acc = partial + t * inner_;
          std::fill_n(acc, inner_, 0);
          for (size_t c = 0; c < inner_; c += kColumnBlock) {
            const size_t n = std::min(kColumnBlock, inner_ - c);
            const uint8_t* x = x_ + r0 * inner_ + c;
            if (x_desc_.dtype == dtype::kSfixed8) {
              sum_columns_s8(reinterpret_cast<const int8_t*>(x), r1 - r0, inner_, n, acc + c);
            } else {
              sum_columns_u8(x, r1 - r0, inner_, n, acc + c);
            }
          }
        }
      };
      parallel_tiles(pool_, shares_, 1, share);
      // Into the first share's sums: exact in int32 (reduced < 2^23 codes).
      for (size_t t = 1; t < shares_; ++t) {
        for (size_t c = 0; c < inner_; ++c) partial[c] += partial[t * inner_ + c];
      }
      mean_codes_(partial, inner_, y_, to_code_);
      return;
    }
    if (inner_ == 1) {
      // Rows of `reduced` contiguous codes, one output each: split over rows.
      const size_t rows_per_task = std::max<size_t>(1, kReduceTaskBytes / std::max<size_t>(1, reduced_));
      auto body = [this](size_t start, size_t count) {
        for (size_t o = start; o < start + count; ++o) y_[o] = finish(sum_row(x_ + o * reduced_, reduced_));
      };
      run_tiles(total >= 2 * kReduceTaskBytes ? pool_ : nullptr, outer_, rows_per_task, body);
      return;
    }
    // [outer, reduced, inner] with inner > 1 (global average pool over H, W
    // of NHWC): per outer slice, column sums of `reduced` rows of `inner`
    // codes into int32 accumulators (exact: reduced < 2^23 is checked at
    // prepare), a loop the compiler widens to 16 lanes. Split over blocks of
    // columns when the slice is large, each task with its own accumulators.
    const size_t cols_per_task = std::max<size_t>(
        kColumnBlock, (kReduceTaskBytes / std::max<size_t>(1, reduced_)) / kColumnBlock * kColumnBlock);
    for (size_t o = 0; o < outer_; ++o) {
      slice_ = o;
      auto body = [this](size_t start, size_t count) {
        for (size_t c = start; c < start + count; c += kColumnBlock) column_block(c, std::min(kColumnBlock, start + count - c));
      };
      run_tiles(reduced_ * inner_ >= 2 * kReduceTaskBytes ? pool_ : nullptr, inner_, cols_per_task, body);
    }
  }

 private:
  // Columns [c, c + n) of slice slice_, n <= kColumnBlock.
  void column_block(size_t c, size_t n) const {
    int32_t acc[kColumnBlock] = {};
    const uint8_t* x = x_ + slice_ * reduced_ * inner_ + c;
    if (x_desc_.dtype == dtype::kSfixed8) {
      sum_columns_s8(reinterpret_cast<const int8_t*>(x), reduced_, inner_, n, acc);
    } else {
      sum_columns_u8(x, reduced_, inner_, n, acc);
    }
    mean_codes_(acc, n, y_ + slice_ * inner_ + c, to_code_);
  }

 private:
  int64_t sum_row(const uint8_t* x, size_t n) const {
    int64_t s = 0;
    if (x_desc_.dtype == dtype::kSfixed8) {
      const int8_t* v = reinterpret_cast<const int8_t*>(x);
      // Blocks of at most 2^23 keep the int32 partial sums exact.
      for (size_t i0 = 0; i0 < n; i0 += size_t{1} << 23) {
        int32_t p = 0;
        const size_t e = std::min(n, i0 + (size_t{1} << 23));
        for (size_t i = i0; i < e; ++i) p += v[i];
        s += p;
      }
    } else {
      for (size_t i0 = 0; i0 < n; i0 += size_t{1} << 23) {
        uint32_t p = 0;
        const size_t e = std::min(n, i0 + (size_t{1} << 23));
        for (size_t i = i0; i < e; ++i) p += x[i];
        s += p;
      }
    }
    return s;
  }

  // The mean of `reduced_` codes summing to `sum`, in real numbers, rounded
  // to float as the reference's output is, then quantized.
  uint8_t finish(int64_t sum) const {
    const double mean = (static_cast<double>(sum) / static_cast<double>(reduced_) + x_desc_.quant.offset) *
                        double{x_desc_.quant.scale};
    return quantize(static_cast<float>(mean), y_desc_);
  }

  ops::TensorDesc x_desc_, y_desc_;
  size_t outer_, reduced_, inner_;
  pthreadpool_t pool_;
  MeanToCode to_code_;      // for int32 sums (inner > 1: reduced < 2^23)
  MeanCodesFn mean_codes_;
  size_t shares_ = 1;
  ops::Workspace ws_;
  size_t slice_ = 0;          // the outer slice run() is on (inner > 1)
  const uint8_t* x_ = nullptr;
  uint8_t* y_ = nullptr;
};

}  // namespace

bool prepare_reduce_mean(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (!is_8bit_per_tensor(x) || !is_8bit_per_tensor(y) || x.static_data != nullptr) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // validates axes, keep_dims, output dims
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  ReduceLayout l;
  if (!contiguous_reduce_layout(node, &l)) return false;
  if (l.inner > 1 && l.reduced >= (size_t{1} << 23)) return false;  // int32 column sums stay exact
  *kernel = std::make_unique<ReduceMeanKernel>(x, y, l.outer, l.reduced, l.inner, graph_pool(node));
  return true;
}

// ---------------------------------------------------------------------------
// Softmax along the last axis.

namespace {

constexpr size_t kSoftmaxTaskElems = size_t{16} << 10;

class SoftmaxKernel final : public ops::OpKernel {
 public:
  SoftmaxKernel(const ops::TensorDesc& x, const ops::TensorDesc& y, size_t rows, size_t cols, double beta,
                pthreadpool_t pool)
      : x_desc_(x), y_desc_(y), rows_(rows), cols_(cols), pool_(pool) {
    // The exponent of code value q in a row whose maximum of beta*x sits at
    // code value q*: beta*scale*(q - q*) = -|beta*scale| * |q - q*|.
    const double s = std::fabs(beta * double{x.quant.scale});
    for (int d = 0; d < 256; ++d) {
      exp_[d] = std::exp(-s * d);
      exp_f_[d] = static_cast<float>(exp_[d]);
    }
    sign_ = beta >= 0 ? 1 : -1;
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    x_ = static_cast<const uint8_t*>(in[0]);
    y_ = static_cast<uint8_t*>(out[0]);
    const size_t rows_per_task = std::max<size_t>(1, kSoftmaxTaskElems / std::max<size_t>(1, cols_));
    auto body = [this](size_t start, size_t count) {
      for (size_t r = start; r < start + count; ++r) row(x_ + r * cols_, y_ + r * cols_);
    };
    run_tiles(rows_ * cols_ >= 2 * kSoftmaxTaskElems ? pool_ : nullptr, rows_, rows_per_task, body);
  }

 private:
  // The reference (softmax.cpp): e_c = exp(beta*x_c - max), kept as float;
  // sum of the double e_c; y_c = float(float(e_c) / sum).
  void row(const uint8_t* x, uint8_t* y) const {
    const bool sgn = x_desc_.dtype == dtype::kSfixed8;
    int best = sgn ? int(int8_t(x[0])) : int(x[0]);
    for (size_t c = 1; c < cols_; ++c) {
      const int q = sgn ? int(int8_t(x[c])) : int(x[c]);
      best = sign_ > 0 ? std::max(best, q) : std::min(best, q);
    }
    double sum = 0.0;
    for (size_t c = 0; c < cols_; ++c) {
      const int q = sgn ? int(int8_t(x[c])) : int(x[c]);
      sum += exp_[std::abs(q - best)];
    }
    const double inv = 1.0 / sum;
    float buf[256];
    for (size_t c0 = 0; c0 < cols_; c0 += 256) {
      const size_t m = std::min<size_t>(256, cols_ - c0);
      for (size_t c = 0; c < m; ++c) {
        const int q = sgn ? int(int8_t(x[c0 + c])) : int(x[c0 + c]);
        buf[c] = static_cast<float>(exp_f_[std::abs(q - best)] * inv);
      }
      quantize_block(buf, m, y_desc_, y + c0);
    }
  }

  ops::TensorDesc x_desc_, y_desc_;
  size_t rows_, cols_;
  pthreadpool_t pool_;
  std::array<double, 256> exp_{};   // exp(-|beta*scale| * d), d = |q - q*|
  std::array<double, 256> exp_f_{};  // the same rounded to float, as the reference stores it
  int sign_ = 1;
  const uint8_t* x_ = nullptr;
  uint8_t* y_ = nullptr;
};

}  // namespace

bool prepare_softmax(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (!is_8bit_per_tensor(x) || !is_8bit_per_tensor(y) || x.static_data != nullptr || x.dims.empty()) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // validates axis, beta, output dims
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  const size_t rank = x.dims.size();
  size_t axis = rank - 1;
  if (const ops::Param* p = node.find_param("axis")) axis = static_cast<size_t>(p->i);
  double beta = 1.0;
  if (const ops::Param* p = node.find_param("beta")) beta = static_cast<float>(p->f);
  // Last axis only (or every later axis of size 1).
  for (size_t ax = axis + 1; ax < rank; ++ax) {
    if (x.dims[ax] != 1) return false;
  }
  const size_t cols = x.dims[axis];
  const size_t rows = x.num_elements() / std::max<size_t>(1, cols);
  if (cols == 0) return false;
  *kernel = std::make_unique<SoftmaxKernel>(x, y, rows, cols, beta, graph_pool(node));
  return true;
}


// ---------------------------------------------------------------------------
// MatMul: the type adapter's work, without its per-element cost.

namespace {

class MatMulKernel final : public ops::OpKernel {
 public:
  MatMulKernel(const ops::TensorDesc& a, const ops::TensorDesc& b, const ops::TensorDesc& y,
               std::vector<float> b_static)
      : a_desc_(a), b_desc_(b), y_desc_(y), a_deq_(dequant_table(a)), b_deq_(dequant_table(b)),
        b_static_(std::move(b_static)) {}

  // Workspace: [a as float + slack][b as float + slack, when not static]
  // [output as float][the float kernel's own].
  void plan(std::unique_ptr<ops::OpKernel> inner) {
    inner_ = std::move(inner);
    const size_t slack = inner_->read_slack_bytes();
    size_t at = 0;
    a_at_ = at;
    at = ops::align_workspace(at + a_desc_.num_elements() * sizeof(float) + slack);
    b_at_ = at;
    if (b_static_.empty()) at = ops::align_workspace(at + b_desc_.num_elements() * sizeof(float) + slack);
    y_at_ = at;
    at = ops::align_workspace(at + y_desc_.num_elements() * sizeof(float));
    inner_at_ = at;
    workspace_ = ops::Workspace(at + inner_->workspace_bytes());
  }

  size_t workspace_bytes() const override { return workspace_.bytes(); }
  void set_workspace(void* memory) override { workspace_.bind(memory); }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    uint8_t* ws = workspace_.data();
    if (ws != inner_bound_) {
      inner_->set_workspace(ws == nullptr || inner_->workspace_bytes() == 0 ? nullptr : ws + inner_at_);
      inner_bound_ = ws;
    }
    float* fa = reinterpret_cast<float*>(ws + a_at_);
    dequantize(static_cast<const uint8_t*>(in[0]), a_desc_.num_elements(), a_deq_, fa);
    const float* fb = b_static_.data();
    if (b_static_.empty()) {
      float* f = reinterpret_cast<float*>(ws + b_at_);
      dequantize(static_cast<const uint8_t*>(in[1]), b_desc_.num_elements(), b_deq_, f);
      fb = f;
    }
    float* fy = reinterpret_cast<float*>(ws + y_at_);
    const void* ins[] = {fa, fb};
    void* outs[] = {fy};
    inner_->run(ins, outs);
    quantize_block(fy, y_desc_.num_elements(), y_desc_, static_cast<uint8_t*>(out[0]));
  }

 private:
  static void dequantize(const uint8_t* x, size_t n, const std::array<float, 256>& t, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = t[x[i]];
  }

  ops::TensorDesc a_desc_, b_desc_, y_desc_;
  std::array<float, 256> a_deq_, b_deq_;
  std::vector<float> b_static_;  // in[1] dequantized once when static (the float kernel packs it)
  std::unique_ptr<ops::OpKernel> inner_;
  ops::Workspace workspace_;
  size_t a_at_ = 0, b_at_ = 0, y_at_ = 0, inner_at_ = 0;
  uint8_t* inner_bound_ = nullptr;
};

}  // namespace

bool prepare_matmul(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  if (!is_8bit_per_tensor(a) || !is_8bit_per_tensor(b) || !is_8bit_per_tensor(y) || a.static_data != nullptr) {
    return false;
  }
  {
    std::unique_ptr<ops::OpKernel> check;  // validates dims and transpose parameters
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  std::vector<float> b_static;
  if (b.static_data != nullptr) {
    const std::array<float, 256> t = dequant_table(b);
    const auto* q = static_cast<const uint8_t*>(b.static_data);
    b_static.resize(b.num_elements());
    for (size_t i = 0; i < b_static.size(); ++i) b_static[i] = t[q[i]];
  }
  // The float twin, as the type adapter describes it: run-time copies are
  // planned tensors (workspace with the inner kernel's read slack).
  ops::TensorDesc fa = a, fb = b, fy = y;
  for (ops::TensorDesc* t : {&fa, &fb, &fy}) {
    t->dtype = dtype::kFloat32;
    t->quant = ops::Quant{};
    t->planned = true;
  }
  fb.static_data = b_static.empty() ? nullptr : b_static.data();
  if (fb.static_data) fb.planned = false;
  const ops::TensorDesc ins[] = {fa, fb};
  const ops::TensorDesc outs[] = {fy};
  ops::NodeDesc twin{node.name, node.type, ins, outs, node.params, node.env};
  twin.parsed = node.parsed;
  std::unique_ptr<ops::OpKernel> inner;
  if (!onednn::prepare_matmul(twin, &inner) || !inner) return false;
  auto k = std::make_unique<MatMulKernel>(a, b, y, std::move(b_static));
  k->plan(std::move(inner));
  *kernel = std::move(k);
  return true;
}

// ---------------------------------------------------------------------------
// LayerNorm: 8-bit per-tensor in and out over a block of trailing axes. The
// reference's arithmetic (layer_norm.cpp: two passes in double, then
// (x - mean) * inv * gamma + beta) on the codes' float values from a
// 256-entry table, one exact quantize per row; gamma and beta converted to
// float once at prepare as the type adapter would on every run. Bit-exact
// with the reference behind the type adapter, and split over the pool by rows.
//
// Fused with the Add before it (ops::kAddLayerNorm, htp/fusion.h), x is the
// Add's float sum of its two dequantized inputs — what the Add computed
// before quantizing it — and the same arithmetic runs on that.

namespace {

constexpr size_t kLayerNormTaskElems = size_t{16} << 10;

class LayerNormKernel final : public ops::OpKernel {
 public:
  // b: the Add's second operand when fused, else nullptr.
  LayerNormKernel(const ops::TensorDesc& x, const ops::TensorDesc* b, const ops::TensorDesc& y, size_t rows,
                  size_t cols, double epsilon, std::vector<float> gamma, std::vector<float> beta, pthreadpool_t pool)
      : y_desc_(y), rows_(rows), cols_(cols), epsilon_(epsilon), deq_(dequant_table(x)),
        sum_(b != nullptr), b_deq_(b != nullptr ? dequant_table(*b) : std::array<float, 256>{}),
        gamma_(std::move(gamma)), beta_(std::move(beta)), pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    x_ = static_cast<const uint8_t*>(in[0]);
    b_ = sum_ ? static_cast<const uint8_t*>(in[1]) : nullptr;
    y_ = static_cast<uint8_t*>(out[0]);
    const size_t rows_per_task = std::max<size_t>(1, kLayerNormTaskElems / std::max<size_t>(1, cols_));
    auto body = [this](size_t start, size_t count) {
      for (size_t r = start; r < start + count; ++r) sum_ ? row<true>(r) : row<false>(r);
    };
    run_tiles(rows_ * cols_ >= 2 * kLayerNormTaskElems ? pool_ : nullptr, rows_, rows_per_task, body);
  }

 private:
  // The reference's arithmetic (ops/trailing_norm.h's statistics)
  // on the codes' float values, or on the float sums a + b.
  template <bool kSum>
  void row(size_t r) const {
    const uint8_t* x = x_ + r * cols_;
    const uint8_t* b = kSum ? b_ + r * cols_ : nullptr;
    uint8_t* y = y_ + r * cols_;
    const float* deq = deq_.data();
    const float* b_deq = b_deq_.data();
    auto value = [&](size_t c) -> float {
      if constexpr (kSum) {
        return deq[x[c]] + b_deq[b[c]];
      } else {
        return deq[x[c]];
      }
    };
    const ops::NormStats st = ops::norm_stats(cols_, true, epsilon_, value);
    float out[256];
    for (size_t c0 = 0; c0 < cols_; c0 += 256) {
      const size_t m = std::min<size_t>(256, cols_ - c0);
      for (size_t c = 0; c < m; ++c) {
        double t = (value(c0 + c) - st.center) * st.inv;
        if (!gamma_.empty()) t *= gamma_[c0 + c];
        if (!beta_.empty()) t += beta_[c0 + c];
        out[c] = static_cast<float>(t);
      }
      quantize_block(out, m, y_desc_, y + c0);
    }
  }

  ops::TensorDesc y_desc_;
  size_t rows_, cols_;
  double epsilon_;
  std::array<float, 256> deq_;
  bool sum_;
  std::array<float, 256> b_deq_;  // the Add's second operand, when sum_
  std::vector<float> gamma_, beta_;  // empty: absent
  pthreadpool_t pool_;
  const uint8_t* x_ = nullptr;
  const uint8_t* b_ = nullptr;
  uint8_t* y_ = nullptr;
};

// A LayerNorm node (inputs x, gamma, beta) or the LayerNorm half of an
// Add -> LayerNorm step (`b`: the Add's second operand): the kernel, or
// false when this path does not cover it.
bool make_layer_norm(const ops::NodeDesc& node, const ops::TensorDesc* b, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.empty() || node.inputs.size() > 3 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (!is_8bit_per_tensor(x) || !is_8bit_per_tensor(y) || x.static_data != nullptr || x.dims.empty()) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // validates axes, epsilon, gamma/beta dims and types
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  // gamma and beta: static (the converter's are), as floats once.
  std::vector<float> affine[2];
  for (size_t i = 1; i < node.inputs.size() && i < 3; ++i) {
    const ops::TensorDesc& t = node.inputs[i];
    if (!t.present) continue;
    if (t.static_data == nullptr) return false;
    affine[i - 1].resize(t.num_elements());
    ops::quant::to_float(t, t.static_data, affine[i - 1].data());
  }
  ops::NormShape shape;
  if (!ops::norm_shape(node, 0.001f, &shape)) return false;
  for (const auto& a : affine) {
    if (!a.empty() && a.size() != shape.cols) return false;
  }
  *kernel = std::make_unique<LayerNormKernel>(x, b, y, shape.rows, shape.cols, shape.epsilon, std::move(affine[0]),
                                              std::move(affine[1]), graph_pool(node));
  return true;
}

}  // namespace

bool prepare_layer_norm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return make_layer_norm(node, nullptr, kernel);
}

bool prepare_add_layer_norm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() < 2 || node.inputs.size() > 4 || node.outputs.size() != 1 || node.has_epilogue()) {
    return false;
  }
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  if (!is_8bit_per_tensor(a) || !is_8bit_per_tensor(b) || a.dims != b.dims || a.static_data != nullptr ||
      b.static_data != nullptr) {
    return false;
  }
  // The LayerNorm as its own node sees it, with a in the sum's place (its
  // dims; the encoding only matters for the table, taken from a and b).
  std::vector<ops::TensorDesc> ins{a};
  for (size_t i = 2; i < node.inputs.size(); ++i) ins.push_back(node.inputs[i]);
  const ops::NodeDesc norm{node.name, "LayerNorm", ins, node.outputs, node.params, node.env};
  return make_layer_norm(norm, &b, kernel);
}

// ---------------------------------------------------------------------------
// Quantize: FLOAT_32 -> 8-bit per-tensor, quantize_block (bit-exact with
// quant.cpp) over tiles of the graph's pool. What a graph whose I/O stays
// float (--preserve_io) does to each float input: an LLM's 2 MiB KV cache on
// every decode step.

namespace {

constexpr size_t kQuantizeTile = size_t{256} << 10;  // elements per pool task

class QuantizeKernel final : public ops::OpKernel {
 public:
  QuantizeKernel(const ops::TensorDesc& y, pthreadpool_t pool) : y_(y), n_(y.num_elements()), pool_(pool) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    x_ = static_cast<const float*>(in[0]);
    q_ = static_cast<uint8_t*>(out[0]);
    auto body = [this](size_t start, size_t count) { quantize_block(x_ + start, count, y_, q_ + start); };
    run_tiles(n_ >= 2 * kQuantizeTile ? pool_ : nullptr, n_, kQuantizeTile, body);
  }

 private:
  ops::TensorDesc y_;
  size_t n_;
  pthreadpool_t pool_;
  const float* x_ = nullptr;
  uint8_t* q_ = nullptr;
};

}  // namespace

bool prepare_quantize(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (x.dtype != dtype::kFloat32 || !is_8bit_per_tensor(y) || x.static_data != nullptr) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // the reference validates shapes and the encoding
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  *kernel = std::make_unique<QuantizeKernel>(y, graph_pool(node));
  return true;
}

}  // namespace openhtp::kernels::q8
