// Transpose: out dim i = in dim perm[i]; y[j0..jr-1] = x[i] with
// i[perm[k]] = j[k]. Type-generic (elements moved by byte size; encodings
// as in data_movement.cpp).
#include <cstring>

#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

class TransposeKernel final : public OpKernel {
 public:
  TransposeKernel(std::vector<uint32_t> out_dims, std::vector<size_t> src_strides, size_t elem,
                  RequantizedOutput output)
      : out_dims_(std::move(out_dims)), src_strides_(std::move(src_strides)), elem_(elem),
        output_(std::move(output)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    uint8_t* dst = output_.target(out[0]);
    // Walk the output in row-major order with an odometer over its index;
    // the source offset follows from the permuted strides.
    const size_t rank = out_dims_.size();
    uint32_t idx[kMaxRank] = {};
    size_t src_off = 0;
    const size_t n = product(out_dims_, 0, rank);
    for (size_t o = 0; o < n; ++o) {
      std::memcpy(dst + o * elem_, src + src_off * elem_, elem_);
      for (size_t k = rank; k-- > 0;) {
        if (++idx[k] < out_dims_[k]) {
          src_off += src_strides_[k];
          break;
        }
        src_off -= src_strides_[k] * (out_dims_[k] - 1);
        idx[k] = 0;
      }
    }
    output_.finish(out[0]);
  }

 private:
  std::vector<uint32_t> out_dims_;
  std::vector<size_t> src_strides_;  // input stride of output axis k
  size_t elem_;
  RequantizedOutput output_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"perm"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  bool requant = false;
  if (Status s = check_moved_io(node, "", &requant); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const size_t rank = x.dims.size();
  const Param* p = node.find_param("perm");
  if (p != nullptr && p->is_tensor && p->dims.size() == 1 && p->dims[0] != rank) {
    return invalid(node, "parameter 'perm' has ", p->dims[0], " entries, expected rank ", rank);
  }
  const uint32_t perm_dims[] = {static_cast<uint32_t>(rank)};
  std::vector<uint32_t> perm;
  if (Status s = params.u32_tensor("perm", perm_dims, {}, &perm); !s.ok()) return s;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    if (perm[i] >= rank) {
      return invalid(node, "parameter 'perm' element ", i, " is ", perm[i], ", expected < rank ", rank,
                     " (perm must be a permutation)");
    }
    if (seen[perm[i]]) {
      return invalid(node, "parameter 'perm' repeats axis ", perm[i], " (perm ", dims_str(perm),
                     " is not a permutation)");
    }
    seen[perm[i]] = true;
  }
  std::vector<uint32_t> out_dims(rank);
  for (size_t i = 0; i < rank; ++i) out_dims[i] = x.dims[perm[i]];
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    const std::vector<size_t> in_strides = row_major_strides(x.dims);
    std::vector<size_t> src_strides(rank);
    for (size_t i = 0; i < rank; ++i) src_strides[i] = in_strides[perm[i]];
    *kernel = std::make_unique<TransposeKernel>(out_dims, std::move(src_strides),
                                                dtype::element_size(x.dtype), RequantizedOutput(requant, x, y));
  }
  return Status::Ok();
}

}  // namespace

OpDef transpose_def() { return {"Transpose", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
