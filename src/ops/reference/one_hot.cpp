// OneHot: y has in[0]'s dims with a new dim of size `depth` inserted at
// `axis` (INT_32, default -1 = last; in [-(q+1), q] for indices rank q);
// y[..., d, ...] = on_value where idx[...] == d, else off_value.
// Indices are INT_32 or UINT_32; a negative index wraps once (+depth) and
// one still outside [0, depth-1] gives an all-off row, as in ONNX (so
// out-of-range indices are not refused, even static ones).
//
// The output is FLOAT_32 or a plain integer type (on/off values must then
// be integers it holds); FLOAT_16 and fixed point reach the FLOAT_32 kernel
// through the type adapter, which quantizes on/off with out[0]'s encoding.
#include <cmath>
#include <utility>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

template <typename T>
class OneHotKernel final : public OpKernel {
 public:
  OneHotKernel(size_t outer, size_t depth, size_t inner, bool is_signed, T on, T off)
      : outer_(outer), depth_(depth), inner_(inner), signed_(is_signed), on_(on), off_(off) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    T* y = static_cast<T*>(out[0]);
    const int64_t depth = static_cast<int64_t>(depth_);
    for (size_t o = 0; o < outer_; ++o)
      for (size_t d = 0; d < depth_; ++d)
        for (size_t i = 0; i < inner_; ++i) {
          int64_t v = read_index(in[0], signed_, o * inner_ + i);
          if (v < 0) v += depth;
          *y++ = v == static_cast<int64_t>(d) ? on_ : off_;
        }
  }

 private:
  size_t outer_, depth_, inner_;
  bool signed_;
  T on_, off_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"depth", "axis", "on_value", "off_value"}); !s.ok()) return s;
  const TensorDesc& idx = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_index_tensor(node, idx, in_label(0, "indices")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  const size_t q = idx.dims.size();
  if (q + 1 > kMaxRank) return unsupported(node, "output rank ", q + 1, " exceeds ", kMaxRank);
  uint32_t depth = 0;
  if (Status s = params.u32_scalar("depth", std::nullopt, &depth); !s.ok()) return s;
  if (depth == 0) return invalid(node, "parameter 'depth' is 0, expected >= 1");
  size_t axis = 0;
  if (Status s = axis_param(node, "axis", -1, static_cast<int64_t>(q + 1), &axis); !s.ok()) return s;
  float on = 1.0f, off = 0.0f;
  if (Status s = params.f32_scalar("on_value", 1.0f, &on); !s.ok()) return s;
  if (Status s = params.f32_scalar("off_value", 0.0f, &off); !s.ok()) return s;
  std::vector<uint32_t> out_dims = idx.dims;
  out_dims.insert(out_dims.begin() + axis, depth);
  uint64_t n = 0;
  if (!checked_num_elements(out_dims, &n) || n > kMaxElements) {
    return unsupported(node, "out[0] dims ", dims_str(out_dims), " hold more than ", kMaxElements, " elements");
  }
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (is_plain_integer(y.dtype)) {
    const std::pair<const char*, float> values[] = {{"on_value", on}, {"off_value", off}};
    for (const auto& [name, v] : values) {
      if (std::floor(v) != v || v < static_cast<double>(quant::qmin(y.dtype)) ||
          v > static_cast<double>(quant::qmax(y.dtype))) {
        return invalid(node, "parameter '", name, "' is ", v, ", expected an integer that out[0]'s ",
                       dtype::name(y.dtype), " holds");
      }
    }
  }
  std::unique_ptr<OpKernel> k;
  const bool known = dispatch_numeric(y.dtype, [&](auto t) {
    using T = decltype(t);
    if (kernel) {
      k = std::make_unique<OneHotKernel<T>>(product(idx.dims, 0, axis), depth, product(idx.dims, axis, q),
                                            idx.dtype == dtype::kInt32, static_cast<T>(on), static_cast<T>(off));
    }
  });
  if (!known) {
    return unsupported(node, "out[0] data type ", dtype::name(y.dtype),
                       " is not supported (FLOAT_32, FLOAT_16, fixed point or a plain integer type)");
  }
  if (kernel) *kernel = std::move(k);
  return Status::Ok();
}

}  // namespace

OpDef one_hot_def() { return {"OneHot", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
