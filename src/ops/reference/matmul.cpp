// MatMul: batched A x B with numpy-style broadcasting of the batch dims.
// in0 [..., m0, n0], in1 [..., m1, n1]; transpose_in0/1 swap each operand's
// last two dims first, giving A [M, K] and B [K, N]; optional bias [N] is
// added to every output row. Output [broadcast(batch0, batch1)..., M, N].
#include <algorithm>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

constexpr size_t kMaxRank = 4;  // HTP: rank <= 4

class MatMulKernel final : public OpKernel {
 public:
  struct Geometry {
    size_t M, N, K;
    bool transpose_a, transpose_b;
    bool has_bias;
  };

  MatMulKernel(const Geometry& g, std::vector<size_t> a_offsets, std::vector<size_t> b_offsets)
      : g_(g), a_offsets_(std::move(a_offsets)), b_offsets_(std::move(b_offsets)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* a_base = static_cast<const float*>(in[0]);
    const float* b_base = static_cast<const float*>(in[1]);
    const float* bias = g_.has_bias ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t M = g_.M, N = g_.N, K = g_.K;
    // A(i,k): stored [M,K] (row stride K) or, transposed, [K,M] (row stride 1).
    const size_t a_rs = g_.transpose_a ? 1 : K;
    const size_t a_cs = g_.transpose_a ? M : 1;

    for (size_t batch = 0; batch < a_offsets_.size(); ++batch, y += M * N) {
      const float* a = a_base + a_offsets_[batch];
      const float* b = b_base + b_offsets_[batch];
      if (!g_.transpose_b) {
        // B stored [K,N]: i-k-j order so the inner loop runs along a row of B
        // and a row of the output, both unit stride.
        for (size_t i = 0; i < M; ++i) {
          float* yr = y + i * N;
          for (size_t j = 0; j < N; ++j) yr[j] = bias ? bias[j] : 0.0f;
          for (size_t k = 0; k < K; ++k) {
            const float aik = a[i * a_rs + k * a_cs];
            const float* br = b + k * N;
            for (size_t j = 0; j < N; ++j) yr[j] += aik * br[j];
          }
        }
      } else {
        // B stored [N,K]: each output is a dot product with a row of B.
        for (size_t i = 0; i < M; ++i) {
          for (size_t j = 0; j < N; ++j) {
            const float* br = b + j * K;
            float acc = bias ? bias[j] : 0.0f;
            for (size_t k = 0; k < K; ++k) acc += a[i * a_rs + k * a_cs] * br[k];
            y[i * N + j] = acc;
          }
        }
      }
    }
  }

 private:
  Geometry g_;
  // Element offset of each output batch's A and B matrices (broadcast
  // resolved here, once).
  std::vector<size_t> a_offsets_, b_offsets_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"", "", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"transpose_in0", "transpose_in1"}); !s.ok()) return s;
  bool ta = false, tb = false;
  if (Status s = params.bool_scalar("transpose_in0", false, &ta); !s.ok()) return s;
  if (Status s = params.bool_scalar("transpose_in1", false, &tb); !s.ok()) return s;

  const TensorDesc& x0 = node.inputs[0];
  const TensorDesc& x1 = node.inputs[1];
  for (size_t i = 0; i < 2; ++i) {
    const TensorDesc& t = node.inputs[i];
    // Rank >= 2 is the op definition (a matrix per batch); <= 4 is the HTP's limit.
    if (Status s = check_rank(node, t, in_label(i, ""), 2, SIZE_MAX, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (Status s = check_rank(node, t, in_label(i, ""), 2, kMaxRank, StatusCode::kUnsupported); !s.ok())
      return s;
  }
  const size_t r0 = x0.dims.size(), r1 = x1.dims.size();
  const uint32_t M = ta ? x0.dims[r0 - 1] : x0.dims[r0 - 2];
  const uint32_t K = ta ? x0.dims[r0 - 2] : x0.dims[r0 - 1];
  const size_t k0_axis = ta ? r0 - 2 : r0 - 1;
  const uint32_t K1 = tb ? x1.dims[r1 - 1] : x1.dims[r1 - 2];
  const uint32_t N = tb ? x1.dims[r1 - 2] : x1.dims[r1 - 1];
  const size_t k1_axis = tb ? r1 - 1 : r1 - 2;
  if (K != K1) {
    return invalid(node, "inner dimensions differ: in[0] dim ", k0_axis, " is ", K,
                   " (transpose_in0 = ", ta, ") but in[1] dim ", k1_axis, " is ", K1,
                   " (transpose_in1 = ", tb, ")");
  }

  const std::span<const uint32_t> batch0(x0.dims.data(), r0 - 2);
  const std::span<const uint32_t> batch1(x1.dims.data(), r1 - 2);
  std::vector<uint32_t> out_batch;
  size_t bad = 0;
  if (!broadcast_shape(batch0, batch1, &out_batch, &bad)) {
    const size_t ai = bad + batch0.size() - out_batch.size();
    const size_t bi = bad + batch1.size() - out_batch.size();
    return invalid(node, "batch dims not broadcastable: in[0] dim ", ai, " is ", batch0[ai],
                   " and in[1] dim ", bi, " is ", batch1[bi], " (must be equal or one of them 1)");
  }

  const bool has_bias = has_input(node, 2);
  if (has_bias) {
    const TensorDesc& bias = node.inputs[2];
    if (Status s = check_rank(node, bias, in_label(2, "bias"), 1, 1, StatusCode::kInvalidArgument); !s.ok())
      return s;
    if (bias.dims[0] != N) {
      return invalid(node, "in[2] (bias) dim 0 is ", bias.dims[0], ", expected N = ", N);
    }
  }

  std::vector<uint32_t> out_dims = out_batch;
  out_dims.push_back(M);
  out_dims.push_back(N);
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    // Offsets of every output batch into A and B: broadcast strides walked
    // with an odometer over the output batch dims.
    const std::vector<size_t> sa = broadcast_strides(batch0, out_batch);
    const std::vector<size_t> sb = broadcast_strides(batch1, out_batch);
    const size_t n_batch = product(out_batch, 0, out_batch.size());
    std::vector<size_t> a_off(n_batch), b_off(n_batch);
    std::vector<size_t> idx(out_batch.size(), 0);
    for (size_t bt = 0; bt < n_batch; ++bt) {
      size_t oa = 0, ob = 0;
      for (size_t ax = 0; ax < out_batch.size(); ++ax) {
        oa += idx[ax] * sa[ax];
        ob += idx[ax] * sb[ax];
      }
      a_off[bt] = oa * size_t{M} * K;  // each batch of A holds M*K elements
      b_off[bt] = ob * size_t{K} * N;
      for (size_t ax = out_batch.size(); ax-- > 0;) {
        if (++idx[ax] < out_batch[ax]) break;
        idx[ax] = 0;
      }
    }
    const MatMulKernel::Geometry g{M, N, K, ta, tb, has_bias};
    *kernel = with_epilogue(node, std::make_unique<MatMulKernel>(g, std::move(a_off), std::move(b_off)));
  }
  return Status::Ok();
}

}  // namespace

OpDef matmul_def() { return {"MatMul", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
