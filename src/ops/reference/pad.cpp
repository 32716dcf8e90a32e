// Pad: out dim k = pad_amount[k][0] + in dim k + pad_amount[k][1]. Output
// position p along axis k reads input position i = p - before, or, outside
// [0, dim):
//   CONSTANT          pad_constant_value
//   MIRROR_SYMMETRIC  mirrored with the edge repeated:  -1 -> 0, dim -> dim-1
//                     (each pad <= dim)
//   MIRROR_REFLECT    mirrored about the edge element:  -1 -> 1, dim -> dim-2
//                     (each pad <= dim-1)
//   EDGE              the edge element
// Type-generic (data_movement.cpp). The constant is stored in in[0]'s type:
// quantized with in[0]'s encoding for fixed point (as the HTP does), rounded
// and saturated for plain integers. If out[0]'s encoding differs, the padded
// tensor is then requantized as a whole, constant included.
#include <cstring>

#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;
constexpr uint32_t kConstant = 0, kMirrorSymmetric = 1, kMirrorReflect = 2, kEdge = 3;
constexpr int64_t kPadded = -1;  // source index meaning "the constant"

class PadKernel final : public OpKernel {
 public:
  // sources[k][p]: input index along axis k for output position p, or kPadded.
  PadKernel(std::vector<uint32_t> out_dims, std::vector<std::vector<int64_t>> sources,
            std::vector<size_t> in_strides, size_t elem, std::vector<uint8_t> constant, RequantizedOutput output)
      : out_dims_(std::move(out_dims)), sources_(std::move(sources)), in_strides_(std::move(in_strides)),
        elem_(elem), constant_(std::move(constant)), output_(std::move(output)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    uint8_t* dst = output_.target(out[0]);
    const size_t rank = out_dims_.size();
    uint32_t idx[kMaxRank] = {};
    const size_t n = product(out_dims_, 0, rank);
    for (size_t o = 0; o < n; ++o) {
      size_t off = 0;
      bool padded = false;
      for (size_t k = 0; k < rank; ++k) {
        const int64_t i = sources_[k][idx[k]];
        if (i == kPadded) {
          padded = true;
          break;
        }
        off += static_cast<size_t>(i) * in_strides_[k];
      }
      std::memcpy(dst + o * elem_, padded ? constant_.data() : src + off * elem_, elem_);
      for (size_t k = rank; k-- > 0;) {
        if (++idx[k] < out_dims_[k]) break;
        idx[k] = 0;
      }
    }
    output_.finish(out[0]);
  }

 private:
  std::vector<uint32_t> out_dims_;
  std::vector<std::vector<int64_t>> sources_;
  std::vector<size_t> in_strides_;
  size_t elem_;
  std::vector<uint8_t> constant_;
  RequantizedOutput output_;
};

int64_t source_index(int64_t i, int64_t dim, uint32_t scheme) {
  if (i >= 0 && i < dim) return i;
  switch (scheme) {
    case kMirrorSymmetric: return i < 0 ? -i - 1 : 2 * dim - 1 - i;
    case kMirrorReflect: return i < 0 ? -i : 2 * (dim - 1) - i;
    case kEdge: return i < 0 ? 0 : dim - 1;
    default: return kPadded;
  }
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"scheme", "pad_amount", "pad_constant_value"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  bool requant = false;
  if (Status s = check_moved_io(node, "", &requant); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const size_t rank = x.dims.size();
  uint32_t scheme = 0;
  if (Status s = params.u32_scalar("scheme", std::nullopt, &scheme); !s.ok()) return s;
  if (scheme > kEdge) {
    return invalid(node, "parameter 'scheme' is ", scheme,
                   ", expected 0 (CONSTANT), 1 (MIRROR_SYMMETRIC), 2 (MIRROR_REFLECT) or 3 (EDGE)");
  }
  const uint32_t pad_dims[] = {static_cast<uint32_t>(rank), 2};
  std::vector<uint32_t> pad;
  if (Status s = params.u32_tensor("pad_amount", pad_dims, {}, &pad); !s.ok()) return s;
  float constant = 0.0f;
  if (Status s = params.f32_scalar("pad_constant_value", 0.0f, &constant); !s.ok()) return s;

  std::vector<uint32_t> out_dims(rank);
  for (size_t k = 0; k < rank; ++k) {
    const uint32_t dim = x.dims[k];
    for (size_t side = 0; side < 2; ++side) {
      const uint32_t amount = pad[2 * k + side];
      const char* side_name = side == 0 ? "before" : "after";
      if (scheme == kMirrorSymmetric && amount > dim) {
        return invalid(node, "parameter 'pad_amount' ", side_name, " axis ", k, " is ", amount,
                       ", MIRROR_SYMMETRIC allows at most the dim size ", dim);
      }
      if (scheme == kMirrorReflect && amount > dim - 1) {
        return invalid(node, "parameter 'pad_amount' ", side_name, " axis ", k, " is ", amount,
                       ", MIRROR_REFLECT allows at most dim size - 1 = ", dim - 1);
      }
    }
    const uint64_t total = uint64_t{pad[2 * k]} + dim + pad[2 * k + 1];
    if (total > UINT32_MAX) return invalid(node, "padded dim ", k, " is ", total, ", which does not fit 32 bits");
    out_dims[k] = static_cast<uint32_t>(total);
  }
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    std::vector<std::vector<int64_t>> sources(rank);
    for (size_t k = 0; k < rank; ++k) {
      sources[k].resize(out_dims[k]);
      for (uint32_t p = 0; p < out_dims[k]; ++p) {
        sources[k][p] = source_index(int64_t{p} - pad[2 * k], x.dims[k], scheme);
      }
    }
    // The constant in in[0]'s representation: from_float applies the
    // encoding's rounding and saturation exactly as for any other value.
    TensorDesc one = x;
    one.dims = {1};
    one.static_data = nullptr;
    std::vector<uint8_t> bytes(dtype::element_size(x.dtype));
    quant::from_float(one, &constant, bytes.data());
    *kernel = std::make_unique<PadKernel>(out_dims, std::move(sources), row_major_strides(x.dims),
                                          dtype::element_size(x.dtype), std::move(bytes),
                                          RequantizedOutput(requant, x, y));
  }
  return Status::Ok();
}

}  // namespace

OpDef pad_def() { return {"Pad", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
