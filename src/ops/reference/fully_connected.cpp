// FullyConnected: in0 [..., n] read as [batch, n], weights [m, n] (out x in),
// optional bias [m]; y[b][j] = sum_k x[b][k] * w[j][k] + bias[j], out [batch, m].
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxInputRank = 4;  // HTP: rank <= 4

class FullyConnectedKernel final : public OpKernel {
 public:
  FullyConnectedKernel(size_t batch, size_t n, size_t m, bool has_bias)
      : batch_(batch), n_(n), m_(m), has_bias_(has_bias) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* w = static_cast<const float*>(in[1]);
    const float* bias = has_bias_ ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    // Weights are [m, n], so both the input row and each weight row are
    // contiguous in k: every output is one unit-stride dot product.
    for (size_t b = 0; b < batch_; ++b) {
      const float* xr = x + b * n_;
      for (size_t j = 0; j < m_; ++j) {
        const float* wr = w + j * n_;
        float acc = 0.0f;
        for (size_t k = 0; k < n_; ++k) acc += xr[k] * wr[k];
        y[b * m_ + j] = bias ? acc + bias[j] : acc;
      }
    }
  }

 private:
  size_t batch_, n_, m_;
  bool has_bias_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "weights", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"keep_dims"}); !s.ok()) return s;
  bool keep_dims = false;
  if (Status s = params.bool_scalar("keep_dims", false, &keep_dims); !s.ok()) return s;
  if (keep_dims) {
    return unsupported(node, "parameter 'keep_dims' is 1; only keep_dims = 0 is supported");
  }

  const TensorDesc& x = node.inputs[0];
  const TensorDesc& w = node.inputs[1];
  if (Status s = check_rank(node, x, in_label(0, "input"), 1, kMaxInputRank, StatusCode::kUnsupported);
      !s.ok())
    return s;
  if (Status s = check_rank(node, w, in_label(1, "weights"), 2, 2, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t m = w.dims[0];
  const uint32_t n = w.dims[1];
  if (x.dims.back() != n) {
    return invalid(node, "in[0] (input) dim ", x.dims.size() - 1, " is ", x.dims.back(),
                   ", expected n = in[1] (weights) dim 1 = ", n);
  }
  const bool has_bias = has_input(node, 2);
  if (has_bias) {
    const TensorDesc& bias = node.inputs[2];
    if (Status s = check_rank(node, bias, in_label(2, "bias"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (bias.dims[0] != m) {
      return invalid(node, "in[2] (bias) dim 0 is ", bias.dims[0], ", expected m = ", m);
    }
  }
  const uint32_t batch = static_cast<uint32_t>(product(x.dims, 0, x.dims.size() - 1));
  const uint32_t out_dims[] = {batch, m};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) *kernel = with_epilogue(node, std::make_unique<FullyConnectedKernel>(batch, n, m, has_bias));
  return Status::Ok();
}

}  // namespace

OpDef fully_connected_def() { return {"FullyConnected", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
