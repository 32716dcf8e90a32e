// ElementWiseAdd / ElementWiseMultiply with numpy-style broadcasting.
#include <array>
#include <functional>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank 1..5

// Walks the output in row-major order. The innermost axis is a plain strided
// loop; the outer axes advance an index counter kept on the stack, so run()
// allocates nothing.
template <typename Fn>
class BinaryKernel final : public OpKernel {
 public:
  BinaryKernel(std::span<const uint32_t> out_dims, std::span<const size_t> a_strides,
               std::span<const size_t> b_strides)
      : rank_(out_dims.size()) {
    for (size_t i = 0; i < rank_; ++i) {
      dims_[i] = out_dims[i];
      a_strides_[i] = a_strides[i];
      b_strides_[i] = b_strides[i];
    }
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* a = static_cast<const float*>(in[0]);
    const float* b = static_cast<const float*>(in[1]);
    float* y = static_cast<float*>(out[0]);
    const size_t last = rank_ - 1;
    const size_t inner = dims_[last];
    const size_t as = a_strides_[last];
    const size_t bs = b_strides_[last];
    size_t outer = 1;
    for (size_t i = 0; i < last; ++i) outer *= dims_[i];

    std::array<size_t, kMaxRank> idx{};
    size_t a_off = 0, b_off = 0;
    const Fn fn;
    for (size_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < inner; ++k) y[k] = fn(a[a_off + k * as], b[b_off + k * bs]);
      y += inner;
      // Odometer step over the outer axes, updating both input offsets.
      for (size_t ax = last; ax-- > 0;) {
        a_off += a_strides_[ax];
        b_off += b_strides_[ax];
        if (++idx[ax] < dims_[ax]) break;
        a_off -= a_strides_[ax] * dims_[ax];
        b_off -= b_strides_[ax] * dims_[ax];
        idx[ax] = 0;
      }
    }
  }

 private:
  size_t rank_;
  std::array<size_t, kMaxRank> dims_{};
  std::array<size_t, kMaxRank> a_strides_{};
  std::array<size_t, kMaxRank> b_strides_{};
};

template <typename Fn>
Status prepare_binary(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 2, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"", ""};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;

  const TensorDesc& a = node.inputs[0];
  const TensorDesc& b = node.inputs[1];
  for (size_t i = 0; i < 2; ++i) {
    if (Status s = check_rank(node, node.inputs[i], in_label(i, ""), 0, kMaxRank,
                              StatusCode::kUnsupported);
        !s.ok())
      return s;
  }
  std::vector<uint32_t> out_dims;
  size_t bad = 0;
  if (!broadcast_shape(a.dims, b.dims, &out_dims, &bad)) {
    const size_t ai = bad + a.dims.size() - out_dims.size();
    const size_t bi = bad + b.dims.size() - out_dims.size();
    return invalid(node, "in[0] dim ", ai, " is ", a.dims[ai], " and in[1] dim ", bi, " is ",
                   b.dims[bi], ": not broadcastable (must be equal or one of them 1)");
  }
  if (out_dims.empty()) {
    return unsupported(node, "rank-0 (scalar) operands only; output rank must be 1 to ", kMaxRank);
  }
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    *kernel = std::make_unique<BinaryKernel<Fn>>(out_dims, broadcast_strides(a.dims, out_dims),
                                                  broadcast_strides(b.dims, out_dims));
  }
  return Status::Ok();
}

}  // namespace

OpDef elementwise_add_def() {
  return {"ElementWiseAdd", &guarded_prepare<prepare_binary<std::plus<float>>>, op_flags::kAdaptTypes};
}

OpDef elementwise_multiply_def() {
  return {"ElementWiseMultiply", &guarded_prepare<prepare_binary<std::multiplies<float>>>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
