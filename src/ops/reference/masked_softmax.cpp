// MaskedSoftmax: a softmax along the last axis of in[0] = [b,h,w,c] that
// ignores masked-off positions, for attention scores. in[1] is the mask; its
// form is set by `mode` (QnnOpDef.h):
//   UNCOMPRESSED (0, default): in[1] = [b or 1, c], added to every row of
//     its batch before the softmax: y = softmax(x + mask). Kept positions
//     carry 0, masked ones a large negative number (-10000 and the like).
//   COMPRESSED (1): in[1] = [b or 1, S] holds the lengths of S sequences
//     packed one after another along w and c (w == c): row i, in sequence k
//     (start_k <= i < start_k + len_k), is a softmax over its own sequence's
//     columns and 0 elsewhere; rows past the last sequence are all 0. This is
//     the block-diagonal mask QNN's converter expands the lengths into; it
//     replaces masked inputs by -10000 before the softmax, the reference
//     leaves them out exactly (the two differ by about e^-10000).
// Data is float (FLOAT_16 and fixed point through the type adapter); the
// compressed mask may also be INT_32 or UINT_32.
#include <cmath>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr uint32_t kUncompressed = 0;
constexpr uint32_t kCompressed = 1;

// Softmax of x[lo..hi) (+ add[lo..hi) when given) into y[lo..hi), in double.
// Subtracting the maximum keeps every exponent <= 0; the largest term is 1.
void softmax_span(const float* x, const float* add, float* y, size_t lo, size_t hi) {
  auto v = [&](size_t j) { return add ? double{x[j]} + add[j] : double{x[j]}; };
  double m = v(lo);
  for (size_t j = lo + 1; j < hi; ++j) m = std::fmax(m, v(j));
  double sum = 0.0;
  for (size_t j = lo; j < hi; ++j) {
    const double e = std::exp(v(j) - m);
    y[j] = static_cast<float>(e);
    sum += e;
  }
  const double inv = 1.0 / sum;
  for (size_t j = lo; j < hi; ++j) y[j] = static_cast<float>(y[j] * inv);
}

class UncompressedKernel final : public OpKernel {
 public:
  // rows_per_batch = h * w; mask_batched: the mask has one row per batch.
  UncompressedKernel(size_t b, size_t rows_per_batch, size_t c, bool mask_batched)
      : b_(b), rows_(rows_per_batch), c_(c), mask_batched_(mask_batched) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* mask = static_cast<const float*>(in[1]);
    float* y = static_cast<float*>(out[0]);
    for (size_t n = 0; n < b_; ++n) {
      const float* m = mask + (mask_batched_ ? n * c_ : 0);
      for (size_t r = 0; r < rows_; ++r) {
        const size_t at = (n * rows_ + r) * c_;
        softmax_span(x + at, m, y + at, 0, c_);
      }
    }
  }

 private:
  size_t b_, rows_, c_;
  bool mask_batched_;
};

// The lengths' element type, read at run time (the mask may be an input).
enum class LengthType { kFloat, kInt32, kUint32 };

