// IsInf and IsNan: a BOOL_8 tensor saying, element by element, whether the
// float input is infinite (IsInf, each sign enabled by `detect_negative` /
// `detect_positive`, both true by default as in ONNX IsInf) or NaN (IsNan).
// The input is float (FLOAT_16 and fixed point through the type adapter; a
// fixed-point value is always finite); the output is BOOL_8, same shape.
#include <cmath>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

// y[i] = test(x[i]) as 0/1 bytes.
template <typename Fn>
class TestKernel final : public OpKernel {
 public:
  TestKernel(size_t n, Fn test) : n_(n), test_(test) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    uint8_t* y = static_cast<uint8_t*>(out[0]);
    for (size_t i = 0; i < n_; ++i) y[i] = test_(x[i]) ? 1 : 0;
  }

 private:
  size_t n_;
  Fn test_;
};

template <typename Fn>
std::unique_ptr<OpKernel> make_test(size_t n, Fn test) {
  return std::make_unique<TestKernel<Fn>>(n, test);
}

// in[0] float, out[0] BOOL_8 of in[0]'s dims.
Status check_io(const NodeDesc& node) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (x.present && x.dtype == dtype::kBool8) {
    return unsupported(node, "in[0] data type is BOOL_8, expected a float type");
  }
  if (Status s = check_f32_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (y.present && y.dtype != dtype::kBool8) {
    // Float-like types all look like FLOAT_32 here (the type adapter).
    const std::string got = y.dtype == dtype::kFloat32 ? "a float type" : dtype::name(y.dtype);
    return invalid(node, "out[0] data type is ", got, ", expected BOOL_8");
  }
  TensorDesc as_float = y;  // the float check's shape rules, on the bool output
  as_float.dtype = dtype::kFloat32;
  if (Status s = check_f32_tensor(node, as_float, out_label(0)); !s.ok()) return s;
  return check_output_dims(node, 0, x.dims);
}

Status prepare_is_inf(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io(node); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"detect_negative", "detect_positive"}); !s.ok()) return s;
  bool neg = true, pos = true;
  if (Status s = params.bool_scalar("detect_negative", true, &neg); !s.ok()) return s;
  if (Status s = params.bool_scalar("detect_positive", true, &pos); !s.ok()) return s;
  if (kernel) {
    *kernel = make_test(node.inputs[0].num_elements(),
                        [neg, pos](float v) { return std::isinf(v) && (v > 0.0f ? pos : neg); });
  }
  return Status::Ok();
}

Status prepare_is_nan(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io(node); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  if (kernel) *kernel = make_test(node.inputs[0].num_elements(), [](float v) { return std::isnan(v); });
  return Status::Ok();
}

}  // namespace

OpDef is_inf_def() { return {"IsInf", &guarded_prepare<prepare_is_inf>, op_flags::kAdaptTypes}; }
OpDef is_nan_def() { return {"IsNan", &guarded_prepare<prepare_is_nan>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
