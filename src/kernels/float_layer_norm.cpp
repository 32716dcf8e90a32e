#include "kernels/float_layer_norm.h"

#include <algorithm>

#include "kernels/parallel_tiles.h"
#include "ops/trailing_norm.h"

namespace openhtp::kernels::f32 {
namespace {

// The reference's loop, row by row (reference/layer_norm.cpp): the shared
// statistics, then (x - center) * inv [* gamma] [+ beta] in double, rounded
// once. One clone per ISA level; this file is built with -ffp-contract=off
// (CMakeLists.txt), so the clones' multiplies and adds round as the
// reference's do (its SSE2 baseline has no FMA to contract into) and the
// bytes are the reference's.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void normalize_rows(
    const float* x, const float* gamma, const float* beta, float* y, size_t rows, size_t cols, bool centred,
    double epsilon) {
  for (size_t r = 0; r < rows; ++r, x += cols, y += cols) {
    const ops::NormStats st = ops::norm_stats(cols, centred, epsilon, [&](size_t c) __attribute__((always_inline)) { return x[c]; });
    for (size_t c = 0; c < cols; ++c) {
      double v = (x[c] - st.center) * st.inv;
      if (gamma != nullptr) v *= gamma[c];
      if (beta != nullptr) v += beta[c];
      y[c] = static_cast<float>(v);
    }
  }
}

class TrailingNormKernel final : public ops::OpKernel {
 public:
  TrailingNormKernel(bool centred, const ops::NormShape& shape, bool has_gamma, bool has_beta, pthreadpool_t pool)
      : centred_(centred), shape_(shape), has_gamma_(has_gamma), has_beta_(has_beta), pool_(pool) {
    // Rows in one share per thread from kShareMinElems (parallel_tiles.h):
    // ~0.3 ns an element vectorized, 16K is ~5 us, several times a split.
    min_rows_ = std::max<size_t>(1, (kShareMinElems + shape.cols - 1) / shape.cols);
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* gamma = has_gamma_ ? static_cast<const float*>(in[1]) : nullptr;
    const float* beta = has_beta_ ? static_cast<const float*>(in[2]) : nullptr;
    float* y = static_cast<float*>(out[0]);
    const size_t cols = shape_.cols;
    auto body = [&](size_t start, size_t count) {
      normalize_rows(x + start * cols, gamma, beta, y + start * cols, count, cols, centred_, shape_.epsilon);
    };
    run_in_shares(pool_, shape_.rows, min_rows_, body);
  }

 private:
  bool centred_;
  ops::NormShape shape_;
  bool has_gamma_, has_beta_;
  pthreadpool_t pool_;
  size_t min_rows_ = 1;
};

bool prepare(const ops::NodeDesc& node, bool centred, float default_epsilon, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.empty() || node.inputs.size() > 3 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  for (const ops::TensorDesc& t : node.inputs) {
    if (t.present && t.dtype != ops::dtype::kFloat32) return false;
  }
  if (node.outputs[0].dtype != ops::dtype::kFloat32) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // validates axes, epsilon, gamma/beta dims and types
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  ops::NormShape shape;
  if (!ops::norm_shape(node, default_epsilon, &shape)) return false;
  auto has = [&](size_t i) { return node.inputs.size() > i && node.inputs[i].present; };
  *kernel = std::make_unique<TrailingNormKernel>(centred, shape, has(1), has(2), graph_pool(node));
  return true;
}

}  // namespace

bool prepare_layer_norm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare(node, /*centred=*/true, 0.001f, kernel);
}

bool prepare_rms_norm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  return prepare(node, /*centred=*/false, 1e-6f, kernel);
}

}  // namespace openhtp::kernels::f32
