// Argmax / Argmin: index of the largest / smallest element along `axis`
// (first one on ties), written as INT_32 or UINT_32. The two differ only in
// the comparison, so one kernel and one prepare serve both. keep_dims keeps `axis` as a 1; without it
// the axis is dropped, and a rank-1 input gives [1] (rank max(1, N - 1)).
#include <cmath>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;

enum class Select { kMax, kMin };

// The tensor seen as [outer, len, inner]; one index per (outer, inner).
template <Select S>
class ArgSelectKernel final : public OpKernel {
 public:
  ArgSelectKernel(size_t outer, size_t len, size_t inner) : outer_(outer), len_(len), inner_(inner) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    // INT_32 and UINT_32 store indices (< 2^32 - 1, non-negative and at most
    // a uint32 dim) with the same bits.
    uint32_t* y = static_cast<uint32_t*>(out[0]);
    for (size_t o = 0; o < outer_; ++o) {
      for (size_t i = 0; i < inner_; ++i) {
        const float* row = x + o * len_ * inner_ + i;
        // Strictly better: the first of equal extremes wins. NaNs are
        // skipped; a row of NaNs gives index 0.
        size_t best = len_;  // none yet
        for (size_t k = 0; k < len_; ++k) {
          const float v = row[k * inner_];
          if (std::isnan(v)) continue;
          if (best == len_ || better(v, row[best * inner_])) best = k;
        }
        if (best == len_) best = 0;
        y[o * inner_ + i] = static_cast<uint32_t>(best);
      }
    }
  }

 private:
  static bool better(float v, float best) { return S == Select::kMax ? v > best : v < best; }

  size_t outer_, len_, inner_;
};

template <Select S>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_f32_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  const TensorDesc& y = node.outputs[0];
  if (dtype::element_size(y.dtype) == 0) {
    return invalid(node, out_label(0), " has unknown data type 0x", std::hex, y.dtype);
  }
  if (y.dtype != dtype::kInt32 && y.dtype != dtype::kUint32) {
    return invalid(node, out_label(0), " data type is ", dtype::name(y.dtype), ", expected INT_32 or UINT_32");
  }
  ParamReader params(node);
  if (Status s = params.check_names({"axis", "keep_dims"}); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  uint32_t axis = 0;
  if (Status s = params.u32_scalar("axis", std::nullopt, &axis); !s.ok()) return s;
  if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);
  bool keep_dims = false;
  if (Status s = params.bool_scalar("keep_dims", false, &keep_dims); !s.ok()) return s;

  std::vector<uint32_t> out_dims;
  for (uint32_t i = 0; i < rank; ++i) {
    if (i != axis) out_dims.push_back(x.dims[i]);
    else if (keep_dims) out_dims.push_back(1);
  }
  if (out_dims.empty()) out_dims.push_back(1);
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    *kernel = std::make_unique<ArgSelectKernel<S>>(product(x.dims, 0, axis), x.dims[axis],
                                                   product(x.dims, axis + 1, rank));
  }
  return Status::Ok();
}

}  // namespace

OpDef argmax_def() { return {"Argmax", &guarded_prepare<prepare<Select::kMax>>, op_flags::kAdaptTypes}; }
OpDef argmin_def() { return {"Argmin", &guarded_prepare<prepare<Select::kMin>>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
