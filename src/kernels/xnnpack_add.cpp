// ElementWiseAdd through XNNPACK's add_nd (numpy broadcasting), FLOAT_32 and
// UFIXED_POINT_8 (each tensor with its own per-tensor encoding; XNNPACK
// refuses scale ratios it cannot represent, and the reference runs).
#include <array>
#include <cmath>

#include "kernels/quant_params.h"
#include "kernels/xnnpack_paths.h"
#include "kernels/xnnpack_runtime.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;

class AddKernel final : public ops::OpKernel {
 public:
  AddKernel(Operator op, bool is_float, const ops::NodeDesc& node, pthreadpool_t pool)
      : op_(std::move(op)), float_(is_float), pool_(pool) {
    const size_t elem = is_float ? sizeof(float) : 1;
    for (size_t i = 0; i < 2; ++i) {
      const auto& d = node.inputs[i].dims;
      rank_[i] = d.size();
      for (size_t k = 0; k < d.size(); ++k) shape_[i][k] = d[k];
      bytes_[i] = node.inputs[i].num_elements() * elem;
      input_[i].reserve(bytes_[i]);
    }
  }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const void* a = input_[0].readable(in[0], bytes_[0]);
    const void* b = input_[1].readable(in[1], bytes_[1]);
    // add_nd setup computes broadcast strides from the shapes; it allocates
    // nothing, so it is done per run with the bound pointers.
    if (float_) {
      xnn_setup_add_nd_f32(op_.get(), rank_[0], shape_[0].data(), rank_[1], shape_[1].data(),
                           static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(out[0]),
                           pool_);
    } else {
      xnn_setup_add_nd_qu8(op_.get(), rank_[0], shape_[0].data(), rank_[1], shape_[1].data(),
                           static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                           static_cast<uint8_t*>(out[0]), pool_);
    }
    xnn_run_operator(op_.get(), pool_);
  }

 private:
  Operator op_;
  bool float_;
  pthreadpool_t pool_;
  std::array<size_t, 2> rank_{};
  std::array<std::array<size_t, XNN_MAX_TENSOR_DIMS>, 2> shape_{};
  std::array<size_t, 2> bytes_{};
  std::array<ReadableInput, 2> input_;
};

}  // namespace

bool prepare_add(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (!ready() || node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  for (const ops::TensorDesc& t : node.inputs) {
    if (t.dims.empty() || t.dims.size() > XNN_MAX_TENSOR_DIMS) return false;
  }
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  xnn_operator_t op = nullptr;
  bool is_float = false;
  if (a.dtype == dtype::kFloat32 && b.dtype == dtype::kFloat32 && y.dtype == dtype::kFloat32) {
    if (xnn_create_add_nd_f32(-INFINITY, INFINITY, kRunFlags, &op) != xnn_status_success) return false;
    is_float = true;
  } else {
    const auto a_zp = u8_zero_point(a), b_zp = u8_zero_point(b), y_zp = u8_zero_point(y);
    if (!a_zp || !b_zp || !y_zp) return false;
    if (xnn_create_add_nd_qu8(*a_zp, a.quant.scale, *b_zp, b.quant.scale, *y_zp, y.quant.scale, 0, 255, kRunFlags, &op) !=
        xnn_status_success) {
      return false;
    }
  }
  *kernel = std::make_unique<AddKernel>(Operator(op), is_float, node, pool_for(node, y.num_elements()));
  return true;
}

}  // namespace openhtp::kernels::xnn
