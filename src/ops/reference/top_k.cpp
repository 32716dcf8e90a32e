// TopK along the last axis: the k largest (largest = 1) or smallest
// (largest = 0) elements of each row, best first, with their indices.
// out0 holds the values (float-like, adapted like in0), out1 the indices
// (INT_32 or UINT_32), both of dims in0.dims with the last dim set to k.
//
// Ties: equal values are ordered larger index first. That is what the op
// facts (§4.2, TopK row: "ties -> larger index first") state for QNN, and
// the facts are what this backend follows; note it is the opposite of the
// TensorFlow/ONNX convention (lower index first), so a converted model that
// relies on tie order may see the indices of equal values swapped.
// NaN is ordered above every number (first for largest = 1, last for 0), so
// the order is total and the sort well defined.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

class TopKKernel final : public OpKernel {
 public:
  TopKKernel(size_t rows, size_t cols, size_t k, bool largest)
      : rows_(rows), cols_(cols), k_(k), largest_(largest), order_(cols) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* values = static_cast<float*>(out[0]);
    // INT_32 and UINT_32 hold the (non-negative, < 2^32) indices with the same bits.
    uint32_t* indices = static_cast<uint32_t*>(out[1]);
    for (size_t r = 0; r < rows_; ++r, x += cols_, values += k_, indices += k_) {
      for (size_t c = 0; c < cols_; ++c) order_[c] = static_cast<uint32_t>(c);
      // "a comes before b": better value, or equal value and larger index.
      auto before = [&](uint32_t a, uint32_t b) {
        const int cmp = compare(x[a], x[b]);
        if (cmp != 0) return largest_ ? cmp > 0 : cmp < 0;
        return a > b;
      };
      std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(k_), order_.end(), before);
      for (size_t j = 0; j < k_; ++j) {
        values[j] = x[order_[j]];
        indices[j] = order_[j];
      }
    }
  }

 private:
  // Three-way compare with NaN above everything (and equal to itself).
  static int compare(float a, float b) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return static_cast<int>(na) - static_cast<int>(nb);
    return (a > b) - (a < b);
  }

  size_t rows_, cols_, k_;
  bool largest_;
  std::vector<uint32_t> order_;  // one row's index permutation, sized at prepare
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 2); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_f32_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  const TensorDesc& idx = node.outputs[1];
  if (dtype::element_size(idx.dtype) == 0) {
    return invalid(node, out_label(1), " has unknown data type 0x", std::hex, idx.dtype);
  }
  if (idx.dtype != dtype::kInt32 && idx.dtype != dtype::kUint32) {
    return invalid(node, out_label(1), " (indices) data type is ", dtype::name(idx.dtype),
                   ", expected INT_32 or UINT_32");
  }
  ParamReader params(node);
  if (Status s = params.check_names({"k", "largest"}); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  uint32_t k = 0;
  if (Status s = params.u32_scalar("k", std::nullopt, &k); !s.ok()) return s;
  const uint32_t last = x.dims.back();
  if (k == 0 || k > last) {
    return invalid(node, "parameter 'k' is ", k, ", expected 1 to the last dim of in[0] (", last, ")");
  }
  bool largest = true;
  if (Status s = params.bool_scalar("largest", true, &largest); !s.ok()) return s;
  std::vector<uint32_t> out_dims = x.dims;
  out_dims.back() = k;
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (Status s = check_output_dims(node, 1, out_dims); !s.ok()) return s;

  if (kernel) *kernel = std::make_unique<TopKKernel>(x.num_elements() / last, last, k, largest);
  return Status::Ok();
}

}  // namespace

OpDef top_k_def() { return {"TopK", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
