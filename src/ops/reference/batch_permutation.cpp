// BatchPermutation (Caffe2's op): y[i, ...] = x[idx[i], ...] for the N
// batch entries of x [N, ...]; in[1] holds N indices (INT_32 or UINT_32),
// y has x's dims. Caffe2 knows no negative indices, so static ones must lie
// in [0, N-1]; a dynamic index outside it is wrapped once if negative and
// clamped (gather.cpp's convention), so run() never reads out of bounds.
// Type-generic (elements moved by byte size; encodings as in data_movement.cpp).
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

class BatchPermutationKernel final : public OpKernel {
 public:
  BatchPermutationKernel(size_t n, size_t row_bytes, bool is_signed, RequantizedOutput output)
      : n_(n), row_bytes_(row_bytes), signed_(is_signed), output_(std::move(output)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    uint8_t* dst = output_.target(out[0]);
    for (size_t i = 0; i < n_; ++i) {
      const size_t k = clamp_index(read_index(in[1], signed_, i), static_cast<int64_t>(n_));
      std::memcpy(dst + i * row_bytes_, src + k * row_bytes_, row_bytes_);
    }
    output_.finish(out[0]);
  }

 private:
  size_t n_, row_bytes_;
  bool signed_;
  RequantizedOutput output_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;  // no parameters
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& idx = node.inputs[1];
  const TensorDesc& y = node.outputs[0];
  bool requant = false;
  if (Status s = check_gather_io(node, &requant); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) return s;
  const uint32_t n = x.dims[0];
  if (idx.dims.size() != 1 || idx.dims[0] != n) {
    return invalid(node, "in[1] (indices) dims are ", dims_str(idx.dims), ", expected [", n, "] (in[0]'s batch)");
  }
  if (idx.static_data != nullptr) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = read_index(idx.static_data, idx.dtype == dtype::kInt32, i);
      if (v < 0 || v >= n) return invalid(node, "in[1] (indices) element ", i, " is ", v, ", expected in [0, ", n - 1, "]");
    }
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) {
    const size_t row_bytes = product(x.dims, 1, x.dims.size()) * dtype::element_size(x.dtype);
    *kernel = std::make_unique<BatchPermutationKernel>(n, row_bytes, idx.dtype == dtype::kInt32,
                                                       RequantizedOutput(requant, x, y));
  }
  return Status::Ok();
}

}  // namespace

OpDef batch_permutation_def() { return {"BatchPermutation", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
