// Convert: any float-like type (FLOAT_32, FLOAT_16, fixed point) to any
// float-like type, honouring both encodings: y = from_float(out, to_float(in)).
// A requantization between two fixed-point encodings therefore rounds once,
// from the exact real value (up to float precision).
#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

bool float_like(uint32_t dt) {
  return dt == dtype::kFloat32 || dt == dtype::kFloat16 || quant::is_fixed_point(dt);
}

class ConvertKernel final : public OpKernel {
 public:
  ConvertKernel(const TensorDesc& in, const TensorDesc& out)
      : in_(in), out_(out), scratch_(in.num_elements()) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    quant::to_float(in_, in[0], scratch_.data());
    quant::from_float(out_, scratch_.data(), out[0]);
  }

 private:
  TensorDesc in_, out_;
  std::vector<float> scratch_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"dynamic_input_data", "dynamic_output_data"}); !s.ok()) return s;
  bool dyn_in = false, dyn_out = false;
  if (Status s = params.bool_scalar("dynamic_input_data", false, &dyn_in); !s.ok()) return s;
  if (Status s = params.bool_scalar("dynamic_output_data", false, &dyn_out); !s.ok()) return s;
  // Dynamic data means encodings that change at run time; prepare-time
  // encodings are all this backend has.
  if (dyn_in) return unsupported(node, "parameter 'dynamic_input_data' = 1 is not supported");
  if (dyn_out) return unsupported(node, "parameter 'dynamic_output_data' = 1 is not supported");
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (!float_like(x.dtype)) {
    return invalid(node, "in[0] data type is ", dtype::name(x.dtype),
                   ", expected FLOAT_32, FLOAT_16 or fixed point (use Cast for integers)");
  }
  if (!float_like(y.dtype)) {
    return invalid(node, "out[0] data type is ", dtype::name(y.dtype),
                   ", expected FLOAT_32, FLOAT_16 or fixed point (use Cast for integers)");
  }
  if (std::string why = quant::check_encoding(x); !why.empty()) return invalid(node, "in[0] ", why);
  if (std::string why = quant::check_encoding(y); !why.empty()) return invalid(node, "out[0] ", why);
  if (Status s = check_rank(node, x, in_label(0, ""), 0, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) {
    TensorDesc in = x, out = y;
    in.static_data = out.static_data = nullptr;
    *kernel = std::make_unique<ConvertKernel>(in, out);
  }
  return Status::Ok();
}

}  // namespace

OpDef convert_def() { return {"Convert", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
