// fp32 Softmax along the last axis with beta = 1 through XNNPACK's
// softmax_nc_f32 (rows of `channels` values; its vectorized exp is within a
// few float ulps of the reference's double arithmetic, the tolerance
// tests/kernels/softmax_test.cpp states). The attention scores of a
// transformer are the case: 2 x 0.55 ms of a 2-layer encoder's 8 ms ran on
// the reference. Other axes and beta != 1 are declined (the reference runs).
// A row holding NaN or +inf (or all -inf) came out of XNNPACK as -inf where
// the reference gives NaN; an output that is not >= 0 — which no
// probability is — has the reference recompute the node
// (xnnpack_one_input_kernel.h).
#include "kernels/nonfinite_scan.h"
#include "kernels/parallel_tiles.h"
#include "kernels/xnnpack_one_input_kernel.h"
#include "kernels/xnnpack_paths.h"
#include "kernels/xnnpack_runtime.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;

class SoftmaxKernel final : public OneInputKernel {
 public:
  SoftmaxKernel(Operator op, size_t rows, size_t in_bytes, pthreadpool_t pool)
      : OneInputKernel(std::move(op), in_bytes, pool), rows_(rows), elems_(in_bytes / sizeof(float)) {}

 private:
  bool reference_needed(const void*, const void* y) const override {
    return any_not_nonnegative(static_cast<const float*>(y), elems_);
  }
  xnn_status setup(const void* x, void* y) override {
    return xnn_setup_softmax_nc_f32(op_.get(), rows_, static_cast<const float*>(x), static_cast<float*>(y), pool_);
  }

  size_t rows_;
  size_t elems_;
};

}  // namespace

bool prepare_softmax_f32(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (!ready() || node.inputs.size() != 1 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (x.dtype != dtype::kFloat32 || y.dtype != dtype::kFloat32 || x.dims.empty() || x.dims != y.dims) return false;
  std::unique_ptr<ops::OpKernel> reference;  // validates axis and beta; kept for non-finite rows
  if (!ops::prepare_reference(node, &reference).ok() || !reference) return false;
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  if (const ops::Param* a = node.find_param("axis"); a != nullptr && (a->is_tensor || a->i != rank - 1)) return false;
  if (const ops::Param* b = node.find_param("beta"); b != nullptr && (b->is_tensor || b->f != 1.0)) return false;
  const size_t channels = x.dims.back();
  const size_t elems = x.num_elements();
  if (channels == 0 || elems == 0) return false;
  xnn_operator_t op = nullptr;
  if (xnn_create_softmax_nc_f32(channels, channels, channels, kRunFlags, &op) != xnn_status_success) return false;
  // Split over the graph's threads from kShareMinElems (parallel_tiles.h;
  // ~12 us of exp and division at one thread), not at pool_for's 1M
  // multiply-adds: the input
  // is an attention MatMul's output that all threads wrote, and one thread
  // reading it all took 0.115 ms at two threads against 0.05 at one. The
  // transformer encoder's 4 x 128 x 128 scores, split: 0.065 each
  // (docs/performance.md, session 14).
  pthreadpool_t pool = elems >= kShareMinElems ? pool_of(node) : nullptr;
  auto k = std::make_unique<SoftmaxKernel>(Operator(op), elems / channels, elems * sizeof(float), pool);
  if (!k->setup_once(x.planned)) return false;
  k->keep_reference(std::move(reference));
  *kernel = std::move(k);
  return true;
}

}  // namespace openhtp::kernels::xnn
