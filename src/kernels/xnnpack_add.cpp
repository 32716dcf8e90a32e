// ElementWiseAdd through XNNPACK's add_nd (numpy broadcasting), FLOAT_32 and
// UFIXED_POINT_8 (each tensor with its own per-tensor encoding; XNNPACK
// refuses scale ratios it cannot represent, and the reference runs).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "kernels/quant_params.h"
#include "kernels/xnnpack_paths.h"
#include "kernels/xnnpack_runtime.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;

// Two shapes of add, two ways to keep XNNPACK's over-read (xnnpack_runtime.h)
// safe without a copy of either input for the graph's life:
//   - dense (both inputs have the output's element count, the usual large
//     case): element-wise on flat arrays. When an input's end could fault,
//     the add runs on all but the last kReadSlack bytes in place — its
//     over-read then stays inside the inputs — and on that tail from copies
//     in two fixed 2 x kReadSlack-byte buffers. No workspace, no read slack,
//     so the plan of a graph of such adds is the plan of its tensors.
//   - broadcasting: XNNPACK re-reads the broadcast operand, so each input
//     is a ReadableInput: planned ones in place (read slack), the others
//     copied into the workspace when their end could fault.
class AddKernel final : public ops::OpKernel {
 public:
  AddKernel(Operator op, bool is_float, const ops::NodeDesc& node, pthreadpool_t pool)
      : op_(std::move(op)), float_(is_float), pool_(pool) {
    elem_ = is_float ? sizeof(float) : 1;
    const size_t n_out = node.outputs[0].num_elements();
    dense_ = true;
    for (size_t i = 0; i < 2; ++i) {
      const auto& d = node.inputs[i].dims;
      rank_[i] = d.size();
      for (size_t k = 0; k < d.size(); ++k) shape_[i][k] = d[k];
      bytes_[i] = node.inputs[i].num_elements() * elem_;
      dense_ = dense_ && node.inputs[i].num_elements() == n_out;
    }
    n_ = n_out;
    if (dense_) return;
    size_t at = 0;
    for (size_t i = 0; i < 2; ++i) {
      input_[i].prepare(node.inputs[i].planned, bytes_[i]);
      copy_at_[i] = at;
      at += input_[i].workspace_bytes();
    }
    workspace_ = ops::Workspace(at);
  }

  size_t workspace_bytes() const override { return workspace_.bytes(); }
  void set_workspace(void* memory) override { workspace_.bind(memory); }
  size_t read_slack_bytes() const override { return dense_ ? 0 : kReadSlack; }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    if (dense_) return run_dense(in[0], in[1], out[0]);
    uint8_t* ws = workspace_.data();
    const void* a = input_[0].readable(in[0], ws + copy_at_[0]);
    const void* b = input_[1].readable(in[1], ws + copy_at_[1]);
    add(rank_[0], shape_[0].data(), rank_[1], shape_[1].data(), a, b, out[0]);
  }

 private:
  // add_nd setup computes broadcast strides from the shapes; it allocates
  // nothing, so it is done per run with the bound pointers (and may change
  // shape from one call to the next).
  void add(size_t rank_a, const size_t* shape_a, size_t rank_b, const size_t* shape_b, const void* a, const void* b,
           void* y) {
    if (float_) {
      xnn_setup_add_nd_f32(op_.get(), rank_a, shape_a, rank_b, shape_b, static_cast<const float*>(a),
                           static_cast<const float*>(b), static_cast<float*>(y), pool_);
    } else {
      xnn_setup_add_nd_qu8(op_.get(), rank_a, shape_a, rank_b, shape_b, static_cast<const uint8_t*>(a),
                           static_cast<const uint8_t*>(b), static_cast<uint8_t*>(y), pool_);
    }
    xnn_run_operator(op_.get(), pool_);
  }

  void run_dense(const void* a, const void* b, void* y) {
    const size_t bytes = n_ * elem_;
    if (tail_readable(a, bytes) && tail_readable(b, bytes)) {
      add(rank_[0], shape_[0].data(), rank_[1], shape_[1].data(), a, b, y);
      return;
    }
    // The bulk reads at most kReadSlack bytes past element bulk - 1: inside
    // the inputs, which go on for tail * elem_ >= kReadSlack more bytes.
    const size_t tail = std::min(n_, kReadSlack / elem_);
    const size_t bulk = n_ - tail;
    if (bulk > 0) add(1, &bulk, 1, &bulk, a, b, y);
    const size_t at = bulk * elem_;
    std::memcpy(tail_a_.data(), static_cast<const uint8_t*>(a) + at, tail * elem_);
    std::memcpy(tail_b_.data(), static_cast<const uint8_t*>(b) + at, tail * elem_);
    add(1, &tail, 1, &tail, tail_a_.data(), tail_b_.data(), static_cast<uint8_t*>(y) + at);
  }

  Operator op_;
  bool float_;
  pthreadpool_t pool_;
  size_t elem_ = 1, n_ = 0;
  bool dense_ = true;
  std::array<size_t, 2> rank_{};
  std::array<std::array<size_t, XNN_MAX_TENSOR_DIMS>, 2> shape_{};
  std::array<size_t, 2> bytes_{};
  // Broadcasting adds only.
  std::array<ReadableInput, 2> input_;
  std::array<size_t, 2> copy_at_{};
  ops::Workspace workspace_;
  // Dense adds only: the tail's inputs with their own padding (constant
  // size, like a lookup table).
  alignas(64) std::array<uint8_t, 2 * kReadSlack> tail_a_{}, tail_b_{};
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