class CompressedKernel final : public OpKernel {
 public:
  CompressedKernel(size_t b, size_t h, size_t c, size_t num_seqs, bool mask_batched, LengthType type)
      : b_(b), h_(h), c_(c), s_(num_seqs), mask_batched_(mask_batched), type_(type), ends_(num_seqs) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    for (size_t n = 0; n < b_; ++n) {
      sequence_ends(in[1], mask_batched_ ? n * s_ : 0);
      for (size_t hh = 0; hh < h_; ++hh) {
        for (size_t i = 0; i < c_; ++i) {  // row i of the w == c square
          const size_t at = ((n * h_ + hh) * c_ + i) * c_;
          size_t lo = 0, hi = 0;  // row i's sequence; empty past the last one
          for (size_t k = 0, start = 0; k < s_; start = ends_[k++]) {
            if (i >= start && i < ends_[k]) {
              lo = start;
              hi = ends_[k];
              break;
            }
          }
          for (size_t j = 0; j < c_; ++j) {
            if (j < lo || j >= hi) y[at + j] = 0.0f;
          }
          if (lo < hi) softmax_span(x + at, nullptr, y + at, lo, hi);
        }
      }
    }
  }

 private:
  // ends_[k] = start of sequence k+1, from the lengths at mask[first..]. A
  // negative (or fractional) length counts as its floor, at least 0, and the
  // packed sequences stop at c: QNN requires sum(lengths) <= c, and run()
  // cannot refuse, so longer ones are cut rather than read past the row.
  void sequence_ends(const void* mask, size_t first) {
    size_t end = 0;
    for (size_t k = 0; k < s_; ++k) {
      double len = 0.0;
      switch (type_) {
        case LengthType::kFloat: len = static_cast<const float*>(mask)[first + k]; break;
        case LengthType::kInt32: len = static_cast<const int32_t*>(mask)[first + k]; break;
        case LengthType::kUint32: len = static_cast<const uint32_t*>(mask)[first + k]; break;
      }
      len = std::floor(len);
      if (!(len > 0.0)) len = 0.0;  // NaN too
      end = len >= static_cast<double>(c_ - end) ? c_ : end + static_cast<size_t>(len);
      ends_[k] = end;
    }
  }

  size_t b_, h_, c_, s_;
  bool mask_batched_;
  LengthType type_;
  std::vector<size_t> ends_;  // sized at prepare
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"mode"}); !s.ok()) return s;
  uint32_t mode = kUncompressed;
  if (Status s = params.u32_scalar("mode", kUncompressed, &mode); !s.ok()) return s;
  if (mode != kUncompressed && mode != kCompressed) {
    return invalid(node, "parameter 'mode' is ", mode, ", expected 0 (UNCOMPRESSED) or 1 (COMPRESSED)");
  }
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& mask = node.inputs[1];
  if (Status s = check_f32_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  LengthType length_type = LengthType::kFloat;
  if (mode == kCompressed && mask.present && (mask.dtype == dtype::kInt32 || mask.dtype == dtype::kUint32)) {
    length_type = mask.dtype == dtype::kInt32 ? LengthType::kInt32 : LengthType::kUint32;
    TensorDesc as_float = mask;  // the float check's shape rules
    as_float.dtype = dtype::kFloat32;
    if (Status s = check_f32_tensor(node, as_float, in_label(1, "mask")); !s.ok()) return s;
  } else if (Status s = check_f32_tensor(node, mask, in_label(1, "mask")); !s.ok()) {
    if (mode == kCompressed) s.message += " (or INT_32/UINT_32 sequence lengths)";
    return s;
  }
  if (Status s = check_rank(node, x, in_label(0, ""), 4, 4, StatusCode::kInvalidArgument); !s.ok()) {
    s.message += " ([b,h,w,c])";
    return s;
  }
  const uint32_t b = x.dims[0], h = x.dims[1], w = x.dims[2], c = x.dims[3];
  if (Status s = check_rank(node, mask, in_label(1, "mask"), 2, 2, StatusCode::kInvalidArgument); !s.ok())
    return s;
  if (mask.dims[0] != 1 && mask.dims[0] != b) {
    return invalid(node, "in[1] (mask) dim 0 is ", mask.dims[0], ", expected 1 or in[0]'s batch ", b);
  }
  if (mode == kUncompressed && mask.dims[1] != c) {
    return invalid(node, "in[1] (mask) dim 1 is ", mask.dims[1], ", expected in[0]'s channel dim ", c);
  }
  if (mode == kCompressed && w != c) {
    return invalid(node, "in[0] dims are ", dims_str(x.dims),
                   ": mode COMPRESSED needs width == channel (one row and one column per position)");
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;

  if (kernel) {
    const bool batched = mask.dims[0] == b && b > 1;
    if (mode == kUncompressed) {
      *kernel = std::make_unique<UncompressedKernel>(b, size_t{h} * w, c, batched);
    } else {
      *kernel = std::make_unique<CompressedKernel>(b, h, c, mask.dims[1], batched, length_type);
    }
  }
  return Status::Ok();
}

}  // namespace

OpDef masked_softmax_def() { return {"MaskedSoftmax", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
