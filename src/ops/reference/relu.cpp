// Relu: y = max(0, x), any shape. Float (FLOAT_16 and fixed point through the
// type adapter), or one plain integer type in and out, computed natively.
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

// T is float or a plain integer type.
template <typename T>
class ReluKernel final : public OpKernel {
 public:
  explicit ReluKernel(size_t n) : n_(n) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const T* x = static_cast<const T*>(in[0]);
    T* y = static_cast<T*>(out[0]);
    // A comparison rather than std::max(0.0f, x): that would turn NaN into 0,
    // this passes NaN through.
    for (size_t i = 0; i < n_; ++i) y[i] = x[i] < T{0} ? T{0} : x[i];
  }

 private:
  size_t n_;
};

std::unique_ptr<OpKernel> make_relu(uint32_t int_type, size_t n) {
  switch (int_type) {
    case dtype::kInt8: return std::make_unique<ReluKernel<int8_t>>(n);
    case dtype::kInt16: return std::make_unique<ReluKernel<int16_t>>(n);
    case dtype::kInt32: return std::make_unique<ReluKernel<int32_t>>(n);
    // max(0, x) is x for unsigned types; the same loop serves.
    case dtype::kUint8: return std::make_unique<ReluKernel<uint8_t>>(n);
    case dtype::kUint16: return std::make_unique<ReluKernel<uint16_t>>(n);
    case dtype::kUint32: return std::make_unique<ReluKernel<uint32_t>>(n);
    default: return std::make_unique<ReluKernel<float>>(n);
  }
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  uint32_t int_type = 0;
  if (Status s = common_integer_type(node, 1, true, &int_type); !s.ok()) return s;
  if (int_type == 0) {
    static constexpr std::string_view kRoles[] = {""};
    if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  }
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  if (Status s = check_output_dims(node, 0, node.inputs[0].dims); !s.ok()) return s;
  if (kernel) *kernel = make_relu(int_type, node.inputs[0].num_elements());
  return Status::Ok();
}

}  // namespace

OpDef relu_def() { return {"Relu", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
