// CumulativeSum along `axis` (UINT_32, or INT_32 counting from the end;
// mandatory): y[.., i, ..] = sum of x[.., j, ..] over j <= i, or j < i with
// `exclusive` (the first element is then 0), or over j >= i / j > i with
// `reverse` (ONNX CumSum). Same dims and type in and out.
//
// FLOAT_32 sums in double and rounds once; the plain integer types sum
// natively and wrap on overflow. FLOAT_16 and fixed point reach the float
// kernel through the type adapter.
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

template <typename T>
class CumSumKernel final : public OpKernel {
 public:
  CumSumKernel(size_t outer, size_t dim, size_t inner, bool exclusive, bool reverse)
      : outer_(outer), dim_(dim), inner_(inner), exclusive_(exclusive), reverse_(reverse) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const T* x = static_cast<const T*>(in[0]);
    T* y = static_cast<T*>(out[0]);
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
    for (size_t o = 0; o < outer_; ++o)
      for (size_t i = 0; i < inner_; ++i) {
        Acc acc = 0;
        for (size_t s = 0; s < dim_; ++s) {
          const size_t j = reverse_ ? dim_ - 1 - s : s;
          const size_t off = (o * dim_ + j) * inner_ + i;
          const Acc v = static_cast<Acc>(x[off]);  // integers: the wrapping two's complement sum
          if (!exclusive_) acc += v;
          y[off] = static_cast<T>(acc);
          if (exclusive_) acc += v;
        }
      }
  }

 private:
  size_t outer_, dim_, inner_;
  bool exclusive_, reverse_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axis", "exclusive", "reverse"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok()) return s;
  if (y.dtype != x.dtype) {
    return invalid(node, "out[0] data type is ", dtype::name(y.dtype), ", expected in[0]'s ", dtype::name(x.dtype));
  }
  const size_t rank = x.dims.size();
  size_t axis = 0;
  if (Status s = axis_param(node, "axis", std::nullopt, static_cast<int64_t>(rank), &axis); !s.ok()) return s;
  bool exclusive = false, reverse = false;
  if (Status s = params.bool_scalar("exclusive", false, &exclusive); !s.ok()) return s;
  if (Status s = params.bool_scalar("reverse", false, &reverse); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  return make_numeric_kernel(node, x.dtype, "in[0]", kernel, [&](auto t) -> std::unique_ptr<OpKernel> {
    using T = decltype(t);
    return std::make_unique<CumSumKernel<T>>(product(x.dims, 0, axis), x.dims[axis],
                                             product(x.dims, axis + 1, rank), exclusive, reverse);
  });
}

}  // namespace

OpDef cumulative_sum_def() { return {"CumulativeSum", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
