// Quantize: FLOAT_32 -> fixed point with out[0]'s encoding,
// q = clamp(round_half_even(x / scale) - offset, qmin, qmax) (QNN's offset is
// the negative zero point, facts §4.4). Per-channel encodings are honoured.
#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

class QuantizeKernel final : public OpKernel {
 public:
  explicit QuantizeKernel(const TensorDesc& out) : out_(out) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    quant::from_float(out_, static_cast<const float*>(in[0]), out[0]);
  }

 private:
  TensorDesc out_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (x.dtype != dtype::kFloat32) {
    return invalid(node, "in[0] data type is ", dtype::name(x.dtype), ", expected FLOAT_32");
  }
  if (!quant::is_fixed_point(y.dtype)) {
    return invalid(node, "out[0] data type is ", dtype::name(y.dtype), ", expected a fixed-point type");
  }
  if (std::string why = quant::check_encoding(y); !why.empty()) return invalid(node, "out[0] ", why);
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) {
    TensorDesc out = y;
    out.static_data = nullptr;
    *kernel = std::make_unique<QuantizeKernel>(out);
  }
  return Status::Ok();
}

}  // namespace

OpDef quantize_def() { return {"Quantize", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
