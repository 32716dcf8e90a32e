// ArgbToRgb: [b, h, w, 4] ARGB (input_order 0) or RGBA (1) pixels to
// [b, h, w, 3] RGB, dropping alpha; reverse_output gives BGR instead.
// Type-generic (elements moved by byte size; encodings as in
// data_movement.cpp), since it only moves channels.
#include <array>
#include <cstring>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr uint32_t kArgb = 0, kRgba = 1;

class ArgbToRgbKernel final : public OpKernel {
 public:
  ArgbToRgbKernel(size_t pixels, size_t elem, std::array<size_t, 3> src, RequantizedOutput output)
      : pixels_(pixels), elem_(elem), src_(src), output_(std::move(output)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* x = static_cast<const uint8_t*>(in[0]);
    uint8_t* y = output_.target(out[0]);
    for (size_t p = 0; p < pixels_; ++p) {
      for (size_t c = 0; c < 3; ++c) std::memcpy(y + (p * 3 + c) * elem_, x + (p * 4 + src_[c]) * elem_, elem_);
    }
    output_.finish(out[0]);
  }

 private:
  size_t pixels_, elem_;
  std::array<size_t, 3> src_;  // input channel of output channel c
  RequantizedOutput output_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"input_order", "reverse_output"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  bool requant = false;
  if (Status s = check_moved_io(node, "input", &requant); !s.ok()) return s;
  uint32_t order = kArgb;
  if (Status s = params.u32_scalar("input_order", kArgb, &order); !s.ok()) return s;
  if (order != kArgb && order != kRgba) {
    return invalid(node, "parameter 'input_order' is ", order, ", expected 0 (ARGB) or 1 (RGBA)");
  }
  bool reverse = false;
  if (Status s = params.bool_scalar("reverse_output", std::nullopt, &reverse); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, "input"), 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (x.dims[3] != 4) return invalid(node, "in[0] (input) dim 3 is ", x.dims[3], ", expected 4 channels");
  const uint32_t out_dims[] = {x.dims[0], x.dims[1], x.dims[2], 3};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    // The colour channels sit at 1..3 (ARGB) or 0..2 (RGBA); reverse_output
    // reverses those three whichever the input order (QNN's "last 3
    // channels" read as the colour channels, alpha never being output).
    const size_t first = order == kArgb ? 1 : 0;
    std::array<size_t, 3> src{first, first + 1, first + 2};
    if (reverse) std::swap(src[0], src[2]);
    *kernel = std::make_unique<ArgbToRgbKernel>(size_t{x.dims[0]} * x.dims[1] * x.dims[2],
                                                dtype::element_size(x.dtype), src, RequantizedOutput(requant, x, y));
  }
  return Status::Ok();
}

}  // namespace

OpDef argb_to_rgb_def() { return {"ArgbToRgb", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
