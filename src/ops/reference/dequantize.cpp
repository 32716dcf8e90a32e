// Dequantize: fixed point -> FLOAT_32 (or FLOAT_16) with in[0]'s encoding,
// x = (q + offset) * scale, per tensor or per channel.
#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

class DequantizeKernel final : public OpKernel {
 public:
  DequantizeKernel(const TensorDesc& in, const TensorDesc& out)
      : in_(in), out_(out), scratch_(out.dtype == dtype::kFloat32 ? 0 : out.num_elements()) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    if (out_.dtype == dtype::kFloat32) {
      quant::to_float(in_, in[0], static_cast<float*>(out[0]));
    } else {  // FLOAT_16: through float, rounded to nearest even once
      quant::to_float(in_, in[0], scratch_.data());
      quant::from_float(out_, scratch_.data(), out[0]);
    }
  }

 private:
  TensorDesc in_, out_;
  std::vector<float> scratch_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (!quant::is_fixed_point(x.dtype)) {
    return invalid(node, "in[0] data type is ", dtype::name(x.dtype), ", expected a fixed-point type");
  }
  if (std::string why = quant::check_encoding(x); !why.empty()) return invalid(node, "in[0] ", why);
  if (y.dtype != dtype::kFloat32 && y.dtype != dtype::kFloat16) {
    return invalid(node, "out[0] data type is ", dtype::name(y.dtype), ", expected FLOAT_32 or FLOAT_16");
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) {
    TensorDesc in = x, out = y;
    in.static_data = out.static_data = nullptr;
    *kernel = std::make_unique<DequantizeKernel>(in, out);
  }
  return Status::Ok();
}

}  // namespace

OpDef dequantize_def() { return {"Dequantize", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
